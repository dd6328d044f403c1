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

    func drive(_ role: OutputRole, lit: Bool) throws(BoardError) { self.lit[role] = lit }
    var edgeDescriptors: [FileDescriptor] { [ready.descriptor!] }
    func readEdges(from fd: FileDescriptor) throws(BoardError) -> [ButtonEdge] {
        _ = try? ready.drain()
        defer { waiting.removeAll() }
        return waiting
    }
    func isPressed(_ button: ButtonRole) throws(BoardError) -> Bool { down }
    var lostEdges: Int { 0 }
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

/// The agent on a fake board, a manual clock and a real server on a loopback
/// port, turned by hand: a test feeds events and reads the deeds, in order.
final class AgentRig {
    let clock: ManualClock
    let board: FakeBoard
    let agent: Agent
    var deeds: [AgentDeed] = []

    /// `more`: further sections of the configuration (a `[location]`);
    /// `watchdog`: systemd's ping interval, as half of WATCHDOG_USEC would give it.
    init(at t: Double = 1000, wallAhead: Double = Moment(0).wall, more: String = "", watchdog: Double? = nil) throws {
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

    /// Runs what is ready (descriptors, posted work, timers due by the
    /// clock's time: the server's "run again now") until `done`, or 200 passes.
    func pump(until done: () -> Bool) throws {
        for _ in 0..<200 {
            if done() { return }
            try agent.loop.runReady()
            guard try agent.loop.runTimers(dueBy: clock.mono) else { throw RunawayTimer(at: clock.mono) }
            usleep(1000)
        }
    }

    func client() -> Client { Client(port: agent.port) }

    /// `client`'s answer, the loop run until it came (nil: it never did).
    func answer(_ client: Client) throws -> (status: Int, body: String)? {
        var got: (status: Int, body: String)?
        try pump { got = client.answer(); return got != nil }
        return got
    }

    /// Oriel pushes `json` on `client`; its answer.
    func push(_ client: Client, _ json: String) throws -> (status: Int, body: String)? {
        client.send("POST", "/face", body: json)
        return try answer(client)
    }

    /// The button's line moves at `t`: the loop reads the edge (a turn of
    /// its own), then the clock passes the 10 ms window's end and the rules read the line.
    func line(_ down: Bool, at t: Double) throws {
        let edges = deeds.filter { $0 == .turn("button edges") }.count
        clock.mono = t
        board.press(down, at: t)
        try pump { deeds.filter { $0 == .turn("button edges") }.count > edges }
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

/// One non-blocking HTTP/1.1 connection.
final class Client {
    let fd: Int32
    private var got: [UInt8] = []
    var raw: String { String(decoding: got, as: UTF8.self) }

    init(port: UInt16) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// The client goes away (both directions shut), as an Oriel that stopped would.
    func leave() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    func send(_ method: String, _ path: String, body: String = "") {
        let text = "\(method) \(path) HTTP/1.1\r\nHost: body\r\nAuthorization: Bearer t0ken\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything received so far, as text (a stream's bytes: `/events`).
    func received() -> String {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += chunk[0..<n]
        }
        return raw
    }

    /// A whole answer, if one has arrived: its status and body.
    func answer() -> (status: Int, body: String)? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += chunk[0..<n]
        }
        guard let end = got.indices.dropLast(3).first(where: { got[$0] == 13 && got[$0 + 1] == 10 && got[$0 + 2] == 13 && got[$0 + 3] == 10 })
        else { return nil }
        let head = String(decoding: got[..<end], as: UTF8.self).lowercased().split(separator: "\r\n")
        let length = head.first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).filter { $0 != " " }) } ?? 0
        let body = got[(end + 4)...]
        guard body.count >= length, let status = Int(head[0].split(separator: " ")[1]) else { return nil }
        defer { got.removeFirst(end + 4 + length) }
        return (status, String(decoding: body.prefix(length), as: UTF8.self))
    }
}

/// A timer kept re-arming itself for a moment already due: time by hand could not move past it.
struct RunawayTimer: Error, CustomStringConvertible {
    let at: Double
    var description: String { "a timer re-armed itself for a moment already due, 1000 passes in a row at \(at) s: the loop would spin" }
}
