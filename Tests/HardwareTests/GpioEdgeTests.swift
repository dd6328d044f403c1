import BodyCore
import BodyHardware
import Glibc
import Testing
import BodyTestSupport

// Edges: bounce, kernel debounce, lost edges. Part of GpioBoardTests so
// that every test's chips and line names are alone in the kernel.
extension GpioBoardTests {
    /// One bounce: five pulls through one descriptor, ending pressed, read
    /// back as edges and fed through a fresh `Contact`.
    private func bounceOnce(_ chip: GpioSimChip, _ board: GpioBoard, _ fd: Int32) throws
        -> (span: Double, edges: Int, presses: [Double], down: Bool) {
        try chip.setPull("SBT_BTN", "pull-down")
        while waitReadable(fd, ms: 50) != 0 { _ = try board.readEdges(from: fd) }
        var contact = Contact(debounce: 0.010, down: try board.isPressed(.onair), at: monotonicNow())
        let start = monotonicNow()
        try chip.bounce("SBT_BTN", pulls: ["pull-up", "pull-down", "pull-up", "pull-down", "pull-up"])
        let span = monotonicNow() - start
        var edges: [ButtonEdge] = []
        while waitReadable(fd, ms: 100) != 0 { edges += try board.readEdges(from: fd) }
        var presses: [Double] = []
        var events = edges.flatMap { contact.edge(pressed: $0.pressed, at: $0.at) }
        events += contact.tick(at: monotonicNow())
        for case .press(let at) in events { presses.append(at - start) }
        return (span, edges.count, presses, contact.isDown)
    }

    @Test("contact bounce within 5 ms reaches the two-press as one press", arguments: [false, true])
    func bounceIsOnePress(kernelDebounce: Bool) throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_BTN"])
        let board = try GpioBoard(outputs: [:], buttons: [.onair: LineWiring(name: "SBT_BTN")], kernelDebounce: kernelDebounce)
        defer { board.release() }
        let fd = try #require(board.edgeDescriptors.first)
        let ms = { (v: Double) in String(format: "%.2f", v * 1000) }
        // The VM's timing is noisy: a try counts when all five pulls fell
        // inside 5 ms. Each such try must be exactly one press, whether the
        // kernel reported one edge or several.
        var counted = 0
        for attempt in 1...10 where counted < 3 {
            let r = try bounceOnce(chip, board, fd)
            print("gpio-tests: libgpiod \(GpioBoard.libgpiodVersion) kernel debounce \(!board.kernelDebounced.isEmpty) try \(attempt): 5 pulls in \(ms(r.span)) ms gave \(r.edges) edges, presses at \(r.presses.map(ms)) ms")
            guard r.span < 0.005 else { continue }
            counted += 1
            #expect(r.presses.count == 1, "try \(attempt): \(r.edges) edges")
            #expect(r.down)
        }
        #expect(counted > 0, "no try put five pulls inside 5 ms")
    }

    @Test("kernel debounce is asked for on libgpiod 2.x only")
    func kernelDebounce() throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_BTN", "SBT_RAW"])
        let board = try GpioBoard(outputs: [:], buttons: [.onair: LineWiring(name: "SBT_BTN", debounce: 0.010),
                                                         .kill: LineWiring(name: "SBT_RAW", debounce: 0)])
        defer { board.release() }
        #expect(board.kernelDebounced == (GpioBoard.libgpiodAPI == 2 ? [.onair] : []))
        _ = chip
    }

    @Test("an edge's delay from the pull to its timestamp, raw and kernel-debounced", arguments: [false, true])
    func latency(kernelDebounce: Bool) throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_BTN"])
        let board = try GpioBoard(outputs: [:], buttons: [.onair: LineWiring(name: "SBT_BTN", debounce: 0.010)], kernelDebounce: kernelDebounce)
        defer { board.release() }
        let fd = try #require(board.edgeDescriptors.first)
        var stamp: [Double] = []
        var seen: [Double] = []
        for i in 0..<20 {
            let before = monotonicNow()
            try chip.setPull("SBT_BTN", i % 2 == 0 ? "pull-up" : "pull-down")
            let edges = try collectEdges(board, fd, count: 1)
            let now = monotonicNow()
            guard let e = edges.first else { Issue.record("no edge for pull \(i)"); return }
            #expect(e.pressed == (i % 2 == 0))
            // The kernel stamps the edge on CLOCK_MONOTONIC after the pull was
            // written and before the edge could be read: a timestamp from
            // another clock, in the wrong unit or from an earlier edge lies outside.
            #expect(e.at >= before && e.at <= now,
                    "pull \(i): edge stamped \(e.at), pull written at \(before), edge read by \(now)")
            stamp.append(e.at - before)
            seen.append(now - before)
        }
        stamp.sort(); seen.sort()
        let ms = { (v: Double) in String(format: "%.2f", v * 1000) }
        print("gpio-tests: libgpiod \(GpioBoard.libgpiodVersion) kernel debounce \(!board.kernelDebounced.isEmpty): 20 edges, timestamp after pull median \(ms(stamp[10])) ms max \(ms(stamp[19])); readable after pull median \(ms(seen[10])) ms max \(ms(seen[19]))")
    }

    @Test("on libgpiod 2.x a gap in sequence numbers is counted as lost edges")
    func lostEdges() throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_BTN"])
        let board = try GpioBoard(outputs: [:], buttons: [.onair: LineWiring(name: "SBT_BTN", debounce: 0)], kernelDebounce: false)
        defer { board.release() }
        let fd = try #require(board.edgeDescriptors.first)
        // More edges than the kernel's buffer (16 per line) holds, unread.
        for i in 0..<60 {
            try chip.setPull("SBT_BTN", i % 2 == 0 ? "pull-up" : "pull-down")
            usleep(1000)
        }
        var edges: [ButtonEdge] = []
        while waitReadable(fd, ms: 300) != 0 { edges += try board.readEdges(from: fd) }
        print("gpio-tests: libgpiod \(GpioBoard.libgpiodVersion): 60 pulls unread gave \(edges.count) edges and \(board.lostEdges) lost")
        #expect(edges.count <= 16)
        if GpioBoard.libgpiodAPI == 2 {
            // The kernel may fold two quick pulls into one event; every event
            // it numbered is either read or counted lost.
            #expect(board.lostEdges > 0)
            #expect((40...60).contains(edges.count + board.lostEdges))
        } else {
            #expect(board.lostEdges == 0)
        }
    }
}
