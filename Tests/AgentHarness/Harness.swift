import Glibc
@testable import BodyAgent
import BodyConfig
import BodyCore
import BodyHardware
import BodySystem

/// A clock that moves only when the test says.
final class ManualClock: @unchecked Sendable {
    var mono: Double
    /// How far the wall clock is ahead of `mono` (by default `Moment`'s own distance).
    let wallAhead: Double
    init(_ mono: Double, wallAhead: Double = Moment(0).wall) {
        self.mono = mono
        self.wallAhead = wallAhead
    }
    var clock: AgentClock { AgentClock { [unowned self] in Moment(mono: self.mono, wall: self.mono + self.wallAhead) } }
}

/// A board of three outputs and the On Air button, edges handed in by the
/// test through an eventfd the loop watches, as a chip's would be.
final class FakeBoard: Board {
    let outputs: [OutputRole] = [.lamp, .armedLED, .eyeLED]
    let buttons: [ButtonRole] = [.onair]
    var found: [(role: String, line: FoundLine)] { [] }
    private let ready: EventCounter
    private var waiting: [ButtonEdge] = []
    var down = false
    var released = false
    var lit: [OutputRole: Bool] = [:]

    init() throws(BoardError) {
        do { ready = try EventCounter() } catch { throw BoardError(.other, "eventfd: \(error)") }
    }

    /// Every line written, in order.
    var writes: [(OutputRole, Bool)] = []
    /// A line whose writes fail, as a chip that went away would.
    var failing: OutputRole?

    func drive(_ role: OutputRole, lit: Bool) throws(BoardError) {
        if role == failing { throw BoardError(.chipGone, "gpio: the \(role.rawValue) line went away") }
        self.lit[role] = lit
        writes.append((role, lit))
    }
    var edgeDescriptors: [FileDescriptor] { [ready.descriptor!] }
    func readEdges(from fd: FileDescriptor) throws(BoardError) -> [ButtonEdge] {
        _ = try? ready.drain()
        defer { waiting.removeAll() }
        return waiting
    }
    func isPressed(_ button: ButtonRole) throws(BoardError) -> Bool { down }
    /// The kernel's count of dropped edges, as a test sets it.
    var lostEdges = 0
    func release() {
        for role in outputs { lit[role] = false }
        released = true
    }

    /// The finger: the line moves at `t` (kernel time) and the edge waits to be read.
    func press(_ down: Bool, at t: Double) {
        self.down = down
        waiting.append(ButtonEdge(button: .onair, pressed: down, at: t))
        try? ready.signal()
    }
}

/// Which HTTP server the rig's agent serves through.
enum RigServer {
    /// The fake (FakeServer.swift): requests handed in, answers read back, no socket.
    case fake
    /// libmicrohttpd on a loopback port, for what only it does
    /// (`Tests/LibmicrohttpdAgentTests`, on real sockets; never in `AgentTests`).
    case libmicrohttpd
}

/// The agent on a fake board, a manual clock and the fake HTTP server,
/// turned by hand: a test feeds events and reads the deeds, in order.
final class AgentRig {
    let clock: ManualClock
    let board: FakeBoard
    let agent: Agent
    /// The fake server (nil on libmicrohttpd).
    private(set) var server: FakeServer?
    var deeds: [AgentDeed] = []

    /// `more`: further sections of the configuration (a `[location]`);
    /// `watchdog`: systemd's ping interval, as half of WATCHDOG_USEC would give it.
    init(at t: Double = 1000, wallAhead: Double = Moment(0).wall, more: String = "", watchdog: Double? = nil,
         server kind: RigServer = .fake) throws {
        clock = ManualClock(t, wallAhead: wallAhead)
        let config = try BodyConfig.parse("[body]\nname = studio\nlisten = 127.0.0.1:0\nannounce = no\n[board]\nfile = sim\n" + more,
                                          file: "test.conf")
        var boardConfig = BoardConfig.sim
        boardConfig.simulated = false
        boardConfig.file = "fake"
        let fake = try FakeBoard()
        board = fake
        agent = try Agent(AgentSetup(config: config, board: boardConfig, token: "t0ken", version: "test"),
                          log: Log(), clock: clock.clock)
        agent.boardMaker = { fake }
        if kind == .fake {
            agent.serverMaker = { [unowned self] wiring throws(AgentError) in
                let made = try FakeServer(wiring)
                self.server = made
                return made
            }
        }
        agent.witness = { [unowned self] in deeds.append($0) }
        agent.watchdogEvery = watchdog
        try agent.start()
    }

