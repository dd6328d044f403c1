/// How this body is set up, as far as the rules care.
public struct BodySettings: Equatable, Sendable {
    /// The body's name (`[body] name`), also the `by` of its requests.
    public var name: String
    public var onAirAction: OnAirSwitch.Action
    public var unreadLamp: UnreadLamp
    /// What the lamp's line drives (`[lamp] drives`).
    public var lampDrives: LampDrive
    /// `oriel.silence`.
    public var silence: Double
    /// The camera this body's camera button names.
    public var camera: String

    public init(name: String, onAirAction: OnAirSwitch.Action = .toggle, unreadLamp: UnreadLamp = .blink,
                lampDrives: LampDrive = .led, silence: Double = 60, camera: String? = nil) {
        self.name = name
        self.onAirAction = onAirAction
        self.unreadLamp = unreadLamp
        self.lampDrives = lampDrives
        self.silence = silence
        self.camera = camera ?? "\(name) camera"
    }

    /// The lamp's rule: its part and its unread pattern together.
    public var lamp: LampRule { LampRule(drives: lampDrives, unread: unreadLamp) }
}

/// Why a push was refused (400): nothing was changed.
public struct PushError: Error, Equatable, CustomStringConvertible {
    public let description: String
}

/// The whole body's state as one value: what Oriel last said, each button's
/// contact and rule, the eyes gate, the outbox and Oriel's silence. Every
/// entry point takes the caller's clock and gives the actions it brought
/// about (`BodyAction`), in order: `edge`, `level` and `tick`, which run at
/// every turn, append them to the caller's list (`into:`), so a turn makes
/// no list; the others return theirs. The agent owns the one instance and
/// does all the I/O.
/// The path from a raw kernel edge to an outbox item is this value alone:
/// edges in, actions out.
public struct Body: Equatable, Sendable {
    public let settings: BodySettings
    public private(set) var state: OnAirState = .atStart
    /// When the current unread state began (its pattern starts then).
    public private(set) var unreadSince: Double
    public private(set) var eyes: HouseEyes = .unsaid
    public internal(set) var group = TwoPressGroup<ButtonRole>()
    /// Each button's rule (DESIGN 3).
    var controls: Controls
    /// Each wired button's contact: debounce and held.
    /// (This and `noise` are tables by role, not dictionaries: read at every tick.)
    public internal(set) var contacts = RoleTable<ButtonRole, Contact>()
    /// Each button's blips (noise, no press): kept across a re-wired line, so the count only grows.
    public internal(set) var noise = RoleTable<ButtonRole, NoiseTally>()
    /// Each button's last confirmed press and what it became, for the page.
    public internal(set) var lastPress: [ButtonRole: LastPress] = [:]
    public internal(set) var gate = EyesGate()
    public internal(set) var outbox: Outbox
    public private(set) var contact: OrielContact

    public init(settings: BodySettings, at now: Moment) {
        self.settings = settings
        controls = Controls(settings)
        unreadSince = now.mono
        outbox = Outbox(startMillis: UInt64(max(0, now.wall) * 1000))
        contact = OrielContact(silence: settings.silence, startedAt: now.mono)
    }

    var world: World { World(state: state, eyes: eyes) }

    /// Always present: `Controls.init` makes one of each.
    public var onair: OnAirSwitch { controls.onair }
    public var wrapup: WrapUpButton { controls.wrapup }
    public var kill: EyesKill { controls.kill }
    public var camera: CameraButton { controls.camera }

    // MARK: Start

    /// What the body does as it starts: says hello, and puts the camera where the gate says.
    public func started() -> [BodyAction] {
        [.sayHello(because: "start"), .preview(run: gate.verdict.runs, why: gate.verdict.words)]
    }

    // MARK: Oriel's push

    /// `POST /face`, read where it lies in its bytes (no dictionary built):
    /// either object may be absent, and then that part keeps what it had.
    public mutating func push(_ body: JSONBytes, at now: Moment) throws(PushError) -> [BodyAction] {
        guard body.isObject else {
            throw PushError(description: "the push is not a JSON object: send {\"onair\":{…},\"eyes\":{…}}")
        }
        let before = gate.verdict
        var actions: [BodyAction] = []
        advance(at: now, into: &actions)
        contact.pushed(at: now)
        let top = body.members(["onair", "eyes"] as InlineArray<2, StaticString>)
        // Both answers read before either is told, as before; two values, no array.
        // Each object's members are walked once, for its state and its `answered`
        // (the eyes read here, before they are adopted below: reading is all it is).
        var answeredOnAir: Answered?
        var answeredEyes: Answered?
        var newEyes: HouseEyes?
        if let pushedEyes = top[1], pushedEyes.isObject {
            let m = pushedEyes.members(HouseEyes.keys)
            answeredEyes = Answered.read(m[7])
            newEyes = HouseEyes.read(m)
        }
        if let onair = top[0] {
            let m = onair.members(OnAirState.keys)
            answeredOnAir = Answered.read(m[7])
            if let new = OnAirState.read(m) { adopt(new, at: now) }
        }
        if let a = answeredOnAir { tell(.answered(a), at: now) }
        if let a = answeredEyes { tell(.answered(a), at: now) }
        if let newEyes {
            disarm(moving: World(state: state, eyes: newEyes))
            eyes = newEyes
            tell(.eyes, at: now)
            gate.adopt(eyes, at: now)
        }
        gateMoved(from: before, into: &actions)
        return actions
    }

    /// A new On Air state: a state that moves under an armed control disarms
    /// it (the second press would mean the opposite of what the first read).
    /// (Out of line: inlined into a push, it would copy the states once more.)
    @inline(never)
    mutating func adopt(_ new: OnAirState, at now: Moment) {
        disarm(moving: World(state: new, eyes: eyes))
        if new.isUnread && !state.isUnread { unreadSince = now.mono }
        state = new
        tell(.onAir, at: now)
    }

