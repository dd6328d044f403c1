/// One button's contact: turns the kernel's raw edges into presses, releases,
/// noise and a held/stuck report (DESIGN 3 "Contact bounce").
///
/// A press is confirmed by the line, not by an edge:
///
/// - The first edge while the contact is up opens a window of `debounce`
///   seconds; edges inside it are bounce. At its end `asksLevel` asks for the
///   line's level (`.readLevel`) and the caller hands it to
///   `read(pressed:at:)`. Still pressed: a press, stamped at the first
///   edge's kernel timestamp (the finger's touch). Back at rest: noise (a
///   spike from a switched load beside the cable), never a press.
/// - Down, the same: an edge opens a window and the reading decides. Released:
///   the release, stamped at its first edge. Still pressed: a blip during the
///   press, noise; the press goes on.
/// - No edge's reported direction decides anything. For a line requested on
///   both edges the kernel does not record which edge fired: its threaded
///   handler reads the level when it runs (gpiolib-cdev.c,
///   `lineevent_irq_thread` for v1, `edge_irq_thread` for v2), so a pulse
///   shorter than the handler's latency arrives as edges that all say the
///   same, and under load the handler can read a level from after the window.
/// - A read that comes late, after the line moved again past the window's
///   end, cannot say what the line was at the end: the window ends at rest (up:
///   noise; down: the release). A press is only ever confirmed by a reading; a
///   late loop can lose one, which the person sees (no armed light) and
///   presses again, but never makes one.
/// - A read later than a whole window past the end, with no newer edge, that
///   would change the level takes a second look one window on: the level it
///   found may be a later blip's whose edge the kernel has not queued yet (the
///   interrupt runs after the line moved; gpio-sim's irq_work under a loaded
///   VM ran 20 ms late), so two blips would make a press. A finger is still
///   down at the second look, with no edge since the first; a blip has ended
///   by then, and an edge after the first reading ends the window at rest.
/// - Down for `heldAfter` seconds, the contact asks for the level again and
///   reports held only if the line still reads pressed. Held is reported once;
///   the button cannot press again until it is released.
/// - `debounce` 0 turns the confirmation off (a board with its own filter):
///   an edge while up presses at once, one that says released while down
///   releases at once, and a reading only settles the level quietly.
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
        /// A window whose reading found the line where it was: a blip, not a
        /// press or a release. `at` is its first edge.
        case noise(at: Double)
        /// Down for `heldAfter` seconds: reported once per hold.
        case held(since: Double)
        /// Read the line's level now and hand it to `read(pressed:at:)`.
        case readLevel
    }

    public let debounce: Double
    /// The level the contact believes, from readings (and edges, with no window).
    public private(set) var isDown: Bool
    /// Down and reported held; cleared by the release.
    public private(set) var isHeld = false
    /// When the contact went down (nil while up).
    public private(set) var downSince: Double?
    /// Edges thrown away as bounce, for the log.
    public private(set) var bounces = 0
    /// Windows whose reading found the line where it was.
    public private(set) var blips = 0
    /// Asked for a reading (`.readLevel`) and not given one yet.
    public private(set) var awaitingLevel = false
    /// Windows the line moved past again before the body read it: read too
    /// late to judge, so ended at rest (a tap in one is lost). A count of the
    /// body being busy, which the person sees as a press that did not arm.
    public private(set) var late = 0

    /// An open bounce window: its first edge and its end; `second` when a
    /// late reading moved its end for a second look.
    private struct Window: Equatable, Sendable {
        var first: Double
        var end: Double
        var second = false
    }
    private var window: Window?
    /// The last reading of the line: edges stamped before it are in it.
    private var readAt: Double

    /// Whether a press waits for the line's reading (`debounce` above 0).
    public var confirms: Bool { debounce > 0 }

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
        // No array unless there is an event: every edge comes here.
        var events: [Event] = []
        if let held = heldIfDue(at: at) { events.append(held) }
        if let open = window {
            // In a second look, any edge after the first reading says the
            // line moved since: what it was is unknown, so it ends at rest.
            if at < open.end && !(open.second && at >= readAt) {
                bounces += 1
                return events
            }
            // The window ended and the line moved again before the body read
            // it: what it was at the end is unknown, so it ends at rest.
            window = nil
            if confirms {
                late += 1
                if let settled = settle(open, pressed: false, at: open.end) { events.append(settled) }
            }
        }
        awaitingLevel = false
        window = Window(first: at, end: at + debounce)
        if !confirms {
            if !isDown {
                events.append(go(down: true, at: at))
            } else if !pressed {
                events.append(go(down: false, at: at))
            }
        }
        return events
    }

    /// The caller's clock: true at a window's end or the hold's moment, when
    /// the line's level is wanted (`.readLevel`; asked once, the reading answers).
    /// A Bool, not a list of events: the body asks at every turn, and a list
    /// would be an allocation each time.
    public mutating func asksLevel(at now: Double) -> Bool {
        guard let due = nextDeadline(), now >= due else { return false }
        awaitingLevel = true
        return true
    }

    /// The line's real level, read because `asksLevel` asked for it: it
    /// settles the open window, or checks a hold. A reading nobody asked for
    /// (or one an edge overtook) changes nothing. At most two events, in this
    /// order; a pair, not a list, for the allocation `asksLevel` avoids.
    public mutating func read(pressed: Bool, at now: Double) -> (settled: Event?, held: Event?) {
        guard awaitingLevel else { return (nil, nil) }
        awaitingLevel = false
        readAt = max(readAt, now)
        var settled: Event?
        if var open = window {
            if confirms, !open.second, pressed != isDown, now > open.end + debounce {
                // Late, and it would change the level: look again one window on.
                open.end = now + debounce
                open.second = true
                window = open
                // Not a hold either: the line read up (a hold is due only while down).
                return (nil, nil)
            }
            window = nil
            settled = settle(open, pressed: pressed, at: now)
        } else if isDown, !pressed {
            // The hold's reading found the line up: its release edge was lost.
            settled = go(down: false, at: now)
        }
        return (settled, heldIfDue(at: now))
    }

    /// When `asksLevel` next has something to do, or nil if nothing is pending.
    public func nextDeadline() -> Double? {
        guard !awaitingLevel else { return nil }
        // A second look waits its window out; the hold, if due, is read with it.
        if let open = window, open.second { return open.end }
        var due = window?.end
        if isDown, !isHeld, let since = downSince {
            let heldAt = since + Self.heldAfter
            due = min(due ?? heldAt, heldAt)
        }
        return due
    }

    /// A window ends with the line `pressed`, read `at`.
    private mutating func settle(_ open: Window, pressed: Bool, at: Double) -> Event? {
        guard confirms else {
            // The edge acted already; the reading only corrects the level.
            guard pressed != isDown else { return nil }
            if pressed {
                isDown = true
                downSince = at
                return nil
            }
            return go(down: false, at: at)
        }
        if pressed == isDown {
            blips += 1
            return .noise(at: open.first)
        }
        return go(down: pressed, at: open.first)
    }

    private mutating func heldIfDue(at now: Double) -> Event? {
        guard isDown, !isHeld, let since = downSince, now >= since + Self.heldAfter else { return nil }
        isHeld = true
        return .held(since: since)
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
