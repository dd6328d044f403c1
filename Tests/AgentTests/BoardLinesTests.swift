import Testing
@testable import BodyAgent
@testable import AgentHarness
@testable import BodyCore
import BodyHardware
import BodySystem

/// The board as the agent holds it, on its own: a fake board, a loop, no agent.
@Suite("The board's lines: driven when they change, let go and had again")
struct BoardLinesTests {
    let loop: EventLoop
    let fake: FakeBoard
    let lines: BoardLines

    init() throws {
        loop = try EventLoop()
        let fake = try FakeBoard()
        self.fake = fake
        lines = BoardLines(loop: loop)
    }

    static let lampOnly = Indicators(lamp: (.steady, 0), armedLED: (.dark, 0), eyeLED: (.dark, 0))
    static let armed = Indicators(lamp: (.steady, 0), armedLED: (.steady, 0), eyeLED: (.dark, 0))

    func open() throws { _ = try lines.open({ [fake] in fake }) { _ in } }
    func drive(_ shown: Indicators, at t: Double = 100) throws -> [OutputRole] {
        var drove: [OutputRole] = []
        try lines.drive(shown, at: t) { role, _ in drove.append(role) }
        return drove
    }

    @Test("each line is written the first time, then only when its level changes")
    func onlyChanges() throws {
        try open()
        #expect(try drive(Self.lampOnly) == [.lamp, .armedLED, .eyeLED])
        #expect(try drive(Self.lampOnly, at: 101).isEmpty, "nothing changed")
        #expect(try drive(Self.armed, at: 102) == [.armedLED])
        #expect(fake.writes.count == 4)
        #expect(lines.driven[.armedLED] == true)
    }

    @Test("a line that fails throws, and is not taken as driven")
    func failing() throws {
        try open()
        fake.failing = .armedLED
        #expect(throws: BoardError.self) { try drive(Self.armed) }
        #expect(lines.driven[.lamp] == true)
        #expect(lines.driven[.armedLED] == nil, "not written, so not driven")
    }

    @Test("let go, the lines are released and nothing is driven; had again, every line is written afresh")
    func letGoAndAgain() throws {
        try open()
        _ = try drive(Self.armed)
        lines.letGo(because: "gpio: the chip went away")
        #expect(fake.released && lines.board == nil)
        #expect(lines.problem == "gpio: the chip went away")
        #expect(try drive(Self.armed).isEmpty, "no board, no writes")
        try open()
        #expect(lines.problem == nil)
        #expect(try drive(Self.armed) == [.lamp, .armedLED, .eyeLED], "the chip's levels are unknown after it came back")
    }

    @Test("the kernel's dropped edges are told once per drop, and counted afresh after a reopen")
    func lostEdges() throws {
        try open()
        #expect(lines.newlyLost() == nil)
        fake.lostEdges = 3
        #expect(lines.newlyLost() == 3)
        #expect(lines.newlyLost() == nil, "said once")
        fake.lostEdges = 5
        #expect(lines.newlyLost() == 2)
    }

    @Test("a board that cannot be opened is a problem in words, and no lines")
    func cannotOpen() throws {
        let refused = BoardLines(loop: loop)
        let busy = { () throws(BoardError) -> any Board in
            throw BoardError(.busy, "gpio: line SBT_LAMP is held by another process")
        }
        #expect(throws: BoardError.self) { _ = try refused.open(busy) { _ in } }
        #expect(refused.board == nil)
        #expect(refused.problem == "gpio: line SBT_LAMP is held by another process")
    }

    @Test("the stop darkens every line it can, says the one it cannot, and lets go")
    func darken() throws {
        try open()
        _ = try drive(Self.armed)
        fake.failing = .lamp
        var heard: [(OutputRole, Bool)] = []
        lines.darken { role, failed in heard.append((role, failed == nil)) }
        #expect(heard.map(\.0) == [.lamp, .armedLED, .eyeLED])
        #expect(heard.map(\.1) == [false, true, true])
        // Written dark before the release (which darkens the fake's lines itself).
        #expect(fake.writes.suffix(2).map { "\($0.0.rawValue)=\($0.1)" } == ["armed-led=false", "eye-led=false"])
        #expect(fake.released)
        #expect(lines.board == nil)
    }
}
