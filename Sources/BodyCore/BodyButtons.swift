/// The buttons' path through the body: a raw kernel edge goes through the
/// button's contact (debounce, held) to its control, and what that asked goes
/// to the outbox. Edges in, actions out; the caller's clock and ids.
extension Body {
    /// A button's line was opened: its contact starts at the line's level (a
    /// button already down at start never presses, and is reported held in time).
    public mutating func wire(_ button: ButtonRole, debounce: Double = Contact.defaultDebounce, down: Bool, at now: Double) {
        contacts[button] = Contact(debounce: debounce, down: down, at: now)
    }

    /// One raw kernel edge. `now` is when the caller reads it (the edge's own
    /// timestamp decides; the wall clock is set back to it). `ids` gives a
    /// fresh id for a request a press makes. An edge on an unwired button does
    /// nothing. Its actions are appended to `actions` (no list a call).
    public mutating func edge(_ edge: ButtonEdge, at now: Moment, ids: () -> String, into actions: inout [BodyAction]) {
        guard var c = contacts[edge.button] else { return }
        let before = gate.verdict
        let events = c.edge(pressed: edge.pressed, at: edge.at)
        contacts[edge.button] = c
        for event in events { said(event, of: edge.button, at: now, ids: ids, &actions) }
        gateMoved(from: before, into: &actions)
    }

    /// A button's line read now, because `.readLevel` asked: its contact
    /// settles to the real level (a release, a quiet down, or the hold).
    /// `now` is when the line was read. Its actions are appended to `actions`:
    /// every window's end comes here, so no list is made for it.
    public mutating func level(_ button: ButtonRole, pressed: Bool, at now: Moment, ids: () -> String,
                               into actions: inout [BodyAction]) {
        guard var c = contacts[button] else { return }
        let before = gate.verdict
        let (settled, held) = c.read(pressed: pressed, at: now.mono)
        contacts[button] = c
        // Room for a press's actions at once (its log, its count, the polls woken, the camera), not grown one by one.
        if case .press = settled { actions.reserveCapacity(actions.count + 4) }
        if let settled { said(settled, of: button, at: now, ids: ids, &actions) }
        if let held { said(held, of: button, at: now, ids: ids, &actions) }
        gateMoved(from: before, into: &actions)
    }

    /// Each button's line for an arming press, made once: said at every first press.
    static let armedLines = Dictionary(uniqueKeysWithValues: ButtonRole.allCases.map {
        ($0, String.joined("button ", $0.rawValue, ": ", PressOutcome.armed.words))
    })

    /// What one contact event brings about.
    mutating func said(_ event: Contact.Event, of button: ButtonRole, at now: Moment,
                               ids: () -> String, _ actions: inout [BodyAction]) {
        let name = button.rawValue
        switch event {
        case .press(let at):
            let moment = Moment(mono: at, wall: now.wall - max(0, now.mono - at))
            let outcome = press(button, at: moment, id: ids(), &actions)
            // The words once, for the log and the page.
            let words = outcome.words
            let line = outcome == .armed ? Self.armedLines[button] : nil
            actions.append(.log(line ?? .joined("button ", name, ": ", words), .info))
            lastPress[button] = LastPress(at: moment.wall, outcome, words: words)
            actions.append(.pressed(button, outcome, at: at))
            if case .asked = outcome { actions.append(.wakePolls) }
        case .noise(let at):
            var tally = noise[button] ?? NoiseTally()
            let said = tally.blip(button, at: now.mono)
            noise[button] = tally
            if let (words, level) = said { actions.append(.log(words, level)) }
            actions.append(.noise(button, at: at))
        case .held:
            actions.append(.log("button \(name) held for \(Int(Contact.heldAfter)) s: stuck, or a broken normally-closed wire; it will not press again until released", .warning))
        case .release(_, let wasHeld):
            if wasHeld { actions.append(.log("button \(name) released after being held", .info)) }
        case .readLevel:
            actions.append(.readLevel(button))
        }
    }

    /// A confirmed press (after the contact): the control decides, the body
    /// queues what it asked. `id` is a fresh id from the caller.
    mutating func press(_ button: ButtonRole, at now: Moment, id: @autoclosure () -> String,
                        _ actions: inout [BodyAction]) -> PressOutcome {
        advance(at: now, into: &actions)
        let world = self.world, by = settings.name
        switch button {
        case .onair: return Self.press(&controls.onair, world, &group, &outbox, &gate, at: now, id: id(), by: by)
        case .wrapup: return Self.press(&controls.wrapup, world, &group, &outbox, &gate, at: now, id: id(), by: by)
        case .kill: return Self.press(&controls.kill, world, &group, &outbox, &gate, at: now, id: id(), by: by)
        case .camera: return Self.press(&controls.camera, world, &group, &outbox, &gate, at: now, id: id(), by: by)
        }
    }

    /// `press` on the button's own control (the parts of the body it touches passed apart).
    /// Not inlined: the four copies inlined into `press` put a request's small
    /// field list on the heap, where it is on the stack otherwise (an allocation a press).
    @inline(never)
    private static func press(_ control: inout some Control, _ world: World, _ group: inout TwoPressGroup<ButtonRole>,
                              _ outbox: inout Outbox, _ gate: inout EyesGate, at now: Moment,
                              id: @autoclosure () -> String, by: String) -> PressOutcome {
        let outcome = control.tap(world, group: &group, at: now, id: id(), by: by)
        guard case .asked(let request) = outcome else { return outcome }
        do {
            _ = try outbox.enqueue(request)
            control.queued(request, in: world, at: now, gate: &gate)
            return outcome
        } catch {
            control.fail(error.description, at: now)
            return .refused(error.description)
        }
    }
}

/// A button's last confirmed press: when (wall clock) and what it became.
public struct LastPress: Equatable, Sendable {
    public var at: Double
    /// `armed`, `asked`, `waiting` (a request was already out) or `refused`.
    public var became: String
    /// What the press did, in the log's words.
    public var words: String

    public init(at: Double, _ outcome: PressOutcome) {
        self.init(at: at, outcome, words: outcome.words)
    }

    init(at: Double, _ outcome: PressOutcome, words: String) {
        self.at = at
        self.words = words
        switch outcome {
        case .armed: became = "armed"
        case .asked: became = "asked"
        case .waiting: became = "waiting"
        case .refused: became = "refused"
        }
    }
}
