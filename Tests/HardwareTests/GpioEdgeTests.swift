import BodyCore
import BodyHardware
import Glibc
import Testing

@Suite("GPIO edges: bounce, kernel debounce, lost edges", .serialized, .enabled(if: insideHIL, "needs the HIL VM (STUDIO_BODY_HIL=1)"))
struct GpioEdgeTests {
    /// Bounces the line: `writes` pulls alternating from pressed, ending pressed.
    private func bounce(_ chip: GpioSimChip, _ line: String, writes: Int) throws -> (start: Double, span: Double) {
        let start = monotonicNow()
        for i in 0..<writes { try chip.setPull(line, i % 2 == 0 ? "pull-up" : "pull-down") }
        return (start, monotonicNow() - start)
    }

    @Test("contact bounce within 5 ms reaches the two-press as one press", arguments: [false, true])
    func bounceIsOnePress(kernelDebounce: Bool) throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_BTN"])
        let board = try GpioBoard(outputs: [:], buttons: [.onair: LineWiring(name: "SBT_BTN")], kernelDebounce: kernelDebounce)
        defer { board.release() }
        let fd = try #require(board.edgeDescriptors.first)
        var contact = Contact(debounce: 0.010, down: try board.isPressed(.onair), at: monotonicNow())

        let (start, span) = try bounce(chip, "SBT_BTN", writes: 5)
        var edges: [ButtonEdge] = []
        while waitReadable(fd, ms: 300) != 0 { edges += try board.readEdges(from: fd) }
        var presses: [Double] = []
        for e in edges {
            for event in contact.edge(pressed: e.pressed, at: e.at) {
                if case .press(let at) = event { presses.append(at) }
            }
        }
        for event in contact.tick(at: monotonicNow()) {
            if case .press(let at) = event { presses.append(at) }
        }
        print("gpio-tests: libgpiod \(GpioBoard.libgpiodVersion) kernel debounce \(board.kernelDebounced == [.onair]): 5 pulls in \(String(format: "%.2f", span * 1000)) ms gave \(edges.count) edges, \(presses.count) press(es), first press \(String(format: "%.2f", ((presses.first ?? .nan) - start) * 1000)) ms after the first pull")
        try #require(span < 0.010, "the pulls took \(span) s: too slow to be bounce on this machine")
        #expect(presses.count == 1)
        #expect(contact.isDown)
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
            stamp.append(e.at - before)
            seen.append(now - before)
        }
        stamp.sort(); seen.sort()
        let ms = { (v: Double) in String(format: "%.2f", v * 1000) }
        print("gpio-tests: libgpiod \(GpioBoard.libgpiodVersion) kernel debounce \(!board.kernelDebounced.isEmpty): 20 edges, timestamp after pull median \(ms(stamp[10])) ms max \(ms(stamp[19])); readable after pull median \(ms(seen[10])) ms max \(ms(seen[19]))")
        #expect(stamp[0] >= 0)
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
            #expect(board.lostEdges > 0)
            #expect(edges.count + board.lostEdges == 60)
        } else {
            #expect(board.lostEdges == 0)
        }
    }
}
