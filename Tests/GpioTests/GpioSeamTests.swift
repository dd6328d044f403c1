import Testing
@testable import BodyHardware
import BodyCore
import BodySystem
import Glibc

/// The board as the agent wires it on a Pi: the lamp and the armed LED,
/// the on-air and kill buttons, all on the header's chip.
private let outputs: [OutputRole: LineWiring] = [.lamp: LineWiring(name: "GPIO17"), .armedLED: LineWiring(name: "GPIO27")]
private let buttons: [ButtonRole: LineWiring] = [.onair: LineWiring(name: "GPIO22"), .kill: LineWiring(name: "GPIO23")]

private func open(_ chips: FakeChips) throws(BoardError) -> GpioBoard {
    try GpioBoard(outputs: outputs, buttons: buttons, calls: chips.calls)
}

@Suite("the GPIO board over a fake chip: requests, a busy line, a chip that goes, reads that fail")
struct GpioSeamTests {
    @Test("every line is found by name and requested, outputs dark; the finder's chips are closed")
    func opens() throws {
        let chips = FakeChips()
        let board = try open(chips)
        #expect(chips.log == ["request GPIO17 output dark", "request GPIO27 output dark",
                              "request GPIO22 edges", "request GPIO23 edges"])
        #expect(chips.held == ["GPIO17", "GPIO22", "GPIO23", "GPIO27"])
        #expect(chips.openChipCount == 0, "the chips the search opened are closed again")
        let found = Dictionary(uniqueKeysWithValues: board.found.map { ($0.role, $0.line) })
        #expect(found["lamp"] == FoundLine(chip: "gpiochip0", offset: 17, name: "GPIO17"))
        #expect(found["button kill"] == FoundLine(chip: "gpiochip0", offset: 23, name: "GPIO23"))
        // Each button's descriptor in the roles' order, then the chip watch's.
        #expect(board.edgeDescriptors == [chips.descriptor("GPIO22"), chips.descriptor("GPIO23"), FakeChips.watchDescriptor])
        #expect(board.chipWatchDescriptor == FakeChips.watchDescriptor)
    }

    @Test("active-low lines: dark is the high wire, lit the low one, and a pressed button reads low")
    func activeLow() throws {
        let chips = FakeChips()
        let board = try GpioBoard(outputs: [.lamp: LineWiring(name: "GPIO17", activeLow: true)],
                                  buttons: [.onair: LineWiring(name: "GPIO22", activeLow: true)], calls: chips.calls)
        #expect(chips.wire("GPIO17") == 1)
        try board.drive(.lamp, lit: true)
        #expect(chips.wire("GPIO17") == 0)
        chips.edge("GPIO22", active: true, at: 100)
        #expect(chips.wire("GPIO22") == 0)
        #expect(try board.isPressed(.onair))
    }

    @Test("a button request that fails after the outputs were taken releases every line taken, last first, and says why")
    func halfFinished() throws {
        let chips = FakeChips()
        chips.fail("request GPIO23", errno: EIO)
        #expect(throws: BoardError(.other, "gpio: cannot request line \"GPIO23\" on gpiochip0 for button kill: Input/output error")) {
            try open(chips)
        }
        #expect(chips.held == [], "nothing is left held")
        #expect(chips.log == ["request GPIO17 output dark", "request GPIO27 output dark", "request GPIO22 edges", "request GPIO23 edges",
                              "release GPIO22", "release GPIO27", "release GPIO17"])
        #expect(chips.openChipCount == 0)
        #expect(!chips.watchOpen, "the chip watch is closed on the way out too")
        // Nothing was left behind: the next try takes every line.
        chips.heal("request GPIO23")
        let board = try open(chips)
        #expect(chips.held == ["GPIO17", "GPIO22", "GPIO23", "GPIO27"])
        board.release()
    }

    @Test("a line another program holds is busy: the words name the line and say what to do")
    func busy() throws {
        let chips = FakeChips()
        chips.hold("GPIO22", by: "gpiomon")
        #expect(throws: BoardError(.busy, "gpio: cannot request line \"GPIO22\" on gpiochip0 for button onair: Device or resource busy; "
                                          + "another program holds the line (gpioinfo shows which): stop that program, or wire button onair to a free line")) {
            try open(chips)
        }
        #expect(chips.held == [], "the outputs taken before it are let go")
        chips.letGo("GPIO22")
        let board = try open(chips)
        try board.drive(.lamp, lit: true)
        #expect(chips.wire("GPIO17") == 1)
    }

    @Test("the chip removed: the watch says so once, naming the first line; every call is .chipGone; the retry opens when it is back")
    func chipGone() throws {
        let chips = FakeChips()
        let board = try open(chips)
        let onair = try #require(chips.descriptor("GPIO22"))
        try board.drive(.lamp, lit: true)
        chips.remove("gpiochip0")

        let gone = "No such device (the chip went away)"
        #expect(throws: BoardError(.chipGone, "gpio: cannot read line \"GPIO17\" on gpiochip0 (lamp): \(gone)")) {
            try board.readEdges(from: FakeChips.watchDescriptor)
        }
        #expect(try board.readEdges(from: FakeChips.watchDescriptor) == [], "the watch is drained: said once")
        #expect(throws: BoardError(.chipGone, "gpio: cannot drive line \"GPIO17\" on gpiochip0 (lamp): \(gone)")) {
            try board.drive(.lamp, lit: false)
        }
        #expect(throws: BoardError(.chipGone, "gpio: cannot read edges from line \"GPIO22\" on gpiochip0 (button onair): \(gone)")) {
            try board.readEdges(from: onair)
        }
        #expect(throws: BoardError(.chipGone, "gpio: cannot read line \"GPIO23\" on gpiochip0 (button kill): \(gone)")) {
            try board.isPressed(.kill)
        }

        // The agent lets go of everything, quietly, and may do so twice.
        board.release()
        board.release()
        #expect(chips.held == [])
        #expect(!chips.watchOpen)
        #expect(board.edgeDescriptors == [])

        // Its retry: no chip, so no line, in words that say where it looked.
        #expect(throws: BoardError(.lineNotFound, "gpio: cannot find line \"GPIO17\": no line has that name; no GPIO chips in /dev")) {
            try open(chips)
        }
        chips.restore("gpiochip0")
        let back = try open(chips)
        try back.drive(.lamp, lit: true)
        #expect(chips.wire("GPIO17") == 1)
        chips.edge("GPIO22", active: true, at: 200)
        #expect(try back.readEdges(from: try #require(chips.descriptor("GPIO22")))
                == [ButtonEdge(button: .onair, pressed: true, at: 200)])
    }

    @Test("another chip removed is no loss: the watch reads nothing for this board")
    func otherChipGone() throws {
        let chips = FakeChips()
        chips.addChip("gpiochip1", label: "gpio-sim", lines: ["SIM0"])
        let board = try open(chips)
        chips.remove("gpiochip1")
        #expect(try board.readEdges(from: FakeChips.watchDescriptor) == [])
        try board.drive(.lamp, lit: true)
        #expect(chips.wire("GPIO17") == 1)
    }

    @Test("a read that fails says which line, which action and why", arguments: [
        ("read GPIO22", EIO, BoardError(.other, "gpio: cannot read edges from line \"GPIO22\" on gpiochip0 (button onair): Input/output error")),
        ("get GPIO22", EIO, BoardError(.other, "gpio: cannot read line \"GPIO22\" on gpiochip0 (button onair): Input/output error")),
        ("get GPIO22", EACCES, BoardError(.permission, "gpio: cannot read line \"GPIO22\" on gpiochip0 (button onair): Permission denied")),
        ("set GPIO17", EIO, BoardError(.other, "gpio: cannot drive line \"GPIO17\" on gpiochip0 (lamp): Input/output error")),
        ("watch read", EIO, BoardError(.other, "gpio: cannot read the chip watch on the device directory: Input/output error")),
    ])
    func readFails(call: String, errno: Int32, expected: BoardError) throws {
        let chips = FakeChips()
        let board = try open(chips)
        let onair = try #require(chips.descriptor("GPIO22"))
        chips.fail(call, errno: errno)
        let error = #expect(throws: BoardError.self) {
            switch call {
            case "read GPIO22": _ = try board.readEdges(from: onair)
            case "get GPIO22": _ = try board.isPressed(.onair)
            case "set GPIO17": try board.drive(.lamp, lit: true)
            default: _ = try board.readEdges(from: FakeChips.watchDescriptor)
            }
        }
        #expect(error == expected)
        // A failed call leaves the board as it was: once the fault clears, the same call works.
        chips.heal(call)
        chips.edge("GPIO22", active: true, at: 5)
        #expect(try board.readEdges(from: onair).map(\.pressed) == [true])
        #expect(try board.isPressed(.onair))
    }

    @Test("edges come with the kernel's time in seconds and the level they went to, in order")
    func edges() throws {
        let chips = FakeChips()
        let board = try open(chips)
        let onair = try #require(chips.descriptor("GPIO22"))
        let kill = try #require(chips.descriptor("GPIO23"))
        #expect(try board.readEdges(from: onair) == [])
        chips.edge("GPIO22", active: true, at: 100)
        chips.edge("GPIO23", active: true, at: 100.05)
        chips.edge("GPIO22", active: false, at: 100.2)
        #expect(try board.readEdges(from: onair) == [ButtonEdge(button: .onair, pressed: true, at: 100),
                                                      ButtonEdge(button: .onair, pressed: false, at: 100.2)])
        #expect(try board.readEdges(from: kill) == [ButtonEdge(button: .kill, pressed: true, at: 100.05)])
        #expect(try board.readEdges(from: FileDescriptor(rawValue: 77)) == [], "a descriptor not the board's reads nothing")
    }

    @Test("a burst is read in chunks of 16 up to 64 a read; the rest waits for the next", arguments: [(15, [15]), (16, [16]), (40, [40]), (100, [64, 36])])
    func burst(queued: Int, reads: [Int]) throws {
        let chips = FakeChips()
        let board = try open(chips)
        let onair = try #require(chips.descriptor("GPIO22"))
        for i in 0..<queued { chips.edge("GPIO22", active: i % 2 == 0, at: 100 + Double(i) / 1000) }
        var counts: [Int] = []
        while true {
            let n = try board.readEdges(from: onair).count
            if n == 0 { break }
            counts.append(n)
        }
        #expect(counts == reads)
        #expect(board.lostEdges == 0)
    }

    @Test("edges the kernel dropped are counted from the gaps in each line's sequence numbers")
    func lostEdges() throws {
        let chips = FakeChips()
        let board = try open(chips)
        let onair = try #require(chips.descriptor("GPIO22"))
        let kill = try #require(chips.descriptor("GPIO23"))
        // Two lost before the first edge read: a request's first edge is number 1.
        chips.drop("GPIO22", count: 2)
        chips.edge("GPIO22", active: true, at: 1)
        chips.edge("GPIO22", active: false, at: 2)
        _ = try board.readEdges(from: onair)
        #expect(board.lostEdges == 2)
        chips.edge("GPIO23", active: true, at: 3)
        chips.drop("GPIO23", count: 5)
        chips.edge("GPIO23", active: false, at: 4)
        _ = try board.readEdges(from: kill)
        #expect(board.lostEdges == 7, "each line's numbers are its own")
        chips.edge("GPIO22", active: true, at: 5)
        _ = try board.readEdges(from: onair)
        #expect(board.lostEdges == 7, "no gap, nothing more")
        chips.drop("GPIO22", count: 1)
        chips.edge("GPIO22", active: false, at: 6)
        _ = try board.readEdges(from: onair)
        #expect(board.lostEdges == 8, "one edge lost is a gap too")
    }

    @Test("without sequence numbers (libgpiod 1.x) nothing is counted as lost")
    func noSeqnos() throws {
        let chips = FakeChips(seqnos: false)
        let board = try open(chips)
        let onair = try #require(chips.descriptor("GPIO22"))
        chips.drop("GPIO22", count: 3)
        chips.edge("GPIO22", active: true, at: 1)
        #expect(try board.readEdges(from: onair).count == 1)
        #expect(board.lostEdges == 0)
    }

    @Test("release drives the outputs dark, then lets every line go; the watch is closed")
    func release() throws {
        let chips = FakeChips()
        let board = try open(chips)
        try board.drive(.lamp, lit: true)
        try board.drive(.armedLED, lit: true)
        board.release()
        #expect(Array(chips.log.suffix(6)) == ["set GPIO17 dark", "release GPIO17", "set GPIO27 dark", "release GPIO27",
                                               "release GPIO22", "release GPIO23"])
        #expect(chips.held == [])
        #expect(!chips.watchOpen)
        #expect(board.chipWatchDescriptor == nil)
        #expect(throws: BoardError.self) { try board.drive(.lamp, lit: true) }
    }

    @Test("without inotify (its limits reached) the board opens with no chip watch")
    func noWatch() throws {
        let chips = FakeChips()
        chips.fail("watch", errno: EMFILE)
        let board = try open(chips)
        #expect(board.chipWatchDescriptor == nil)
        #expect(board.edgeDescriptors == [chips.descriptor("GPIO22"), chips.descriptor("GPIO23")])
    }
}

