import BodyCore
import BodyHardware
import Glibc
import Testing
import BodyTestSupport

// The simulated board needs no hardware: these run everywhere.
@Suite("SimBoard: presses through the same descriptor path as real edges")
struct SimBoardTests {
    @Test("a press is a down edge then an up edge 0.1 s later, read from the board's fd (both due already)")
    func press() throws {
        let board = try SimBoard()
        defer { board.release() }
        let fd = try #require(board.edgeDescriptors.first)
        #expect(waitReadable(fd, ms: 0) == 0)
        let at = monotonicNow() - 1
        board.press(.kill, at: at)
        // A timerfd armed for a time past fires at once, through the kernel's timer softirq.
        #expect(waitReadable(fd, ms: 500) & Int16(POLLIN) != 0)
        #expect(try board.readEdges(from: fd) == [
            ButtonEdge(button: .kill, pressed: true, at: at),
            ButtonEdge(button: .kill, pressed: false, at: at + SimBoard.pressLength),
        ])
        #expect(waitReadable(fd, ms: 0) == 0)
        #expect(try board.readEdges(from: fd) == [])
    }

    @Test("each edge arrives when its time comes, and a read says the level then, as a real line's")
    func edgesInTime() throws {
        let board = try SimBoard()
        defer { board.release() }
        let fd = try #require(board.edgeDescriptors.first)
        let at = monotonicNow()
        board.press(.onair, at: at)
        #expect(try board.readEdges(from: fd) == [ButtonEdge(button: .onair, pressed: true, at: at)])
        #expect(try board.isPressed(.onair), "held until its release is due")
        #expect(waitReadable(fd, ms: 1000) & Int16(POLLIN) != 0, "the release's time wakes the reader")
        #expect(monotonicNow() >= at + SimBoard.pressLength)
        #expect(try board.isPressed(.onair) == false)
        #expect(try board.readEdges(from: fd) == [ButtonEdge(button: .onair, pressed: false, at: at + SimBoard.pressLength)])
        #expect(waitReadable(fd, ms: 0) == 0, "nothing more is due: the timer is disarmed")
    }

    @Test("every role is present and outputs keep the level driven")
    func outputs() throws {
        let board = try SimBoard()
        #expect(board.outputs == OutputRole.allCases)
        #expect(board.buttons == ButtonRole.allCases)
        #expect(board.found.count == OutputRole.allCases.count + ButtonRole.allCases.count)
        #expect(board.level(.lamp) == false)
        try board.drive(.lamp, lit: true)
        #expect(board.level(.lamp))
        #expect(board.level(.armedLED) == false)
        board.release()
        #expect(board.level(.lamp) == false)
        #expect(board.edgeDescriptors.isEmpty)
        #expect(throws: BoardError.self) { try board.drive(.lamp, lit: true) }
        board.release()
    }

    @Test("a held button reads as pressed until let go")
    func hold() throws {
        let board = try SimBoard()
        defer { board.release() }
        let at = monotonicNow() - 1
        board.set(.onair, pressed: true, at: at - 0.5)
        #expect(try board.isPressed(.onair))
        board.set(.onair, pressed: false, at: at)
        #expect(try board.isPressed(.onair) == false)
        #expect(try board.readEdges(from: board.edgeDescriptors[0]).map(\.pressed) == [true, false])
    }
}
