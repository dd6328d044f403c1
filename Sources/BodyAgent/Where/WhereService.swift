import BodyCore
import BodyHardware
import BodySystem

/// What the where service uses of its session with gpsd: the socket the loop
/// watches, the reports read when it is readable, the close. `GpsdSession`
/// (libgps) in the body; a test's gpsd in the agent's tests.
protocol WhereSession: AnyObject {
    /// "HOST:PORT", for words.
    var address: String { get }
    /// What the loop watches; nil once closed.
    var descriptor: FileDescriptor? { get }
    /// Every report come so far; throws when the watch is lost, after handing back what came before.
    func read() throws(GpsdError) -> [GpsReport]
    func close()
}

extension GpsdSession: WhereSession {}

/// `GET /where` (DESIGN rule 8, section 6): watches gpsd only while at least
/// one request waits, shares that one watch among every waiting request,
/// answers each with its own result, and closes the watch when the last is
/// answered. Runs on the event loop's thread, like everything that holds state.
///
/// Every event of its own (gpsd's reports, gpsd gone, a request's time come)
/// is one of the agent's turns, judged at that turn's moment: no clock is read here.
public final class WhereService {
    public typealias Answer = (_ status: Int, _ json: [UInt8]) -> Void

    /// A person's consent in the configuration; without it every request gets 403.
    public let allowed: Bool
    /// True while a gpsd session (and so a watch) is open.
    public var watching: Bool { session != nil }

    private let loop: EventLoop
    private let host: String
    private let port: UInt16
    /// Carries out `work` as one turn of the agent's, named by `event`, at the turn's moment.
    private let turn: AgentTurn
    private let log: (String) -> Void

    private var session: (any WhereSession)?
    private var socketWatch: EventLoop.WatchID?
    private var timer: EventLoop.TimerID?
    private var timerDue: Double?
    private var watch = WhereWatch()
    private var waiting: [WhereWatch.Ticket: Answer] = [:]
    /// gpsd's problem, said once until it changes or ends; a line that is not
    /// gpsd's JSON (whose words change with each line) is one problem by its key.
    private var problems = RepeatFilter()
    /// How far this computer's unsynchronised clock was behind the receiver's
    /// at the last fix that counted for it (`/status`), and what the log said of it.
    public private(set) var clockBehind: Double?
    private var clockBehindSaid: Double?

    /// A test's gpsd in place of libgps's session: called as `GpsdSession.open`
    /// would be, with the configured host and port.
    var sessionMaker: ((_ host: String, _ port: UInt16) throws(GpsdError) -> any WhereSession)?

    init(loop: EventLoop, allowed: Bool, host: String, port: UInt16,
                turn: @escaping AgentTurn, log: @escaping (String) -> Void) {
        self.loop = loop
        self.allowed = allowed
        self.host = host
        self.port = port
        self.turn = turn
        self.log = log
    }

    /// One `GET /where`, asked at `now` (the serving turn's moment). `answer`
    /// is called exactly once, on the loop thread: at once for 403 and 503,
    /// else when a fix, the deadline or gpsd's end comes, unless the request
    /// is withdrawn first. Returns the ticket of a request left waiting (nil
    /// when answered at once).
    @discardableResult
    public func ask(at now: Moment, answer: @escaping Answer) -> WhereWatch.Ticket? {
        guard allowed else { reply(.notAllowed, answer); return nil }
        if session == nil {
            do throws(GpsdError) {
                try start()
            } catch {
                note(error.description)
                reply(.gpsdNotRunning(host: host, port: port), answer)
                return nil
            }
        }
        let ticket = watch.ask(at: now.mono)
        waiting[ticket] = answer
        rearm()
        return ticket
    }

    /// The client of a waiting request went away (DESIGN 6 step 5): it is
    /// never answered, and the watch closes at once if nobody else waits.
    /// A ticket already answered is no news.
    public func withdraw(_ ticket: WhereWatch.Ticket) {
        guard waiting.removeValue(forKey: ticket) != nil else { return }
        watch.withdraw(ticket)
        settle([])
    }