@Suite("finding lines by name over fake chips")
struct GpioFinderSeamTests {
    @Test("a name on no chip says which chips were searched")
    func missing() {
        let chips = FakeChips()
        chips.addChip("gpiochip1", label: "gpio-sim", lines: ["SIM0", "SIM1"])
        #expect(throws: BoardError(.lineNotFound, "gpio: cannot find line \"GPIO99\": no line has that name; "
                                                 + "searched gpiochip0 (pinctrl-bcm2711, 28 lines), gpiochip1 (gpio-sim, 2 lines)")) {
            try GpioFinder(calls: chips.calls).find(["GPIO17", "GPIO99"])
        }
        #expect(chips.openChipCount == 0)
    }

    @Test("a name on two chips is refused with both places")
    func ambiguous() {
        let chips = FakeChips()
        chips.addChip("gpiochip1", label: "gpio-sim", lines: ["SIM0", "GPIO17"])
        #expect(throws: BoardError(.lineAmbiguous, "gpio: cannot use line \"GPIO17\": the name is on gpiochip0 line 17 and gpiochip1 line 1; "
                                                   + "searched gpiochip0 (pinctrl-bcm2711, 28 lines), gpiochip1 (gpio-sim, 2 lines)")) {
            try GpioFinder(calls: chips.calls).find(["GPIO17"])
        }
    }

    @Test("a chip that cannot be opened is named with why, and the others are still searched")
    func unreadable() throws {
        let chips = FakeChips()
        chips.addChip("gpiochip1", label: "gpio-sim", lines: ["SIM0"])
        chips.fail("open /dev/gpiochip0", errno: EACCES)
        #expect(throws: BoardError(.lineNotFound, "gpio: cannot find line \"GPIO17\": no line has that name; "
                                                 + "searched gpiochip0 (cannot open: Permission denied), gpiochip1 (gpio-sim, 1 lines)")) {
            try GpioFinder(calls: chips.calls).find(["GPIO17"])
        }
        #expect(try GpioFinder(calls: chips.calls).find(["SIM0"])["SIM0"]?.line == FoundLine(chip: "gpiochip1", offset: 0, name: "SIM0"))
    }
}
