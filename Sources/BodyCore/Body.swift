/// How this body is set up, as far as the rules care.
public struct BodySettings: Equatable, Sendable {
    /// The body's name (`[body] name`), also the `by` of its requests.
    public var name: String
    public var onAirAction: OnAirSwitch.Action
    public var unreadLamp: UnreadLamp
    /// `oriel.silence`.
    public var silence: Double
    /// The camera this body's camera button names.
    public var camera: String

    public init(name: String, onAirAction: OnAirSwitch.Action = .toggle, unreadLamp: UnreadLamp = .blink,
                silence: Double = 60, camera: String? = nil) {
        self.name = name
        self.onAirAction = onAirAction
        self.unreadLamp = unreadLamp
        self.silence = silence
        self.camera = camera ?? "\(name) camera"
    }
}

/// Why a push was refused (400): nothing was changed.
public struct PushError: Error, Equatable, CustomStringConvertible {
    public let description: String
}

/// Something the clock brought about, for the log and the agent.
public enum TickEvent: Equatable, Sendable {
    /// Oriel went silent: the state is unread and the body says hello again.
    case silenceBegan(String)
    /// A request's wait ran out: its words, and whether its item was still in the outbox.
    case ranOut(words: String, withdrawn: Bool)
}

/// The whole body's state as one value: what Oriel last said, each control,
/// the eyes gate, the outbox and Oriel's silence. Every method takes the
/// caller's clock; the agent owns the one instance and does all the I/O.
public struct Body: Equatable, Sendable {
    public let settings: BodySettings
    public private(set) var state: OnAirState = .atStart
    /// When the current unread state began (its pattern starts then).
    public private(set) var unreadSince: Double
    public private(set) var eyes: HouseEyes = .unsaid
    public private(set) var group = TwoPressGroup<ButtonRole>()
    public private(set) var onair: OnAirSwitch
    public private(set) var wrapup = WrapUpButton()
    public private(set) var kill = EyesKill()
    public private(set) var gate = EyesGate()
    public private(set) var outbox: Outbox
    public private(set) var contact: OrielContact
    /// Camera items in the outbox by id, with when they were asked: the camera
    /// button has no asking state, but its press is a question asked now too (rule 6).
    public private(set) var cameraAsks: [String: Double] = [:]
    /// Events a press or a push brought about, kept for the next `tick` to report.
    private var unreported: [TickEvent] = []

    public init(settings: BodySettings, at now: Moment) {
        self.settings = settings
        onair = OnAirSwitch(action: settings.onAirAction)
        unreadSince = now.mono
        outbox = Outbox(startMillis: UInt64(max(0, now.wall) * 1000))
        contact = OrielContact(silence: settings.silence, startedAt: now.mono)
    }

    // MARK: Oriel's push

    /// `POST /face`: either object may be absent, and then that part keeps what it had.
    public mutating func push(_ body: JSON, at now: Moment) throws(PushError) {
        guard body.object != nil else {
            throw PushError(description: "the push is not a JSON object: send {\"onair\":{…},\"eyes\":{…}}")
        }
        unreported += advance(at: now)
        contact.pushed(at: now)
        let answers = [Answered.from(body["onair"]?["answered"]), Answered.from(body["eyes"]?["answered"])]
            .compactMap { $0 }
        if let new = OnAirState.from(body["onair"]) { adopt(new, at: now) }
        for a in answers {
            onair.adopt(state, answered: a, at: now)
            wrapup.adopt(state, answered: a, at: now)
            kill.asking.answered(a, at: now)
        }
        if let newEyes = HouseEyes.from(body["eyes"]) {
            if newEyes.red != eyes.red || newEyes.killing != eyes.killing { group.disarm(.kill) }
            eyes = newEyes
            kill.adopt(eyes, answered: nil, at: now)
            gate.adopt(eyes, at: now)
        }
    }

