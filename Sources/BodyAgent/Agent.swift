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
/// thread and is carried out as one turn (Turn.swift): `Body` decides and
/// returns what to do, and the turn does it in one declared order.
///
/// Where state lives, and why there:
/// - every rule's state (what Oriel said, each contact, arming and request,
///   the outbox, the eyes gate, Oriel's silence, the poll's answer-or-park):
///   `body`, a plain value, and nowhere else;
/// - the hello's rounds (`hello`, a value in BodyCore): backoff and what was said;
/// - parts that own their state, each with tests of its own: `lines`
///   (`BoardLines`: the board, the levels last driven, why the lines are not
///   had, the retry), `polls` (`ParkedPolls`: Oriel's parked `/ears`
///   replies and the earliest wait's end), `page` (`PageService`: sessions
///   and `/events` clients), `preview` (`PreviewService`: the camera and its
///   clients), `location` (`WhereService`: gpsd and its waiting `/where`
///   replies), the HTTP server's exchanges (`server`), Avahi's announcer
///   on its own thread;
/// - here, what ties them together: the loop's timers, the turn in progress
///   and its log lines, the kept outlook (docs/event-loop.md, "What is kept
///   between turns"), and what `/metrics` counts (`metrics`).
public final class Agent: @unchecked Sendable {
    let loop: EventLoop
    let clock: AgentClock
    let setup: AgentSetup
    let log: Log
    /// systemd's notify socket (a test sets one that fails).
    var notify = Notify()
    /// Faults said once until they change: the notify socket ("notify"), the board ("board").
    var faults = RepeatFilter()
    let auth: BearerAuth
    let boot = Ids.fresh()
    /// Changed only through `changeBody`, which counts the changes; read in place through `lendBody`.
    private(set) var body: Body
    /// Every change of `body` counted (`changeBody`), and the count and moment
    /// of its last tick: the kept outlook is good while the count is the one
    /// it was made at (Turn.swift).
    private(set) var bodyChanges: UInt64 = 0
    var ticked: (changes: UInt64, at: Double)?
    /// `Body.outlook` as last made (`lookAhead`), at change count `outlookChanges`;
    /// `outlookTicked` when made at a tick's moment with no change since (a tick
    /// in its quiet may then be skipped). Plain fields, read in place: a copy
    /// of the outlook would be a memcpy at every read.
    var outlook = Outlook.unmade
    var outlookChanges: UInt64 = 0
    var outlookTicked = false
    /// The counters and histograms `/metrics` shows; the gauges are read when scraped.
    var metrics = Metrics()
    /// The bytes of the answer written last (the status document, `/metrics`), kept
    /// for the next: the server copies an answer out and lets it go, so the
    /// buffer is the agent's alone again and is refilled without allocating.
    var answer: [UInt8] = []

    /// What the agent did to the world, in order, for the agent tests (nil in the body).
    var witness: ((AgentDeed) -> Void)?
    /// The turn in progress: its moment, and the log lines it writes last.
    var turnNow: Moment?
    var turnLog: [(words: String, level: Log.Level)] = []
    /// Requests handed to the agent so far: a turn's last run tells by it whether one came in.
    var requestsHandled = 0
    /// What the start's rehearsal counted and wrote (Rehearse.swift).
    var rehearsed = (presses: 0, bytes: 0)
    /// Lists of actions kept for their room, so a turn allocates none: a turn's, and those of
    /// the readings it asks for (Turn.swift). Taken out while in use and given
    /// back emptied, so a turn or a reading met inside another has a list of its own.
    var spareTurnActions: [BodyAction] = []
    var spareReadActions: [BodyAction] = []

    // The board and what it shows.
    /// A test's board in place of the configured one.
    var boardMaker: (() throws(BoardError) -> any Board)?
    /// The lines, what they were last driven to, and why they are not had (BoardLines.swift).
    /// A `let`, not made lazily: read at every turn, a lazy one is a check and an access more each time.
    let lines: BoardLines
    /// When the last simulated press sequence lets go (edge time).
    var simPressesEnd: Double = 0
    /// `POST /sim/press` answers waiting for their last press to land (AgentHTTP.swift).
    var simWaits: [SimWait] = []

    // HTTP.
    /// libmicrohttpd, or a test's fake (AgentServer.swift).
    var server: (any AgentServer)?
    /// A test's server in place of libmicrohttpd.
    var serverMaker: ((ServerWiring) throws(AgentError) -> any AgentServer)?
    /// The server's timeout, re-armed after every run (Turn.swift, step 6).
    lazy var serverTimer = loop.makeTimer { [unowned self] in
        self.turn("the server's timeout", runsServer: true) { _ in [] }
    }
    /// Oriel's parked `/ears` polls (ParkedPolls.swift), and the one timer
    /// armed for the earliest wait's end (Ears.swift).
    var polls = ParkedPolls()
    lazy var pollTimer = loop.makeTimer { [unowned self] in self.pollsWaitRanOut() }
    /// The page's sessions and `/events` clients (AgentPage.swift).
    lazy var page = makePage()