    private func start() throws(GpsdError) {
        let opened: any WhereSession = if let sessionMaker { try sessionMaker(host, port) }
                                       else { try GpsdSession.open(host: host, port: port) }
        do {
            socketWatch = try loop.watch(fd: opened.descriptor) { [weak self] in
                guard let self else { return }
                self.turn("gpsd's reports came") { self.readable(at: $0) }
            }
        } catch {
            opened.close()
            throw GpsdError(.unreachable, "where: cannot watch the socket to gpsd at \(opened.address): \(error)")
        }
        session = opened
        watch = WhereWatch()
    }

    /// gpsd's socket is readable: its reports are judged as arrived at `now`.
    private func readable(at now: Moment) {
        guard let session else { return }
        do throws(GpsdError) {
            var outcomes: [WhereWatch.Outcome] = []
            for report in try session.read() {
                garbled(report, from: session.address)
                outcomes += watch.take(report, arrivedAt: now.wall, synchronised: now.synchronised, at: now.mono)
            }
            behind(watch.receiverAhead, synchronised: now.synchronised)
            settle(outcomes)
        } catch {
            note(error.description)
            settle(watch.lost())
            stop()
        }
    }

    /// The timer came: a hold's end or a deadline, judged at the turn's moment.
    private func timeCame() {
        timer = nil
        timerDue = nil
        turn("a /where's time came") { expire(at: $0) }
    }

    private func expire(at now: Moment) {
        let outcomes = watch.expire(at: now.mono)
        if outcomes.contains(where: { $0.answer == .noFreshFix(.gpsdSilent) }) {
            // A stall (or only garbage) is a problem like a refused connection: said once per change.
            note("gpsd at \(WhereAnswer.address(host: host, port: port)) stopped answering: no JSON from it within \(Int(FixRule.deadline)) s")
        }
        settle(outcomes)
    }

    /// A line that is not gpsd's JSON is said once, until gpsd speaks JSON again;
    /// a line that is ends whatever problem was said.
    private func garbled(_ report: GpsReport, from address: String) {
        if case .garbage(let start) = report {
            note("gpsd at \(address) sent a line that is not gpsd's JSON: \"\(start)\"", garbage: true)
        } else {
            // gpsd's own JSON: whatever the problem was (refused, stalled, garbage), it answers again.
            note(nil)
        }
    }

    /// Hands each answer to its request; closes the watch once nobody waits.
    private func settle(_ outcomes: [WhereWatch.Outcome]) {
        let replies = outcomes.compactMap { o in waiting.removeValue(forKey: o.ticket).map { (o.answer, $0) } }
        if watch.isEmpty { stop() } else { rearm() }
        for (answer, to) in replies { reply(answer, to) }
    }

    private func stop() {
        if let socketWatch { loop.unwatch(socketWatch) }
        socketWatch = nil
        session?.close()
        session = nil
        loop.cancel(timer)
        timer = nil
        timerDue = nil
    }

    private func rearm() {
        let due = watch.nextWake
        if due == timerDue { return }
        loop.cancel(timer)
        timerDue = due
        timer = due.map { loop.schedule(at: $0) { [weak self] in self?.timeCame() } }
    }

    private func reply(_ answer: WhereAnswer, _ to: Answer) {
        to(answer.status, answer.json)
    }

    /// The clock's lag, kept while the clock is not synchronised. A lag past a
    /// fix's freshness is said once, and again only when it moved by more than
    /// that (someone set the clock).
    private func behind(_ seconds: Double?, synchronised: Bool) {
        if synchronised {
            clockBehind = nil
            clockBehindSaid = nil
            return
        }
        guard let seconds else { return }
        clockBehind = seconds
        guard seconds > FixRule.freshFor else { return }
        if let said = clockBehindSaid, abs(said - seconds) <= FixRule.freshFor { return }
        clockBehindSaid = seconds
        log("where: this computer's clock is not synchronised and is \(Int(seconds.rounded())) s behind the receiver's; "
            + "fixes ahead of it count as fresh until network time sets it")
    }

    /// Logs a problem once per change, and the recovery once.
    private func note(_ words: String?, garbage: Bool = false) {
        guard let words else {
            if problems.clear("gpsd") { log("where: gpsd at \(WhereAnswer.address(host: host, port: port)) answers again") }
            return
        }
        if let line = problems.say(words, key: garbage ? "garbage" : nil, about: "gpsd") { log("where: \(line)") }
    }
}