    /// A new On Air state: a state that moves under an armed control disarms
    /// it (the second press would mean the opposite of what the first read).
    mutating func adopt(_ new: OnAirState, at now: Moment) {
        if new.moved(from: state) {
            group.disarm(.onair)
            group.disarm(.wrapup)
        }
        if new.isUnread && !state.isUnread { unreadSince = now.mono }
        state = new
        onair.adopt(new, answered: nil, at: now)
        wrapup.adopt(new, answered: nil, at: now)
    }

    // MARK: Presses

    /// A confirmed contact press (after debounce). `id` is a fresh id from the caller.
    public mutating func press(_ button: ButtonRole, at now: Moment, id: String) -> PressOutcome {
        unreported += advance(at: now)
        let by = settings.name
        let outcome: PressOutcome
        switch button {
        case .onair: outcome = onair.tap(state: state, group: &group, at: now, id: id, by: by)
        case .wrapup: outcome = wrapup.tap(state: state, group: &group, at: now, id: id, by: by)
        case .kill: outcome = kill.tap(group: &group, at: now, id: id, by: by)
        case .camera:
            // One press, no arming: it only marks the body as having asked (rule 7),
            // and only an ask to open may start the camera; an ask to close never does.
            outcome = .asked(Request(kind: "eyes", id: id, fields: [
                "open": .bool(!eyes.open), "camera": .string(settings.camera), "by": .string(by)]))
        }
        guard case .asked(let request) = outcome else { return outcome }
        do {
            _ = try outbox.enqueue(request)
            if button == .camera {
                cameraAsks[id] = now.mono
                // Only a queued ask counts, and only an ask to open.
                if !eyes.open { gate.asked(at: now) }
            }
            return outcome
        } catch {
            let words = error.description
            switch button {
            case .onair: onair.fail(words, at: now)
            case .wrapup: wrapup.fail(words, at: now)
            case .kill: kill.fail(words, at: now)
            case .camera: break
            }
            return .refused(words)
        }
    }

    // MARK: Oriel's poll

    /// `GET /ears?after=N`: acknowledges up to N, returns what is after it.
    public mutating func poll(after: UInt64, at now: Moment) -> [OutboxItem] {
        contact.polled(at: now)
        return outbox.poll(after: after)
    }

    /// A poll that waits: it counts as hearing from Oriel without taking anything yet.
    public mutating func heard(at now: Moment) {
        contact.polled(at: now)
    }

    // MARK: The clock

    /// Lets time pass: drops an arming that ran out, ends requests whose wait
    /// ran out (withdrawing their items, rule 6), notices Oriel's silence and
    /// `until` passing. Returns what it brought about, together with what a
    /// press or a push brought about since the last tick, so nothing is lost.
    @discardableResult
    public mutating func tick(at now: Moment) -> [TickEvent] {
        defer { unreported = [] }
        return unreported + advance(at: now)
    }

    private mutating func advance(at now: Moment) -> [TickEvent] {
        var events: [TickEvent] = []
        group.expire(at: now.mono)
        let ranOut = [
            onair.expire(at: now).map { ($0, onair.asking.problemWords(at: now)) },
            wrapup.expire(at: now).map { ($0, wrapup.asking.problemWords(at: now)) },
            kill.expire(at: now).map { ($0, kill.asking.problemWords(at: now)) },
        ]
        for case let (id, words)? in ranOut {
            let withdrawn = outbox.withdraw(id: id) != nil
            events.append(.ranOut(words: words ?? "a request ran out", withdrawn: withdrawn))
        }
        for (id, at) in cameraAsks where now.mono - at >= EyesGate.askCounts {
            cameraAsks[id] = nil
            outbox.withdraw(id: id)
        }
        if contact.silenceBegins(at: now) {
            adopt(.unread(contact.words), at: now)
            events.append(.silenceBegan(contact.words))
        }
        gate.tick(eyes, at: now)
        return events
    }

    /// The camera went away: the gate closes until a fresh opening.
    public mutating func cameraGone(_ words: String) {
        gate.cameraGone(words)
    }

