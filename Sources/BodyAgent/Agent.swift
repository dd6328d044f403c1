import Glibc
public import BodyCore
public import BodyConfig
import BodyHardware
import BodyHTTP
import BodyHub
import BodyAnnounce
public import BodyTLS

/// Everything the agent needs to start, already read and checked.
public struct AgentSetup: Sendable {
    public var config: BodyConfig
    public var board: BoardConfig
    public var token: String
    public var version: String
    /// The key and certificate the body serves HTTPS with; nil serves plain HTTP (`[body] tls = no`).
    public var tls: TLSIdentity?
    /// The line said at start about which it serves and why (`BodyIdentity.words`).
    public var tlsWords: String?

    public init(config: BodyConfig, board: BoardConfig, token: String, version: String,
                tls: TLSIdentity? = nil, tlsWords: String? = nil) {
        self.config = config
        self.board = board
        self.token = token
        self.version = version
        self.tls = tls
        self.tlsWords = tlsWords
    }
}

/// A reason the body cannot start, in one line.
public struct AgentError: Error, CustomStringConvertible {
    public let description: String
    public init(_ words: String) { description = words }
}

/// The one owner of the body's state. Every event (an HTTP request, a button
/// edge, a timer, a camera frame, a hello's outcome) arrives on the loop's
/// thread and goes into `Body`, which decides and returns what to do
/// (`BodyAction`); the agent carries that out (`perform`) and drives the
/// lines from `Body.indicators`. Every rule's state (what Oriel said, each
/// contact, arming and request, the outbox, the eyes gate, Oriel's silence)
/// is in `body` and nowhere else. What else is held here belongs to I/O,
/// not to the rules: the board and the levels last driven on its lines
/// (`driven`, so a line is written only when it changes), the waiting
/// `/ears` replies (`polls`), the hello's retry schedule (`Hello`), the
/// camera and its clients (`PreviewService`), the gpsd watch and its waiting
/// `/where` replies (`WhereService`), the loop's timers, and what
/// `/metrics` counts (`metrics`, fed from the actions and these events).
public final class Agent: @unchecked Sendable {
    let loop: EventLoop
    let setup: AgentSetup
    let log: Log
    let notify = Notify()
    /// The last notify failure said, so a broken socket is one line, not one a ping.
    var notifyFailure: String?
    let auth: BearerAuth
    let boot = Ids.fresh()
    var body: Body
    /// The counters and histograms `/metrics` shows; the gauges are read when scraped.
    var metrics = Metrics()

    // The board and what it shows.
    var board: (any Board)?
    var boardProblem: String?
    var boardRetry: EventLoop.TimerID?
    var edgeWatches: [EventLoop.WatchID] = []
    var driven: [OutputRole: Bool] = [:]
    var lostEdgesSaid = 0
    /// When the last simulated press sequence lets go (edge time).
    var simPressesEnd: Double = 0

    // HTTP.
    var server: HTTPServer?
    var serverTimer: EventLoop.TimerID?
    var polls: [Poll] = []

    // Oriel, and the network (the DNS-SD announcement, on Avahi's thread).
    var hello: Hello?
    var announcer: AvahiAnnouncer?
    /// Avahi's host name (`studio.local`) while the service is established.
    var announcedHost: String?

    // Timers and the stop.
    var tickTimer: EventLoop.TimerID?
    var tickDue: Double?
    var signals: Signals?
    var stopping = false

    // Place and eyes.
    var location: WhereService!
    var preview: PreviewService!

    public init(_ setup: AgentSetup, log: Log = Log()) throws(AgentError) {
        do { loop = try EventLoop() } catch { throw AgentError(error.description) }
        self.setup = setup
        self.log = log
        auth = BearerAuth(token: setup.token)
        body = Body(settings: BodySettings(
            name: setup.config.name, onAirAction: setup.board.onAirAction, unreadLamp: setup.board.unreadLamp,
            silence: setup.config.silence, camera: setup.config.cameraDevice.map { "\(setup.config.name) camera (\($0))" }),
            at: Self.moment())
        let logger = log
        location = WhereService(loop: loop, allowed: setup.config.locationAllowed, host: setup.config.gpsdHost,
                                port: setup.config.gpsdPort, log: { logger($0) })
        preview = PreviewService(loop: loop, device: setup.config.cameraDevice, width: setup.config.cameraWidth,
                                 height: setup.config.cameraHeight, fps: setup.config.cameraFPS, log: { logger($0) })
    }

