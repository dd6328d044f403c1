import BodyCore
import BodyHardware
import BodySystem

/// The agent's clock: the system's, or a test's that moves only when told.
struct AgentClock: Sendable {
    var now: @Sendable () -> Moment

    static let system = AgentClock {
        let mono = SystemClock.monotonic()
        return Moment(mono: mono, wall: SystemClock.wall(), synchronised: WallClock.synchronised(at: mono))
    }
}

/// What the agent did to the world, in the order it did it: the agent tests
/// read these (`Agent.witness`); the body itself keeps none.
enum AgentDeed: Equatable, Sendable {
    /// A turn began, for this event.
    case turn(String)
    /// The rules were let see the time (`Body.tick` ran; a quiet turn's is skipped).
    case ticked
    case drove(OutputRole, Bool)
    /// libmicrohttpd ran (accepts, reads, handler calls, writes): once, or again
    /// at once while it had more to do (Turn.swift, step 4).
    case serverRan
    /// A response was handed to the server with this status.
    case answered(Int)
    case logged(String)
    /// The rules' next wake-up was set (nil: none due).
    case armed(Double?)
    /// systemd was told this (`READY=1`, `WATCHDOG=1`, ...), or there is no
    /// systemd to tell; a send that failed is no deed, only its log line.
    case told(String)
    /// The page's watchers were sent an event (`/events`).
    case published
}

/// How a service beside the agent hands it an event of its own (a timer, a
/// descriptor it watches): `work` runs as the event's decision in one turn
/// named `event`, at the turn's moment, and the turn does its other steps.
typealias AgentTurn = (_ event: StaticString, _ work: (Moment) -> Void) -> Void

/// One turn per event, in one order. Every event the loop hears
/// comes here once:
///
/// 1. the rules decide: the event's own entry point, then `Body.tick` once at
///    the turn's moment (a line reading the rules ask for feeds them at once);
///    a tick the kept outlook shows would change nothing is skipped (below);
/// 2. the lines are driven, each only if it changed;
/// 3. the rest is carried out (the camera, the hello, parked polls answered,
///    a `/sim/press` whose presses have landed answered);
/// 4. answers go out: libmicrohttpd runs, if an answer waits for it (and
///    again at once while it says it has more to do now, at most four runs);
/// 5. the log is written: the turn's lines, in the order they were said;
/// 6. timers are re-armed once: the rules' next wake-up, the server's timeout;
/// 7. the page's watchers hear of a change (`/events`, at most ten times a
///    second); the page's own timers (the spacing's end, the keep-alive) are
///    turns with nothing of their own to decide, sent in this step;
/// 8. what step 7 offered goes out: the server runs once more, then the
///    turn logs and re-arms what that run did. One loop pass per event.
///
/// The kill switch's path is short on purpose: a press's answer to Oriel's
/// parked poll leaves in step 4 of the turn that confirmed it, before any
/// line of the log is written. A request the server hands over mid-run (step
/// 4 of a "server is ready" turn) is decided and carried out through steps 1
/// to 3 at the turn's moment and answered in that same run, after the turn's
/// tick; the turn then logs and re-arms once for all the run's requests (the
/// re-arm wakes the rules at once if a request left them something due).
extension Agent {
    /// Carries out one event. `runsServer`: the event is the server's (its
    /// descriptor is readable, or its timeout came), so step 4 runs it even
    /// with no answer waiting.
    func turn(_ event: StaticString, runsServer: Bool = false, _ decide: (Moment) -> [BodyAction]) {
        guard !stopping else { return }
        if let now = turnNow {
            // An event met inside a turn (a camera that fails as a request
            // opens it): decided and carried out at this turn's moment; this
            // turn's steps 4 to 6 cover it.
            carryOut(decide(now), at: now)
            return
        }
        let now = clock.now()
        turnNow = now
        witness?(.turn("\(event)"))
        var actions = spareTurnActions
        spareTurnActions = []
        // Most events decide nothing (a timer's): no call to join an empty list.
        let decided = decide(now)
        if !decided.isEmpty { actions += decided }
        if !tickIsQuiet(at: now) {
            changeBody { $0.tick(at: now, ids: { Ids.fresh() }, into: &actions) }
            ticked = (bodyChanges, now.mono)
            witness?(.ticked)
        }
        carryOut(actions, at: now)
        // A `/sim/press` whose last press has landed is answered now, after the rules saw it.
        if !simWaits.isEmpty { answerSimPresses(at: now) }
        // Most turns have none: no call to empty an empty list.
        if !actions.isEmpty { actions.removeAll(keepingCapacity: true) }
        spareTurnActions = actions
        let ran = runsServer || server?.wantsRun == true
        let serverDue = ran ? runServer() : nil
        writeLog()
        rearm(at: now, serverRan: ran, serverDue: serverDue)
        let handled = requestsHandled
        if publishPage(at: now), server?.wantsRun == true {
            // Step 8: what step 7 offered leaves in one more run, in this turn
            // (`turnNow` still set: the offer's wake-up writes no eventfd).
            let due = runServer()
            let wrote = writeLog()
            rearm(at: now, serverRan: true, serverDue: due)
            // A request or a log line in that run may have changed the facts:
            // too soon for another event, they go out at the spacing's end.
            if requestsHandled != handled || wrote { publishPage(at: now) }
        }
        writeLog()
        turnNow = nil
    }