    /// The next monotonic time anything here changes on its own.
    public func nextDue(at now: Moment) -> Double? {
        var due: [Double?] = [group.expiresAt, onair.asking.nextDue, wrapup.asking.nextDue,
                              kill.asking.nextDue, contact.due,
                              cameraAsks.values.min().map { $0 + EyesGate.askCounts },
                              indicators(at: now).nextChange(after: now.mono)]
        if let until = gate.untilDue(eyes) { due.append(now.mono + max(0, until - now.wall)) }
        return due.compactMap { $0 }.min()
    }

    // MARK: What the body shows

    /// The pattern every output role drives (DESIGN 2).
    public func indicators(at now: Moment) -> Indicators {
        let lamp: (Pattern, Double)
        switch state.on {
        case true?: lamp = (.steady, 0)
        case false?: lamp = (.dark, 0)
        case nil:
            switch settings.unreadLamp {
            case .blink: lamp = (.unread, unreadSince)
            case .dark: lamp = (.dark, 0)
            case .lit: lamp = (.steady, 0)
            }
        }
        let asks = [onair.asking.out, wrapup.asking.out, kill.asking.out].compactMap { $0 }
        let problems = [onair.asking, wrapup.asking, kill.asking].compactMap { a in
            a.problemWords(at: now) != nil ? a.problem : nil
        }
        let armedLED: (Pattern, Double)
        if group.armed(at: now.mono) != nil {
            armedLED = (.steady, 0)
        } else if let ask = asks.max(by: { $0.at.mono < $1.at.mono }) {
            armedLED = (.asking, ask.at.mono)
        } else if let problem = problems.max(by: { $0.since < $1.since }) {
            armedLED = (.problem, problem.since)
        } else {
            armedLED = (.dark, 0)
        }
        let eyeLED: (Pattern, Double) = eyes.killing ? (.closing, 0) : eyes.red ? (.steady, 0) : (.dark, 0)
        return Indicators(lamp: lamp, armedLED: armedLED, eyeLED: eyeLED)
    }

    /// The On Air value word.
    public func onAirValue(at now: Moment) -> String {
        onair.value(state: state, armed: group.isArmed(.onair, at: now.mono))
    }

    /// The status document (DESIGN 7), with what only the adapters know.
    public func status(at now: Moment, _ extras: StatusExtras) -> StatusDocument {
        func asked(_ ask: Ask?, on: Bool?) -> StatusDocument.Asked? {
            ask.map { StatusDocument.Asked(id: $0.id, on: on, at: $0.at.wall) }
        }
        return StatusDocument(
            onair: .init(
                value: onAirValue(at: now), on: state.on, phase: state.stage?.rawValue,
                stage: state.stage?.word, since: state.since, by: state.by, unread: state.unreadWords,
                asked: asked(onair.asking.out, on: onair.askedOn), problem: onair.asking.problemWords(at: now)),
            wrapup: .init(
                value: wrapup.value(state: state, armed: group.isArmed(.wrapup, at: now.mono)),
                asked: asked(wrapup.asking.out, on: nil), problem: wrapup.asking.problemWords(at: now)),
            eyes: .init(
                mode: eyes.mode?.rawValue, red: eyes.red, names: eyes.names, killing: eyes.killing,
                open: eyes.open, until: eyes.until, why: eyes.why,
                preview: extras.previewRunning ? "running" : "stopped", preview_why: extras.previewWords,
                kill: kill.value(armed: group.isArmed(.kill, at: now.mono)),
                kill_asked: asked(kill.asking.out, on: nil), kill_problem: kill.asking.problemWords(at: now)),
            lines: Dictionary(uniqueKeysWithValues: extras.lines.map { ($0.key.rawValue, Null(wrappedValue: $0.value)) }),
            buttons: Dictionary(uniqueKeysWithValues: extras.held.map {
                ($0.key.rawValue, StatusDocument.Button(held: $0.value.held, stuck: $0.value.stuck))
            }),
            where: extras.location,
            oriel: .init(last_push: contact.lastPush?.wall, last_poll: contact.lastPoll?.wall, silent: contact.silent),
            board: extras.board)
    }
}
