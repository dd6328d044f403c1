/// One button's contact: turns the kernel's raw edges into presses, releases
/// and a held/stuck report (DESIGN 3 "Contact bounce", issues 4 and 11).
///
/// It counts from evidence, not from the direction an edge reports. For a
/// line requested on both edges the kernel does not record which edge fired:
/// its threaded handler reads the line's level when it runs and reports that
/// (gpiolib-cdev.c, `lineevent_irq_thread` for v1, `edge_irq_thread` for v2).
/// So a pulse shorter than the handler's latency arrives as edges that all
/// say the same direction, and after a bounce the last reported direction can
/// differ from the line's real level. Hence:
///
/// - An edge that arrives while the contact is up and no bounce window is
///   open is a press at that edge's timestamp, whatever it reports: the line
///   must have gone down to make it. The press counts at once (leading edge).
/// - While down, an edge that reports released is the release, at once.
///   One that reports pressed says the line moved and came back (or an edge
///   was lost): the reading at the window's end decides.
/// - Every accepted edge opens a window of `debounce` seconds; edges inside
///   it are bounce. When it ends, `tick` asks for the line's real level
///   (`.readLevel`) and the caller hands it to `level(pressed:at:)`: the
///   contact settles to it. A reading never presses (that would count a
///   press from a bouncing release); it can release, or put the contact down
///   quietly.
/// - Down for `heldAfter` seconds, the contact asks for the level again and
///   reports held only if the line still reads pressed: a button is never
///   reported held while its line reads released. Held is reported once; the
///   button cannot press again until it is released.
///
/// Times are the edges' own kernel timestamps and the caller's clock, on one
/// monotonic scale. An edge stamped before the last reading is already in it.
public struct Contact: Equatable, Sendable {
    /// The house's ruling: down this long is held or stuck (a broken
    /// normally-closed wire looks the same), not a press in progress.
    public static let heldAfter: Double = 10
    /// DESIGN 3: the board file's `debounce` when it says none.
    public static let defaultDebounce: Double = 0.010

    /// What one edge, clock reading or level reading meant.
    public enum Event: Equatable, Sendable {
        /// The button went down: this is what the two-press sees.
        case press(at: Double)
        /// The button came up; `wasHeld` when it had been reported held.
        case release(at: Double, wasHeld: Bool)
        /// Down for `heldAfter` seconds: reported once per hold.
        case held(since: Double)
        /// Read the line's level now and hand it to `level(pressed:at:)`.
        case readLevel
    }

    public let debounce: Double
    /// The level the contact believes, from edges and readings.
    public private(set) var isDown: Bool
    /// Down and reported held; cleared by the release.
    public private(set) var isHeld = false
    /// When the contact went down (nil while up).
    public private(set) var downSince: Double?
    /// Edges thrown away as bounce, for the log.
    public private(set) var bounces = 0
    /// Asked for a reading (`.readLevel`) and not given one yet.
    public private(set) var awaitingLevel = false

    /// The open bounce window's end (nil when none is open).
    private var windowEnd: Double?
    /// The last reading of the line: edges stamped before it are in it.
    private var readAt: Double

    /// `down` is the line's level when the body starts reading it: a button
    /// already down at start never presses, and is reported held in time.
    public init(debounce: Double = Contact.defaultDebounce, down: Bool = false, at now: Double) {
        self.debounce = max(0, debounce)
        isDown = down
        readAt = now
        downSince = down ? now : nil
    }

    /// One kernel edge: `pressed` already honours the line's `active` setting.
    public mutating func edge(pressed: Bool, at: Double) -> [Event] {
        if at < readAt {
            bounces += 1
            return []
        }
        var events: [Event] = []
        // No tick came at the hold's moment: the edge is the first news since.
        if isDown, !isHeld, let since = downSince, at >= since + Self.heldAfter {
            isHeld = true
            events.append(.held(since: since))
        }
        if let end = windowEnd, at < end {
            bounces += 1
            return events
        }
        windowEnd = at + debounce
        awaitingLevel = false
        if !isDown {
            events.append(go(down: true, at: at))
        } else if !pressed {
            events.append(go(down: false, at: at))
        }
        return events
    }

    /// The caller's clock: at a window's end or the hold's moment, asks for
    /// the line's level (once; the reading answers).
    public mutating func tick(at now: Double) -> [Event] {
        guard let due = nextDeadline(), now >= due else { return [] }
        awaitingLevel = true
        return [.readLevel]
    }

    /// The line's real level, read because `.readLevel` asked for it: the
    /// contact settles to it. A reading nobody asked for (or one an edge
    /// overtook) changes nothing.
    public mutating func level(pressed: Bool, at now: Double) -> [Event] {
        guard awaitingLevel else { return [] }
        awaitingLevel = false
        windowEnd = nil
        readAt = max(readAt, now)
        var events: [Event] = []
        if pressed != isDown {
            if pressed {
                // The release was bounce, or the finger came back: down, quietly.
                isDown = true
                downSince = now
            } else {
                events.append(go(down: false, at: now))
            }
        }
        if isDown, !isHeld, let since = downSince, now >= since + Self.heldAfter {
            isHeld = true
            events.append(.held(since: since))
        }
        return events
    }

    /// When `tick` next has something to do, or nil if nothing is pending.
    public func nextDeadline() -> Double? {
        guard !awaitingLevel else { return nil }
        var due = windowEnd
        if isDown, !isHeld, let since = downSince {
            let heldAt = since + Self.heldAfter
            due = min(due ?? heldAt, heldAt)
        }
        return due
    }

    private mutating func go(down: Bool, at: Double) -> Event {
        isDown = down
        if down {
            downSince = at
            return .press(at: at)
        }
        let wasHeld = isHeld
        isHeld = false
        downSince = nil
        return .release(at: at, wasHeld: wasHeld)
    }
}
