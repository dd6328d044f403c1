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
    /// Each button's rule (DESIGN 3).
    private(set) var controls: Controls
    public private(set) var gate = EyesGate()
    public private(set) var outbox: Outbox
    public private(set) var contact: OrielContact
    /// Events a press or a push brought about, kept for the next `tick` to report.
    private var unreported: [TickEvent] = []

    public init(settings: BodySettings, at now: Moment) {
        self.settings = settings
        controls = Controls(settings)
        unreadSince = now.mono
        outbox = Outbox(startMillis: UInt64(max(0, now.wall) * 1000))
        contact = OrielContact(silence: settings.silence, startedAt: now.mono)
    }

    var world: World { World(state: state, eyes: eyes) }

    /// Always present: `Controls.init` makes one of each.
    public var onair: OnAirSwitch { controls.the(OnAirSwitch.self) ?? OnAirSwitch(action: settings.onAirAction) }
    public var wrapup: WrapUpButton { controls.the(WrapUpButton.self) ?? WrapUpButton() }
    public var kill: EyesKill { controls.the(EyesKill.self) ?? EyesKill() }
    public var camera: CameraButton { controls.the(CameraButton.self) ?? CameraButton(camera: settings.camera) }

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
        for a in answers { tell(.answered(a), at: now) }
        if let newEyes = HouseEyes.from(body["eyes"]) {
            disarm(moving: World(state: state, eyes: newEyes))
            eyes = newEyes
            tell(.eyes, at: now)
            gate.adopt(eyes, at: now)
        }
    }

    /// A new On Air state: a state that moves under an armed control disarms
    /// it (the second press would mean the opposite of what the first read).
    mutating func adopt(_ new: OnAirState, at now: Moment) {
        disarm(moving: World(state: new, eyes: eyes))
        if new.isUnread && !state.isUnread { unreadSince = now.mono }
        state = new
        tell(.onAir, at: now)
    }

    private mutating func disarm(moving new: World) {
        for c in controls.all where c.disarms(from: world, to: new) { group.disarm(c.role) }
    }

    private mutating func tell(_ news: News, at now: Moment) {
        let world = self.world
        for i in controls.all.indices { controls.all[i].hear(news, in: world, at: now) }
    }

    // MARK: Presses

    /// A confirmed contact press (after debounce). `id` is a fresh id from the caller.
    public mutating func press(_ button: ButtonRole, at now: Moment, id: String) -> PressOutcome {
        unreported += advance(at: now)
        guard let i = controls.index(of: button) else { return .refused("this body has no \(button.rawValue) button") }
        let world = self.world
        let outcome = controls.all[i].tap(world, group: &group, at: now, id: id, by: settings.name)
        guard case .asked(let request) = outcome else { return outcome }
        do {
            _ = try outbox.enqueue(request)
            controls.all[i].queued(request, in: world, at: now, gate: &gate)
            return outcome
        } catch {
            controls.all[i].fail(error.description, at: now)
            return .refused(error.description)
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
        for i in controls.all.indices {
            for out in controls.all[i].ranOut(at: now) {
                let withdrawn = outbox.withdraw(id: out.id) != nil
                if let words = out.said { events.append(.ranOut(words: words, withdrawn: withdrawn)) }
            }
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
        var due: [Double?] = [group.expiresAt, contact.due, indicators(at: now).nextChange(after: now.mono)]
        due += controls.all.map(\.nextDue)
        if let until = gate.untilDue(eyes) { due.append(now.mono + max(0, until - now.wall)) }
        return due.compactMap { $0 }.min()
    }
}
