import BodyCore
import BodyHardware
import BodySystem
import Glibc
import Testing
import BodyTestSupport

/// Reads edges from `fd` until `count` came or `ms` passed without one.
func collectEdges(_ board: GpioBoard, _ fd: FileDescriptor, count: Int, ms: Int32 = 2000) throws -> [ButtonEdge] {
    var edges: [ButtonEdge] = []
    while edges.count < count, waitReadable(fd, ms: ms) != 0 {
        edges += try board.readEdges(from: fd)
    }
    return edges
}

@Suite("GPIO against a real gpio-sim chip", .serialized, .enabled(if: insideHIL, "needs the HIL VM (STUDIO_BODY_HIL=1)"))
struct GpioBoardTests {
    @Test("lines are found by name across chips, with chip and offset")
    func findAcrossChips() throws {
        let a = try GpioSimChip("sbt-a", lines: ["SBT_A0", "SBT_A1"])
        let b = try GpioSimChip("sbt-b", lines: ["SBT_B0", "SBT_B1", "SBT_B2"])
        let board = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_B2"), .armedLED: LineWiring(name: "SBT_A0")],
                                  buttons: [.onair: LineWiring(name: "SBT_A1")])
        defer { board.release() }
        #expect(board.outputs == [.lamp, .armedLED])
        #expect(board.buttons == [.onair])
        let found = Dictionary(uniqueKeysWithValues: board.found.map { ($0.role, $0.line) })
        #expect(found["lamp"] == FoundLine(chip: b.chipName, offset: 2, name: "SBT_B2"))
        #expect(found["armed-led"] == FoundLine(chip: a.chipName, offset: 0, name: "SBT_A0"))
        #expect(found["button onair"] == FoundLine(chip: a.chipName, offset: 1, name: "SBT_A1"))
        #expect(board.edgeDescriptors.count == 2, "one button, then the chip watch")
    }

    @Test("a name on two chips stops with both places named")
    func ambiguous() throws {
        let a = try GpioSimChip("sbt-a", lines: ["SBT_DUP", "SBT_X"])
        let b = try GpioSimChip("sbt-b", lines: ["SBT_Y", "SBT_DUP"])
        let error = #expect(throws: BoardError.self) {
            try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_DUP")], buttons: [:])
        }
        #expect(error?.kind == .lineAmbiguous)
        let words = error?.words ?? ""
        #expect(words.hasPrefix("gpio: cannot use line \"SBT_DUP\""))
        #expect(words.contains("\(a.chipName) line 0"))
        #expect(words.contains("\(b.chipName) line 1"))
        #expect(!words.contains("\n"))
    }

    @Test("a link to a chip (Raspberry Pi OS's /dev/gpiochip4) is the same chip: each line found once, by its own node")
    func linkedChip() throws {
        let a = try GpioSimChip("sbt-a", lines: ["SBT_A0", "SBT_A1"])
        // A number no chip has, as Raspberry Pi OS's rule links gpiochip4 only when it is free.
        let link = "/dev/gpiochip\(Int(a.chipName.dropFirst(8))! + 40)"
        try #require(symlink(a.chipName, link) == 0, "symlink \(link): \(String(cString: strerror(errno)))")
        defer { unlink(link) }
        let board = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_A0")], buttons: [.onair: LineWiring(name: "SBT_A1")])
        defer { board.release() }
        let found = Dictionary(uniqueKeysWithValues: board.found.map { ($0.role, $0.line) })
        #expect(found["lamp"] == FoundLine(chip: a.chipName, offset: 0, name: "SBT_A0"))
        let places = try GpioLookup.places(["SBT_A1"])
        #expect(places["SBT_A1"]?.path == "/dev/\(a.chipName)", "the real node, not the link")
        try board.drive(.lamp, lit: true)
        #expect(try a.value("SBT_A0") == 1)
    }

    @Test("a name on no chip stops with one line naming the chips searched")
    func missing() throws {
        let a = try GpioSimChip("sbt-a", lines: ["SBT_A0"])
        let b = try GpioSimChip("sbt-b", lines: ["SBT_B0"])
        let error = #expect(throws: BoardError.self) {
            try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_A0")], buttons: [.kill: LineWiring(name: "GPIO99")])
        }
        #expect(error?.kind == .lineNotFound)
        let words = error?.words ?? ""
        #expect(words.hasPrefix("gpio: cannot find line \"GPIO99\": no line has that name; searched "))
        #expect(words.contains("\(a.chipName) (sbt-a, 1 lines)"))
        #expect(words.contains("\(b.chipName) (sbt-b, 1 lines)"))
        #expect(!words.contains("\n"))
        // The lamp that was found was not left requested: it can be taken again.
        let board = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_A0")], buttons: [:])
        board.release()
    }

    @Test("one line for two roles is refused before anything is requested")
    func sameLineTwice() throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_A0"])
        let error = #expect(throws: BoardError.self) {
            try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_A0")], buttons: [.onair: LineWiring(name: "SBT_A0")])
        }
        #expect(error?.words.contains("already uses it for lamp") == true)
        _ = chip
    }

    @Test("a line another owner holds is busy, in words")
    func busy() throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_A0"])
        let first = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_A0")], buttons: [:])
        defer { first.release() }
        let error = #expect(throws: BoardError.self) {
            try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_A0")], buttons: [:])
        }
        #expect(error?.kind == .busy)
        #expect(error?.words == "gpio: cannot request line \"SBT_A0\" on \(chip.chipName) for lamp: Device or resource busy; "
            + "another program holds the line (gpioinfo shows which): stop that program, or wire lamp to a free line")
    }

    @Test("outputs start dark and drive the wire, active-high and active-low", arguments: [false, true])
    func drive(activeLow: Bool) throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_LAMP"])
        let board = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_LAMP", activeLow: activeLow)], buttons: [:])
        defer { board.release() }
        let dark = activeLow ? 1 : 0
        #expect(try chip.value("SBT_LAMP") == dark)
        try board.drive(.lamp, lit: true)
        #expect(try chip.value("SBT_LAMP") == 1 - dark)
        try board.drive(.lamp, lit: false)
        #expect(try chip.value("SBT_LAMP") == dark)
    }

    @Test("a press is an edge with a kernel CLOCK_MONOTONIC timestamp", arguments: [false, true])
    func edges(activeLow: Bool) throws {
        let idle = activeLow ? "pull-up" : "pull-down"
        let pushed = activeLow ? "pull-down" : "pull-up"
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_BTN"], pulls: ["SBT_BTN": idle])
        let board = try GpioBoard(outputs: [:], buttons: [.onair: LineWiring(name: "SBT_BTN", activeLow: activeLow, debounce: 0)])
        defer { board.release() }
        let fd = try #require(board.edgeDescriptors.first)
        #expect(try board.readEdges(from: fd).isEmpty)
        #expect(try board.isPressed(.onair) == false)

        let before = monotonicNow()
        try chip.setPull("SBT_BTN", pushed)
        let after = monotonicNow()
        let down = try collectEdges(board, fd, count: 1)
        #expect(down.count == 1)
        #expect(down.first?.button == .onair)
        #expect(down.first?.pressed == true)
        let at = try #require(down.first?.at)
        #expect(at >= before && at <= after, "edge at \(at), write between \(before) and \(after)")
        #expect(try board.isPressed(.onair) == true)

        try chip.setPull("SBT_BTN", idle)
        let up = try collectEdges(board, fd, count: 1)
        #expect(up.map(\.pressed) == [false])
        #expect((up.first?.at ?? 0) > at)
        #expect(board.lostEdges == 0)
    }

    @Test("bias pull-up on an input is honoured by the chip", arguments: [(Bias.pullUp, 1), (.pullDown, 0)])
    func bias(bias: Bias, level: Int) throws {
        // The simulated outside pulls the other way; the line's own bias must win.
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_BTN"], pulls: ["SBT_BTN": level == 1 ? "pull-down" : "pull-up"])
        let board = try GpioBoard(outputs: [:], buttons: [.kill: LineWiring(name: "SBT_BTN", bias: bias)])
        defer { board.release() }
        #expect(try chip.value("SBT_BTN") == level)
        #expect(try board.isPressed(.kill) == (level == 1))
    }

    @Test("release darkens, then leaves each line to its pull; safe twice")
    func releaseToPull() throws {
        let chip = try GpioSimChip("sbt-a", lines: ["SBT_LAMP", "SBT_BTN"], pulls: ["SBT_LAMP": "pull-down"])
        let board = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_LAMP", activeLow: true)],
                                  buttons: [.onair: LineWiring(name: "SBT_BTN")])
        try board.drive(.lamp, lit: true)
        #expect(try chip.value("SBT_LAMP") == 0)
        board.release()
        #expect(try chip.value("SBT_LAMP") == 0, "released: the pull-down, not the driven dark (1)")
        board.release()
        #expect(board.edgeDescriptors.isEmpty)
        // Released lines can be taken by the next owner at once.
        let again = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_LAMP", activeLow: true)], buttons: [:])
        #expect(try chip.value("SBT_LAMP") == 1)
        again.release()
    }

    @Test("the chip going away is .chipGone; a new board after it returns works")
    func chipGone() throws {
        // Another chip going away is no loss for this board.
        let other = try GpioSimChip("sbt-other", lines: ["SBT_OTHER"])
        let chip = try GpioSimChip("sbt-live", lines: ["SBT_LAMP", "SBT_BTN"])
        let board = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_LAMP")],
                                  buttons: [.onair: LineWiring(name: "SBT_BTN")])
        let fd = try #require(board.edgeDescriptors.first)
        try board.drive(.lamp, lit: true)
        try other.remove()
        let watch = try #require(board.chipWatchDescriptor)
        #expect(waitReadable(watch, ms: 2000) != 0)
        #expect(try board.readEdges(from: watch) == [])
        try chip.setLive(false)

        // Kernels before 6.x do not wake an epoll on the edge fd; the chip
        // watch (inotify on /dev) must turn readable by itself.
        #expect(board.edgeDescriptors.contains(watch))
        #expect(waitReadable(watch, ms: 2000) & Int16(POLLIN) != 0, "the chip watch turned readable")
        let watchError = #expect(throws: BoardError.self) { try board.readEdges(from: watch) }
        #expect(watchError?.kind == .chipGone)
        print("gpio-tests: chip watch: \(watchError?.words ?? "-")")
        let revents = waitReadable(fd, ms: 500)
        print("gpio-tests: poll on a gone chip's edge fd gave revents \(String(revents, radix: 16))")
        let driveError = #expect(throws: BoardError.self) { try board.drive(.lamp, lit: false) }
        #expect(driveError?.kind == .chipGone)
        #expect(driveError?.words.hasPrefix("gpio: cannot drive line \"SBT_LAMP\"") == true)
        let readError = #expect(throws: BoardError.self) { try board.readEdges(from: fd) }
        #expect(readError?.kind == .chipGone)
        print("gpio-tests: \(driveError?.words ?? "-") | \(readError?.words ?? "-")")
        board.release()
        board.release()

        let gone = #expect(throws: BoardError.self) {
            try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_LAMP")], buttons: [:])
        }
        #expect(gone?.kind == .lineNotFound)

        try chip.setLive(true)
        let back = try GpioBoard(outputs: [.lamp: LineWiring(name: "SBT_LAMP")],
                                 buttons: [.onair: LineWiring(name: "SBT_BTN")])
        defer { back.release() }
        try back.drive(.lamp, lit: true)
        #expect(try chip.value("SBT_LAMP") == 1)
        try chip.setPull("SBT_BTN", "pull-up")
        let edges = try collectEdges(back, try #require(back.edgeDescriptors.first), count: 1)
        #expect(edges.map(\.pressed) == [true])
    }
}