    static func moment() -> Moment {
        let mono = EventLoop.monotonic()
        return Moment(mono: mono, wall: EventLoop.wall(), synchronised: WallClock.synchronised(at: mono))
    }

    var isSim: Bool { setup.board.simulated }

    /// Opens the board and the server, says hello, tells systemd it is ready.
    /// A board or address that cannot be had stops the start in one line.
    public func start() throws(AgentError) {
        do {
            let signals = try Signals()
            self.signals = signals
            try loop.watch(fd: signals.descriptor) { [unowned self] () throws(LoopError) in
                if let sig = try signals.take() { self.shutdown(signal: sig) }
            }
            // The journal's stream, when it can make a line wait: whatever waits
            // goes out when the reader takes some again (edge-triggered: a wake
            // a time the stream frees room, never a spin while it is full).
            if let stream = log.outlet.descriptor {
                try loop.watch(fd: stream.rawValue, events: [.writable, .edgeTriggered]) { [log] in log.outlet.flush() }
            }
        } catch { throw AgentError(error.description) }
        do { try openBoard() } catch { throw AgentError(error.description) }
        preview.onGone = { [unowned self] why in
            self.cameraGone(why)
            self.settle()
        }
        do {
            let server = try HTTPServer(listen: setup.config.listenHost, port: setup.config.listenPort,
                                        tls: setup.tls.map { HTTPTLS(key: $0.key, certificate: $0.certificate) },
                                        trusts: { [auth] in auth.allows($0.headers["authorization"]) || auth.allows(token: $0.query["token"]) },
                                        log: { [log] in log($0) },
                                        // What failed stays in the journal; what went well is debug.
                                        requests: { [log] line, status in log(line, status >= 400 ? .notice : .debug) },
                                        handler: { [unowned self] request, reply in self.handle(request, reply) })
            server.answered = { [unowned self] status in self.metrics.answered(status: status) }
            self.server = server
            try loop.watch(fd: server.pollDescriptor) { [unowned self] in self.serverTurn() }
        } catch {
            board?.release()
            throw AgentError("\(error)")
        }
        log("serving on \(setup.config.listenHost):\(port) as \"\(setup.config.name)\", board \(setup.board.file), boot \(boot)")
        if let words = setup.tlsWords { log(words) }
        log(WallClock.words())
        if let url = setup.config.orielURL { hello = Hello(agent: self, oriel: url) }
        startAnnouncing()
        perform(body.started())
        if let interval = Notify.watchdogInterval() { watchdog(every: interval) }
        settle()
        tell("READY=1\nSTATUS=serving")
    }

    /// The bound port (the configured one, or the kernel's pick for port 0).
    public var port: UInt16 { server?.port ?? setup.config.listenPort }

    /// Runs until a signal that ends the body (SIGTERM, SIGINT, SIGHUP, ...); throws when the loop cannot go on.
    public func run() throws(AgentError) {
        do { try loop.run() } catch { throw AgentError(error.description) }
    }

    /// Tells systemd; a failure is logged when its words change, not on every ping.
    func tell(_ state: String) {
        let failed = notify.send(state)
        if failed != notifyFailure, let failed { log(failed, .error) }
        notifyFailure = failed
    }

    func watchdog(every interval: Double) {
        tell("WATCHDOG=1")
        loop.schedule(at: EventLoop.monotonic() + interval) { [unowned self] in
            if !self.stopping { self.watchdog(every: interval) }
        }
    }

    // MARK: After every event