    /// The body stops as it would at SIGTERM: a request a failed test left
    /// waiting is answered, so the server never stops with a connection
    /// suspended (libmicrohttpd aborts the whole test run on that).
    deinit {
        agent.witness = nil
        agent.shutdown(signal: SIGTERM)
    }

    /// Moves the clock and runs every timer due by then.
    func advance(to t: Double) throws {
        clock.mono = t
        guard try agent.loop.runTimers(dueBy: t) else { throw RunawayTimer(at: t) }
    }

    /// Runs what is ready now (the fake server's and board's descriptors,
    /// posted work, timers due by the clock's time), pass after pass until
    /// one runs no turn: what the fake server or the fake board was handed
    /// has then been carried out whole, with no wait.
    func settle() throws {
        for _ in 0..<100 {
            let before = deeds.count
            try agent.loop.runReady()
            guard try agent.loop.runTimers(dueBy: clock.mono) else { throw RunawayTimer(at: clock.mono) }
            if deeds.count == before { return }
        }
        throw RunawayTimer(at: clock.mono)
    }

    /// A client of the fake server.
    func client() -> Client { Client(server!) }

    /// `client`'s answer, once what is ready has run (nil: none came).
    func answer(_ client: Client) throws -> (status: Int, body: String)? {
        try settle()
        return client.answer()
    }

    /// Oriel pushes `json` on `client`; its answer.
    func push(_ client: Client, _ json: String) throws -> (status: Int, body: String)? {
        client.send("POST", "/face", body: json)
        return try answer(client)
    }

    /// The button's line moves at `t`: the loop reads the edge (a turn of
    /// its own), then the clock passes the 10 ms window's end and the rules read the line.
    func line(_ down: Bool, at t: Double) throws {
        clock.mono = t
        board.press(down, at: t)
        try settle()
        try advance(to: t + 0.01)
    }

    /// The deeds of each turn, split at its beginning.
    var turns: [[AgentDeed]] {
        var out: [[AgentDeed]] = []
        for d in deeds {
            if case .turn = d { out.append([d]) } else if !out.isEmpty { out[out.count - 1].append(d) }
        }
        return out
    }

    /// The turn in which `deed` happened.
    func turn(with deed: AgentDeed) -> [AgentDeed]? { turns.first { $0.contains(deed) } }
}

/// Oriel, a browser or a script as the fake server sees it: requests in
/// order, as on one kept-alive connection, each answer read once.
final class Client {
    let server: FakeServer
    private(set) var asked: [FakeExchange] = []
    private var read = 0

    init(_ server: FakeServer) { self.server = server }

    /// With the body's token, as Oriel sends it.
    func send(_ method: String, _ path: String, body: String = "") {
        asked.append(server.request(method, path, headers: ["host": "body", "authorization": "Bearer t0ken"],
                                    body: Array(body.utf8)))
    }

    /// The next whole answer not yet read, if it came: its status and body.
    func answer() -> (status: Int, body: String)? {
        guard read < asked.count, let response = asked[read].response else { return nil }
        read += 1
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// What the last request's stream gave so far, as text (`/events`).
    func received() -> String { asked.last?.text ?? "" }

    /// The client goes away, as an Oriel that stopped would.
    func leave() {
        for exchange in asked where !exchange.finished { server.hangUp(exchange) }
    }
}

/// A timer kept re-arming itself for a moment already due: time by hand could not move past it.
struct RunawayTimer: Error, CustomStringConvertible {
    let at: Double
    var description: String { "a timer re-armed itself for a moment already due, 1000 passes in a row at \(at) s: the loop would spin" }
}
