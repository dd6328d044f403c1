/// One button's contact: turns the kernel's raw edges into presses, releases
/// and a held/stuck report (DESIGN 3 "Contact bounce", issue 4).
///
/// Leading-edge debounce: the first edge that changes the level counts at
/// once, so a press never waits for the window; edges inside `debounce`
/// seconds after it are bounce. If the last raw edge inside the window left
/// the line at another level (a tap shorter than the window), that level
/// counts when the window ends: `nextDeadline` asks for that moment.
///
/// A button down for `heldAfter` seconds is reported held once; being down,
/// it cannot press again until it is released. Times are the edges' own
/// kernel timestamps and the caller's clock, on one monotonic scale.
public struct Contact: Equatable, Sendable {
    /// The house's ruling: down this long is held or stuck (a broken
    /// normally-closed wire looks the same), not a press in progress.
    public static let heldAfter: Double = 10
    /// DESIGN 3: the board file's `debounce` when it says none.
    public static let defaultDebounce: Double = 0.010

    /// What one edge or one clock reading meant.
    public enum Event: Equatable, Sendable {
        /// The button went down: this is what the two-press sees.
        case press(at: Double)
        /// The button came up; `wasHeld` when it had been reported held.
        case release(at: Double, wasHeld: Bool)
        /// Down for `heldAfter` seconds: reported once per hold.
        case held(since: Double)
    }

    public let debounce: Double
    /// The debounced level.
    public private(set) var isDown: Bool
    /// Down and reported held; cleared by the release.
    public private(set) var isHeld = false
    /// When the debounced level went down (nil while up).
    public private(set) var downSince: Double?
    /// Edges thrown away as bounce, for the log.
    public private(set) var bounces = 0

    private var acceptedAt: Double?
    private var raw: Bool
    private var rawAt: Double

    /// `down` is the line's level when the body starts reading it: a button
    /// already down at start never presses, and is reported held in time.
    public init(debounce: Double = Contact.defaultDebounce, down: Bool = false, at now: Double) {
        self.debounce = max(0, debounce)
        isDown = down
        raw = down
        rawAt = now
        downSince = down ? now : nil
    }

    /// One kernel edge: `pressed` already honours the line's `active` setting.
    public mutating func edge(pressed: Bool, at: Double) -> [Event] {
        var events = settle(at: at)
        raw = pressed
        rawAt = at
        if let accepted = acceptedAt, at < accepted + debounce {
            bounces += 1
            return events
        }
        // Outside any window: an edge that does not change the level (a lost
        // edge in between) moves nothing.
        if pressed != isDown {
            events.append(accept(pressed, at: at))
        }
        return events
    }

    /// The caller's clock: ends a bounce window and reports a hold when due.
    public mutating func tick(at now: Double) -> [Event] {
        settle(at: now)
    }

    /// When `tick` next has something to do, or nil if nothing is pending.
    public func nextDeadline() -> Double? {
        var due: Double? = nil
        if let accepted = acceptedAt, raw != isDown {
            due = accepted + debounce
        }
        if isDown, !isHeld, let since = downSince {
            let heldAt = since + Self.heldAfter
            due = min(due ?? heldAt, heldAt)
        }
        return due
    }

    private mutating func settle(at now: Double) -> [Event] {
        var events: [Event] = []
        if let accepted = acceptedAt, raw != isDown, now >= accepted + debounce {
            events.append(accept(raw, at: rawAt))
        }
        if isDown, !isHeld, let since = downSince, now >= since + Self.heldAfter {
            isHeld = true
            events.append(.held(since: since))
        }
        return events
    }

    private mutating func accept(_ pressed: Bool, at: Double) -> Event {
        acceptedAt = at
        isDown = pressed
        if pressed {
            downSince = at
            return .press(at: at)
        }
        let wasHeld = isHeld
        isHeld = false
        downSince = nil
        return .release(at: at, wasHeld: wasHeld)
    }
}