    /// Lets the rules see the time, then brings the lines, the camera and the
    /// timers in line with the state. Called after every event.
    func settle(at now: Moment = Agent.moment()) {
        guard !stopping else { return }
        // What this event answered (a press answering Oriel's waiting poll) goes
        // out first, in this turn: that is what the kill switch is for, and the
        // rules' tick (a bounce window's reading of the lines, say) and the LEDs
        // can follow it. The loop would otherwise wait again only to hear the
        // server's wake-up.
        // A request that server turn handled settled at a later moment: the rules
        // never see time go back, so the tick and the LEDs take a later one too.
        // (Otherwise `now`: a clock read is a system call in the VM.)
        let first = sendAnswers()
        let tickAt = first ? Self.moment() : now
        perform(body.tick(at: tickAt, ids: { Ids.fresh() }))
        let second = sendAnswers()
        driveOutputs(at: second ? Self.moment() : tickAt)
        scheduleTick(at: tickAt)
        _ = sendAnswers()
    }

    /// Runs the server if an answer waits to go out; never from inside its own run.
    private func sendAnswers() -> Bool {
        guard server?.wantsRun == true else { return false }
        serverTurn()
        return true
    }

    /// Carries out what the rules decided, in order. Decides nothing itself.
    func perform(_ actions: [BodyAction]) {
        for action in actions {
            metrics.count(action)
            switch action {
            case .wakePolls:
                wakePolls()
            case .sayHello:
                hello?.begin()
            case .log(let words, let level):
                log(words, level == .warning ? .warning : .info)
            case .preview(let run, let why):
                preview.run(run, why: why)
                // A camera that cannot be opened counts as gone: the gate then
                // waits for a fresh opening rather than retrying the device.
                if run && !preview.running { cameraGone(preview.stoppedWhy) }
            case .readLevel(let role):
                readLevel(role)
            case .pressed, .unanswered, .noise:
                break  // counted above
            }
        }
    }

    /// The one way a camera failure reaches the rules: it did not start, or
    /// it stopped by itself (`PreviewService.onGone`).
    func cameraGone(_ why: String) {
        perform(body.cameraGone(why))
    }

    func scheduleTick(at now: Moment) {
        let due = body.nextDue(at: now)
        guard due != tickDue else { return }
        loop.cancel(tickTimer)
        tickDue = due
        tickTimer = due.map { at in
            loop.schedule(at: at) { [unowned self] in
                self.tickTimer = nil
                self.tickDue = nil
                self.settle()
            }
        }
    }

    func driveOutputs(at now: Moment) {
        guard let board else { return }
        let indicators = body.indicators(at: now)
        for role in board.outputs {
            let lit = indicators.level(role, at: now.mono)
            guard driven[role] != lit else { continue }
            do {
                try board.drive(role, lit: lit)
                driven[role] = lit
            } catch {
                boardLost(error)
                return
            }
        }
    }

    // MARK: The status document

    func status(at now: Moment) -> StatusDocument {
        var lines: [OutputRole: Bool?] = [:]
        for role in setup.board.outputs.keys { lines[role] = board == nil ? nil : (driven[role] ?? false) }
        var held: [ButtonRole: (held: Bool, stuck: Bool)] = [:]
        for role in setup.board.buttons.keys {
            let c = body.contacts[role]
            held[role] = (c?.isDown ?? false, c?.isHeld ?? false)
        }
        return body.status(at: now, StatusExtras(
            lines: lines, held: held,
            location: .init(allowed: location.allowed, watching: location.watching,
                            clockSynchronised: now.synchronised, clockBehindReceiver: location.clockBehind),
            previewRunning: preview.running, previewWords: preview.words,
            board: .init(kind: setup.board.file, ok: board != nil, problem: boardProblem)))
    }

    // MARK: Stopping

    func shutdown(signal: Int32) {
        guard !stopping else { return }
        stopping = true
        tell("STOPPING=1")
        log("stopping on \(Signals.name(of: signal)): answering waiting polls, darkening the lamp, releasing the lines")
        let now = Self.moment()
        for poll in polls { answer(poll, at: now) }
        polls.removeAll()
        preview.run(false, why: "the body is stopping")
        if let board {
            for role in board.outputs { try? board.drive(role, lit: false) }
            board.release()
        }
        board = nil
        server?.stop(grace: 1.0)
        stopAnnouncing()
        loop.stop()
    }
}