    /// Steps 2 and 3: the rules' actions carried out, the lines first.
    func carryOut(_ actions: [BodyAction], at now: Moment) {
        // A reading the rules asked for (a bounce window's end) goes back into
        // them before anything is shown. (Into the kept list: this runs every turn, so it must not allocate.)
        var read = spareReadActions
        spareReadActions = []
        for case .readLevel(let role) in actions { readLevel(role, into: &read) }
        driveOutputs(at: now)
        for action in actions {
            if case .readLevel = action { metrics.count(action) } else { carryOut(action, at: now) }
        }
        for action in read { carryOut(action, at: now) }
        if !read.isEmpty { read.removeAll(keepingCapacity: true) }
        spareReadActions = read
    }

    private func carryOut(_ action: BodyAction, at now: Moment) {
        metrics.count(action)
        switch action {
        case .wakePolls:
            wakePolls(at: now)
        case .sayHello:
            helloDeeds { $0.begin(url: advertisedURL) }
        case .log(let words, let level):
            say(words, level == .warning ? .warning : .info)
        case .preview(let run, let why):
            preview.run(run, why: why, at: now)
            // A camera that cannot be opened counts as gone: the gate then
            // waits for a fresh opening rather than retrying the device.
            if run && !preview.running { carryOut(changeBody { $0.cameraGone(preview.stoppedWhy) }, at: now) }
        case .readLevel(let role):
            // Read above; one a reading itself asked for is read now.
            var more: [BodyAction] = []
            readLevel(role, into: &more)
            for action in more { carryOut(action, at: now) }
        case .pressed, .unanswered, .noise:
            break  // counted above
        }
    }

    func driveOutputs(at now: Moment) {
        guard lines.board != nil else { return }
        lookAhead(at: now)
        do throws(BoardError) {
            try lines.drive(outlook.indicators, at: now.mono) { witness?(.drove($0, $1)) }
        } catch {
            boardLost(error)
        }
    }

    /// Step 4: libmicrohttpd runs. Never from inside its own run (it guards that).
    /// Returns its timeout after the last run (seconds; nil: none).
    ///
    /// A run that sends a resumed connection's answer leaves MHD more to do at
    /// once (its timeout is 0: the socket to read again, then to watch again):
    /// those runs follow here rather than a turn each through the timerfd, which
    /// would cost four system calls and a tick apiece. Four runs at most, so
    /// a server that always has more to do still lets the loop wait.
    @discardableResult
    func runServer() -> Double? {
        witness?(.serverRan)
        var runs = 0
        var due: Double?
        repeat {
            server?.run()
            runs += 1
            due = server?.timeout()
        } while due == 0 && runs < 4
        if polls.dropClosed() { armPollTimer() }
        return due
    }

    /// A line for the log: within a turn it waits for step 5, so it never
    /// goes before the lamp or the answer it tells of.
    func say(_ words: String, _ level: Log.Level = .info) {
        if level == .debug && !log.debug { return }
        guard turnNow != nil else {
            witness?(.logged(words))
            log(words, level, at: clock.now().wall)
            return
        }
        // Grown on a copy taken out and put back: grown in place, every read
        // of the list would be a runtime exclusivity check.
        var lines = turnLog
        turnLog = []
        lines.append((words, level))
        turnLog = lines
    }

    /// Step 5. True when it wrote a line.
    @discardableResult
    func writeLog() -> Bool {
        guard !turnLog.isEmpty else { return false }
        var lines = turnLog
        turnLog = []
        // Stamped with the turn's moment: the agent's clock, as everything the turn did.
        let wall = turnNow?.wall ?? clock.now().wall
        for line in lines {
            witness?(.logged(line.words))
            log(line.words, line.level, at: wall)
        }
        lines.removeAll(keepingCapacity: true)
        turnLog = lines
        return true
    }

    /// Step 6: the rules' next wake-up, and the server's if it ran. Both
    /// timers are the agent's own, armed in place (no closure made a turn).
    func rearm(at now: Moment, serverRan: Bool, serverDue: Double? = nil) {
        lookAhead(at: now)
        let due = outlook.nextDue(at: now)
        if due != tickDue {
            witness?(.armed(due))
            tickDue = due
            loop.arm(tickTimer, at: due)
        }
        guard serverRan else { return }
        loop.arm(serverTimer, at: serverDue.map { now.mono + $0 })
    }
}

/// The body's outlook kept between turns: a turn that changed
/// nothing in the body (a blink, the server's timeout) neither ticks it nor
/// reads it; the indicators are made once a turn, not once to drive the lines
/// and again to re-arm.
extension Agent {
    /// True when the body was not changed since the kept outlook was made just
    /// after a tick, and its quiet lasts: a tick now would change nothing.
    func tickIsQuiet(at now: Moment) -> Bool {
        outlookTicked && outlookChanges == bodyChanges && outlook.isQuiet(at: now)
    }

    /// The outlook made afresh and kept, unless the kept one holds at `now`
    /// (the body unchanged since, its indicators still the same).
    func lookAhead(at now: Moment) {
        // Made at this very moment (driveOutputs, then rearm) holds too, even
        // where its quiet is already over (a long opening on a synchronised clock).
        if outlookChanges == bodyChanges, outlook.showsIndicators(at: now) || outlook.madeAt == now.mono { return }
        outlook = lendBody { $0.outlook(at: now) }
        outlookChanges = bodyChanges
        outlookTicked = ticked.map { $0 == (bodyChanges, now.mono) } ?? false
    }
}