    // Oriel, and the network (the DNS-SD announcement, on Avahi's thread).
    var hello: HelloRounds?
    var helloRetry: EventLoop.TimerID?
    /// `[oriel] pin`, when set, is the only certificate the hello trusts.
    lazy var helloSender = HelloSender(client: HubClient(timeout: 10, pin: setup.config.orielPin?.curl))
    var announcer: AvahiAnnouncer?
    /// Avahi's host name (`studio.local`) while the service is established.
    var announcedHost: String?

    // Timers and the stop.
    /// The rules' next wake-up (`Body.nextDue`), re-armed in place every turn.
    lazy var tickTimer = loop.makeTimer { [unowned self] in
        self.tickDue = nil
        self.turn("a rule's time came") { _ in [] }
    }
    var tickDue: Double?
    var signals: Signals?
    var stopping = false
    /// How often systemd's watchdog is pinged (nil: it asks for none); a test sets its own before `start`.
    var watchdogEvery = Notify.watchdogInterval()

    // Place and eyes.
    var location: WhereService!
    var preview: PreviewService!

    public convenience init(_ setup: AgentSetup, log: Log = Log()) throws(AgentError) {
        try self.init(setup, log: log, clock: .system)
    }

    init(_ setup: AgentSetup, log: Log, clock: AgentClock) throws(AgentError) {
        do { loop = try EventLoop() } catch { throw AgentError(error.description) }
        self.clock = clock
        self.setup = setup
        lines = BoardLines(loop: loop)
        self.log = log
        auth = BearerAuth(token: setup.token)
        body = Body(settings: BodySettings(
            name: setup.config.name, onAirAction: setup.board.onAirAction, unreadLamp: setup.board.unreadLamp, lampDrives: setup.board.lampDrives,
            silence: setup.config.silence, camera: setup.config.cameraDevice.map { "\(setup.config.name) camera (\($0))" }),
            at: clock.now())
        // Their lines go through `say`: one said inside a turn waits for the
        // turn's log step, after the lamp and the answer, like every other line.
        location = WhereService(loop: loop, allowed: setup.config.locationAllowed, host: setup.config.gpsdHost,
                                port: setup.config.gpsdPort,
                                turn: { [unowned self] event, work in self.turn(event) { work($0); return [] } },
                                log: { [unowned self] in self.say($0) })
        preview = PreviewService(loop: loop, turn: { [unowned self] event, work in self.turn(event) { work($0); return [] } },
                                 device: setup.config.cameraDevice, wake: setup.config.cameraWake, width: setup.config.cameraWidth,
                                 height: setup.config.cameraHeight, fps: setup.config.cameraFPS, log: { [unowned self] in self.say($0) })
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
                try loop.watch(fd: stream, events: [.writable, .edgeTriggered]) { [log] in log.outlet.flush() }
            }
        } catch { throw AgentError(error.description) }
        do { try openBoard() } catch { throw AgentError(error.description) }
        rehearsePresses(at: clock.now())  // before the first press, not in it; before anyone can call (Rehearse.swift)
        preview.onGone = { [unowned self] why in
            self.turn("the camera went away") { [unowned self] _ in self.changeBody { $0.cameraGone(why) } }
        }
        do {
            let server = try makeServer(ServerWiring(
                tls: setup.tls.map { HTTPTLS(key: $0.key, certificate: $0.certificate) },
                token: auth,
                trusts: { [unowned self] in self.signedIn($0, at: self.turnNow?.mono ?? self.clock.now().mono) },
                log: { [unowned self] in self.say($0) },
                // What failed stays in the journal; what went well is debug.
                requests: { [unowned self] line, status in self.say(line, status >= 400 ? .notice : .debug) },
                answerLines: log.debug,
                handler: { [unowned self] request, reply in self.handle(request, reply) }))
            server.answered = { [unowned self] status in
                self.metrics.answered(status: status)
                self.witness?(.answered(status))
            }
            self.server = server
            // A resume within a turn needs no wake-up: step 4 runs the server
            // while one is due (Turn.swift), and `turnNow` is set until then.
            server.willRun = { [unowned self] in self.turnNow != nil }
            try loop.watch(fd: server.pollDescriptor) { [unowned self] in self.turn("the server is ready", runsServer: true) { _ in [] } }
            // Most hang-ups are of connections MHD is closing itself: no turn for those.
            try loop.watch(fd: server.hangupDescriptor) { [unowned self] in
                guard self.server?.hangUpsReported() == true else { return }
                self.turn("a client hung up", runsServer: true) { _ in [] }
            }
        } catch {
            lines.letGo(because: "the body did not start")
            throw AgentError("\(error)")
        }
        say("serving on \(setup.config.listenHost):\(port) as \"\(setup.config.name)\", board \(setup.board.file), boot \(boot)")
        if let words = setup.tlsWords { say(words) }
        say(WallClock.words())
        if let url = setup.config.orielURL { hello = HelloRounds(oriel: HelloSender.url(oriel: url)) }
        startAnnouncing()
        turn("the body started") { [unowned self, body] now in
            if let every = self.watchdogEvery { self.watchdog(every: every, at: now) }
            return body.started()
        }
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
        if let failed = notify.send(state) {
            if let words = faults.say(failed, about: "notify") { say(words, .error) }
        } else {
            witness?(.told(state))
            faults.clear("notify")
        }
    }

    /// Pings systemd's watchdog in the turn at `now`, and the next `interval`
    /// after that moment in a turn of its own: a turn that never ends misses
    /// the ping, and systemd restarts the body. A ping that fails is said in
    /// the turn's log step.
    func watchdog(every interval: Double, at now: Moment) {
        tell("WATCHDOG=1")
        loop.schedule(at: now.mono + interval) { [unowned self] in
            self.turn("the watchdog's time came") { self.watchdog(every: interval, at: $0); return [] }
        }
    }

    // MARK: The status document

    /// The status document in a buffer of its own, for the page (which keeps it,
    /// so not the answers' buffer).
    func status(at now: Moment) -> [UInt8] {
        let extras = statusExtras(at: now)
        var out = JSONOut()
        lendBody { $0.writeStatus(at: now, extras, to: &out) }
        return out.bytes
    }

    /// The status document written into `answer`, the buffer every JSON
    /// answer at every request is written into (`GET /status`, the push's answer).
    func statusAnswer(at now: Moment) -> [UInt8] {
        let extras = statusExtras(at: now)
        JSONOut.write(into: &answer) { out in lendBody { $0.writeStatus(at: now, extras, to: &out) } }
        return answer
    }

    /// `body` lent in place for a look at it: a method called on it straight
    /// copies the whole value first, a retain and a release of each of its
    /// fields, and that would be three times a turn and request. Only
    /// for `Body`'s own non-mutating methods: they never reach back into the
    /// agent, and a change here would not be counted (`changeBody`). (Lent
    /// `borrowing` instead, it was copied again: 15k instructions a press round.)
    func lendBody<R>(_ look: (inout Body) -> R) -> R {
        #if DEBUG
        // The tests' builds check the promise: a look changes nothing.
        let before = body
        defer { assert(body == before, "a look through lendBody changed the body: use changeBody") }
        #endif
        return look(&body)
    }

    /// `body` changed in place by one of its entry points, and the change
    /// counted: the one way to change it (the kept outlook trusts the count).
    func changeBody<R, E: Error>(_ change: (inout Body) throws(E) -> R) throws(E) -> R {
        bodyChanges &+= 1
        return try change(&body)
    }

    /// What only the agent knows; the lines and buttons in role tables, not dictionaries.
    /// The lines driven and the body's contacts are tables already, read by role without hashing.
    func statusExtras(at now: Moment) -> StatusExtras {
        let lit = lines.driven, had = lines.board != nil
        var outputs = RoleTable<OutputRole, Bool?>()
        for role in setup.board.outputs.keys { outputs[role] = had ? (lit[role] ?? false) : nil }
        var held = RoleTable<ButtonRole, (held: Bool, stuck: Bool)>()
        for role in setup.board.buttons.keys { held[role] = body.contacts[role].map { ($0.isDown, $0.isHeld) } ?? (false, false) }
        return StatusExtras(
            lines: outputs, held: held,
            location: .init(allowed: location.allowed, watching: location.watching,
                            clockSynchronised: now.synchronised, clockBehindReceiver: location.clockBehind),
            previewRunning: preview.running, previewWords: preview.words,
            board: .init(kind: setup.board.file, ok: had, problem: lines.problem))
    }

    // MARK: Stopping

    /// A signal that ends the body: waiting polls are answered, the lamp is
    /// darkened and the lines released, the server closed, the service withdrawn.
    func shutdown(signal: Int32) {
        guard !stopping else { return }
        tell("STOPPING=1")
        say("stopping on \(Signals.name(of: signal)): answering waiting polls, darkening the lamp, releasing the lines")
        let now = clock.now()
        let waiting = polls.takeAll()
        armPollTimer()
        for poll in waiting { answer(poll, at: now) }
        answerSimPresses(at: now, all: true)
        stopping = true
        if server?.wantsRun == true { runServer() }
        preview.run(false, why: "the body is stopping", at: now)
        lines.darken { [unowned self] role, failed in
            if let failed {
                // Said, not hidden: a lamp left lit as the body goes is one a person must look at.
                self.say("\(failed.words); the \(role.rawValue) line could not be darkened before stopping", .error)
            } else {
                self.witness?(.drove(role, false))
            }
        }
        server?.stop(grace: 1.0)
        stopAnnouncing()
        loop.stop()
    }
}