    private mutating func disarm(moving new: World) {
        controls.disarm(moving: world, to: new, in: &group)
    }

    /// Inlined: told a constant piece of news, the controls that need no
    /// world are told without one copied for them.
    @inline(__always)
    private mutating func tell(_ news: News, at now: Moment) {
        controls.hear(news, in: world, at: now)
    }

    // MARK: Oriel's poll

    /// What becomes of a `GET /ears?after=N&wait=S`.
    public enum PollVerdict: Equatable, Sendable {
        /// Answer now with these items (none when the wait is 0).
        case answer([OutboxItem])
        /// Nothing after N yet: wait until this monotonic time, or an item.
        case park(until: Double)
        /// A cursor the outbox cannot take (`Outbox.refusal`): 400, in these words.
        case refuse(String)
    }

    /// `GET /ears?after=N&wait=S`: answered now when there is news or no
    /// wait, else parked until `wait` runs out. Either way Oriel was heard
    /// and everything up to N is acknowledged; a cursor refused changes nothing.
    public mutating func poll(after: UInt64, wait: Double, at now: Moment) -> PollVerdict {
        if let why = outbox.refusal(after: after) { return .refuse(why) }
        // The outbox asked straight: `hasNews` here would lend a copy of the whole body.
        if wait <= 0 || outbox.hasPending(after: after) { return .answer(poll(after: after, at: now)) }
        waits(after: after, at: now)
        return .park(until: now.mono + wait)
    }

    /// True when a poll that acknowledged up to `after` has an item to take:
    /// a parked poll is answered at once when this becomes true.
    public func hasNews(after: UInt64) -> Bool { outbox.hasPending(after: after) }

    /// `GET /ears?after=N`: acknowledges up to N, returns what is after it.
    /// A poll brings about nothing else: it only hears Oriel and hands out items.
    public mutating func poll(after: UInt64, at now: Moment) -> [OutboxItem] {
        contact.polled(at: now)
        return outbox.poll(after: after)
    }

    /// A poll that waits (nothing after N yet): it hears Oriel and acknowledges
    /// up to N on arrival (DESIGN 4: "until a poll arrives with after at or past
    /// its seq"), so an item Oriel took is not withdrawn while the poll waits.
    public mutating func waits(after: UInt64, at now: Moment) {
        contact.polled(at: now)
        outbox.acknowledge(after: after)
    }

    // MARK: The clock

    /// Lets time pass: asks for a line reading (`.readLevel`) when a
    /// contact's bounce window ends or its hold is due,
    /// drops an arming that ran out, ends requests whose wait ran out
    /// (withdrawing their items, rule 6), notices Oriel's silence and `until`
    /// passing. `ids` as for `edge`. Its actions are appended to `actions`:
    /// the agent's turn keeps one list for them, not a new one a turn.
    public mutating func tick(at now: Moment, ids: () -> String, into actions: inout [BodyAction]) {
        let before = gate.verdict
        // The buttons in name order, as sorting the keys gave, with no array made a turn.
        for button in ButtonRole.inNameOrder {
            guard var c = contacts[button], c.asksLevel(at: now.mono) else { continue }
            contacts[button] = c
            said(.readLevel, of: button, at: now, ids: ids, &actions)
        }
        // A tally is written back only when its minute is over (a write at
        // every turn would copy it).
        for button in ButtonRole.inNameOrder {
            guard let due = noise[button]?.nextDue, now.mono >= due else { continue }
            if let (words, level) = noise[button]?.tick(button, at: now.mono) { actions.append(.log(words, level)) }
        }
        advance(at: now, into: &actions)
        gateMoved(from: before, into: &actions)
    }

    /// The clock's part every entry point shares, its actions appended to
    /// `actions` (no list of its own to copy in: it runs at every turn).
    mutating func advance(at now: Moment, into actions: inout [BodyAction]) {
        group.expire(at: now.mono)
        for out in controls.ranOut(at: now) {
            let withdrawn = outbox.withdraw(id: out.id) != nil
            if let words = out.said {
                actions.append(.log("\(words)\(withdrawn ? "; the request was withdrawn before Oriel took it" : "")", .warning))
            }
            actions.append(.unanswered(id: out.id, withdrawn: withdrawn))
        }
        if contact.silenceBegins(at: now) {
            adopt(.unread(contact.words), at: now)
            actions.append(.log("oriel: \(contact.words); On Air is unread until Oriel pushes again", .warning))
            actions.append(.sayHello(because: "silence"))
        }
        gate.tick(eyes, at: now)
    }

    /// The camera went away, or did not start: the gate closes until a fresh opening.
    public mutating func cameraGone(_ words: String) -> [BodyAction] {
        let before = gate.verdict
        gate.cameraGone(words)
        var actions: [BodyAction] = []
        gateMoved(from: before, into: &actions)
        return actions
    }

    /// The verdict moved during one entry point: the camera follows it, appended
    /// to `actions` (no list of its own, nor a copy by `+`). Inlined: called in a
    /// mutating entry point, it would be a copy of the whole body (1.2 KB) to
    /// lend it, at every tick.
    @inline(__always)
    func gateMoved(from before: EyesGate.Verdict, into actions: inout [BodyAction]) {
        if gate.verdict != before { actions.append(.preview(run: gate.verdict.runs, why: gate.verdict.words)) }
    }

    /// The next monotonic time anything here changes on its own.
    public func nextDue(at now: Moment) -> Double? {
        outlook(at: now).nextDue(at: now)
    }
}

