import BodySystem
import Synchronization

/// The body's one thread of control: an epoll set with one timerfd for every
/// timer and one eventfd for work handed in from other threads.
///
/// Everything that touches the body's state runs on the thread that calls
/// `run()`. Why one epoll loop rather than an actor: libmicrohttpd, libgpiod,
/// libgps and V4L2 all hand us file descriptors, and one loop that waits on
/// all of them needs no locks and never wakes when nothing is due
/// (docs/event-loop.md).
///
/// Watches are keyed by a registration id carried in the epoll event, never
/// by the descriptor number (as swift-nio's `SelectorEpoll` does): when an
/// action closes a descriptor and a new one gets its number in the same
/// turn, an event already reported for the old one is dropped instead of
/// reaching the old action, or the new one.
public final class EventLoop: @unchecked Sendable {
    /// What a watch or a timer runs on the loop thread. A `LoopError` thrown
    /// here ends `run()` with it.
    public typealias Action = () throws(LoopError) -> Void

    public struct WatchID: Hashable, Sendable { let registration: UInt64 }
    public struct TimerID: Hashable, Sendable { let raw: UInt64 }
    /// A timer made once and armed again and again (`makeTimer`, `arm`).
    public struct TimerSlot: Hashable, @unchecked Sendable {
        let timer: SlotTimer
        public static func == (a: TimerSlot, b: TimerSlot) -> Bool { a.timer === b.timer }
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(timer)) }
    }

    /// A slot's time and ticket, changed in place through the slot the owner
    /// holds: plain numbers in a final class, so the optimizer can prove no
    /// access overlaps and arming one makes no runtime exclusivity check
    /// (in an array they would be two checks a re-arm, and a request makes three re-arms).
    final class SlotTimer {
        var due: Double?
        /// The ticket of its last arming, from the same count as the ids.
        var order: UInt64 = 0
        let action: Action
        init(_ action: @escaping Action) { self.action = action }
    }

    private struct Watch {
        let fd: FileDescriptor
        let action: Action
    }

    /// The two registrations of the loop's own descriptors; watches count from 2.
    private static let timerRegistration: UInt64 = 0
    private static let wakeRegistration: UInt64 = 1

    private let epoll: Epoll
    private let timer: MonotonicTimer
    private let wake: EventCounter
    private var watches: [UInt64: Watch] = [:]
    /// The registration each watched descriptor number has now.
    private var registrationOf: [FileDescriptor: UInt64] = [:]
    private var nextRegistration: UInt64 = 2
    private var timers: [UInt64: (due: Double, action: Action)] = [:]
    /// The earliest due in `timers` (infinity: none), kept as they come and go:
    /// a turn's re-arm and timer pass read this number, not the table, which is
    /// usually one watchdog timer far off. The table and `slots` are
    /// changed on a copy taken out and put back: a change made in place (a
    /// call that may grow it) would keep a runtime exclusivity check on every read.
    private var timersDue = Double.infinity
    /// The timers re-armed every turn (the rules' wake-up, the server's
    /// timeout): armed in place, their action made once, so arming one
    /// allocates nothing where `schedule` makes a closure each time.
    /// Only ever appended to.
    private var slots: [SlotTimer] = []
    private var nextTimer: UInt64 = 1
    private var armedFor: Double? = nil
    private var stopping = false
    /// A failure in a call that cannot throw (`schedule`, `cancel`,
    /// `unwatch`, `post` from another thread): `run()` throws it on its next turn.
    private var failure: LoopError?
    private let inbox = Mutex<(work: [@Sendable () -> Void], failure: LoopError?)>(([], nil))

    public init() throws(LoopError) {
        do throws(Errno) {
            epoll = try Epoll()
            timer = try MonotonicTimer()
            wake = try EventCounter()
        } catch { throw LoopError("make its epoll set, timerfd and eventfd", error) }
        do throws(Errno) {
            try epoll.add(timer.descriptor!, registration: Self.timerRegistration)
            try epoll.add(wake.descriptor!, registration: Self.wakeRegistration)
        } catch { throw LoopError("watch its timerfd and eventfd", error) }
    }

    deinit {
        epoll.close(); timer.close(); wake.close()
    }

    /// Seconds on CLOCK_MONOTONIC: the same scale as the kernel's GPIO event timestamps.
    public static func monotonic() -> Double { SystemClock.monotonic() }

    /// Calls `action` on the loop thread whenever `fd` is readable (or as
    /// `events` say). Watching a number that already has a watch replaces it:
    /// the old one hears nothing more. No descriptor (nil: its owner closed
    /// it) is EBADF, as epoll_ctl would say of one closed.
    @discardableResult
    public func watch(fd: FileDescriptor?, events: Epoll.Events = .readable, _ action: @escaping Action) throws(LoopError) -> WatchID {
        guard let descriptor = fd else { throw LoopError("watch a descriptor already closed", .badFileDescriptor) }
        let fd = descriptor
        let id = nextRegistration
        do throws(Errno) {
            if let old = registrationOf[fd] {
                watches.removeValue(forKey: old)
                registrationOf.removeValue(forKey: fd)
                // The same open descriptor takes the new id; one closed and
                // reused since (the kernel dropped it from the set) is added anew.
                do throws(Errno) { try epoll.modify(descriptor, events, registration: id) } catch where error == .noSuchFileOrDirectory {
                    try epoll.add(descriptor, events, registration: id)
                }
            } else {
                do throws(Errno) { try epoll.add(descriptor, events, registration: id) } catch where error == .fileExists {
                    try epoll.modify(descriptor, events, registration: id)
                }
            }
        } catch { throw LoopError("watch \(fd)", error) }
        nextRegistration += 1
        registrationOf[fd] = id
        watches[id] = Watch(fd: fd, action: action)
        return WatchID(registration: id)
    }

    /// Stops watching; safe to call twice and after the fd was closed.
    public func unwatch(_ id: WatchID) {
        guard let watch = watches.removeValue(forKey: id.registration) else { return }
        guard registrationOf[watch.fd] == id.registration else { return }
        registrationOf.removeValue(forKey: watch.fd)
        do throws(Errno) {
            try epoll.remove(watch.fd)
        } catch where error == .badFileDescriptor || error == .noSuchFileOrDirectory {
            // Closed already (the kernel took it out of the set), or closed and reused by something not watched.
        } catch {
            failure = failure ?? LoopError("stop watching \(watch.fd)", error)
        }
    }

    /// Runs `action` once at `due` (monotonic seconds).
    @discardableResult
    public func schedule(at due: Double, _ action: @escaping Action) -> TimerID {
        let id = nextTimer
        nextTimer += 1
        var table = timers
        timers = [:]
        table[id] = (due, action)
        timers = table
        timersDue = min(timersDue, due)
        rearmDue = true
        return TimerID(raw: id)
    }

    public func cancel(_ id: TimerID?) {
        guard let id, take(id.raw) != nil else { return }
        rearmDue = true
    }

    /// Takes timer `id` out of the table, and finds the earliest due again.
    private func take(_ id: UInt64) -> (due: Double, action: Action)? {
        var table = timers
        timers = [:]
        let taken = table.removeValue(forKey: id)
        var due = Double.infinity
        for t in table.values where t.due < due { due = t.due }
        timers = table
        timersDue = due
        return taken
    }

    /// A timer that runs `action` each time it comes due, armed with `arm`.
    public func makeTimer(_ action: @escaping Action) -> TimerSlot {
        let timer = SlotTimer(action)
        var all = slots
        slots = []
        all.append(timer)
        slots = all
        return TimerSlot(timer: timer)
    }

    /// Arms `slot` for `due` (monotonic seconds), in place of any earlier
    /// time; nil disarms it. It runs once a time it is armed.
    public func arm(_ slot: TimerSlot, at due: Double?) {
        let timer = slot.timer
        guard timer.due != due else { return }
        timer.due = due
        if due != nil {
            timer.order = nextTimer
            nextTimer += 1
        }
        rearmDue = true
    }

    /// Hands work to the loop thread from any thread.
    public func post(_ work: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.work.append(work) }
        do throws(Errno) {
            try wake.signal()
        } catch {
            // The loop will not wake for this; it says why on the next turn anything else gives it.
            inbox.withLock { $0.failure = $0.failure ?? LoopError("wake up (eventfd write)", error) }
        }
    }

    /// Ends `run()` after the current turn.
    public func stop() { stopping = true }

    /// The timerfd is armed once a turn, just before the wait, however many
    /// timers the turn scheduled or cancelled (each was a `timerfd_settime`).
    private var rearmDue = false
    /// How far away an armed time must be to be left when the earliest due moves later.
    static let earlyWakeLeft = 1.0

    private func rearm() {
        rearmDue = false
        // The earliest, kept as it goes: no array a turn.
        var due: Double? = timersDue < .infinity ? timersDue : nil
        for s in slots { if let d = s.due, d < due ?? .infinity { due = d } }
        if due == armedFor { return }
        // Later than the time armed, which is a second or more away: the timerfd is
        // left to fire early, once; that pass finds nothing due and arms it for the
        // real time. A push moves Oriel's silence later every time, which would cost a
        // timerfd_settime a push. One armed sooner is moved at once: a
        // blink that a push stopped would otherwise wake the body for nothing
        // within the second (a context switch, dearer than the settime).
        if let armed = armedFor, let due, armed < due, armed - EventLoop.monotonic() >= Self.earlyWakeLeft { return }
        do throws(Errno) {
            try timer.arm(at: due)
            armedFor = due
        } catch {
            failure = failure ?? LoopError("arm the timerfd", error)
        }
    }

    private func runDueTimers() throws(LoopError) {
        do throws(Errno) { _ = try timer.drain() } catch { throw LoopError("read the timerfd", error) }
        armedFor = nil
        timerWakes &+= 1
        let now = EventLoop.monotonic()
        // Only timers armed before this pass: one an action arms for now runs on the next turn.
        try runTimers(dueBy: now, armedBefore: nextTimer)
        rearmDue = true
    }

    /// Runs the timers due by `now` and armed before ticket `limit`, earliest
    /// first (ties in the order they were armed), one at a time: an action
    /// may cancel or re-arm another. No list is made.
    private func runTimers(dueBy now: Double, armedBefore limit: UInt64) throws(LoopError) {
        while true {
            // Tickets from here on are at least this: with `limit` no later, a
            // timer armed or scheduled by an action below does not run in this pass.
            let issued = nextTimer
            // The earliest due: (due, ticket), and which timer it is; and how many may run.
            var best = (due: Double.infinity, order: UInt64.max)
            var bestID: UInt64?
            var bestSlot: SlotTimer?
            var eligible = 0
            // The table only when one of its timers is due (most passes: none).
            if timersDue <= now {
                for (id, t) in timers where t.due <= now && id < limit {
                    eligible += 1
                    guard Self.earlier(t.due, id, than: best) else { continue }
                    best = (t.due, id)
                    (bestID, bestSlot) = (id, nil)
                }
            }
            for slot in slots {
                guard let due = slot.due, due <= now, slot.order < limit else { continue }
                eligible += 1
                guard Self.earlier(due, slot.order, than: best) else { continue }
                best = (due, slot.order)
                (bestID, bestSlot) = (nil, slot)
            }
            if let id = bestID, let timer = take(id) {
                try timer.action()
            } else if let slot = bestSlot {
                slot.due = nil
                try slot.action()
            } else {
                return
            }
            // The only one that could run has run, and none armed since can:
            // no second look (a timer's wake is one).
            if eligible == 1 && limit <= issued { return }
        }
    }

    private static func earlier(_ due: Double, _ order: UInt64, than best: (due: Double, order: UInt64)) -> Bool {
        due < best.due || (due == best.due && order < best.order)
    }

    private func drainInbox() throws(LoopError) {
        do throws(Errno) { _ = try wake.drain() } catch { throw LoopError("read the eventfd", error) }
        let (work, failed) = inbox.withLock { box -> ([@Sendable () -> Void], LoopError?) in
            let taken = box
            box = ([], nil)
            return taken
        }
        if let failed { throw failed }
        for w in work { w() }
    }

    /// Waits on every descriptor and timer until `stop()`. Throws when the
    /// loop cannot go on (epoll_wait failed, its timerfd or eventfd cannot be
    /// read or armed, an action said so): the process should then end with a
    /// non-zero status, so systemd restarts it.
    public func run() throws(LoopError) {
        while !stopping {
            if rearmDue { rearm() }
            if let failure { throw failure }
            // A post whose wake-up write failed does not wake the loop: its failure is looked for every turn.
            if let failed = inbox.withLock({ $0.failure }) { throw failed }
            let ready: Epoll.Ready
            do throws(Errno) { ready = try epoll.wait(maxEvents: 32) } catch { throw LoopError("wait for events (epoll_wait)", error) }
            for event in ready {
                switch event.registration {
                case Self.timerRegistration: try runDueTimers()
                case Self.wakeRegistration: try drainInbox()
                // An id not in the table was unwatched or replaced earlier in this turn: dropped.
                default: try watches[event.registration]?.action()
                }
                if stopping || failure != nil { break }
            }
        }
    }

    // MARK: Turned by hand (the agent tests, as swift-nio's EmbeddedEventLoop)

    /// Runs every timer due by `now` on the caller's clock, in due order, pass
    /// by pass as the loop wakes again: one an action arms runs in the next
    /// pass. A test's manual clock moves time, not the kernel's. A timer that
    /// re-arms itself for a moment already due would keep this going forever:
    /// after `passes` passes it stops, and says so by returning false.
    @discardableResult
    func runTimers(dueBy now: Double, passes: Int = 1000) throws(LoopError) -> Bool {
        for _ in 0..<passes {
            try runTimers(dueBy: now, armedBefore: nextTimer)
            let due = timers.values.contains { $0.due <= now } || slots.contains { ($0.due ?? .infinity) <= now }
            if !due { return true }
        }
        return false
    }

    /// One pass over what is ready now, without waiting: descriptors'
    /// actions and posted work. Timers are left to `runTimers(dueBy:)`.
    func runReady() throws(LoopError) {
        let ready: Epoll.Ready
        do throws(Errno) { ready = try epoll.wait(maxEvents: 32, timeout: 0) } catch { throw LoopError("wait for events (epoll_wait)", error) }
        for event in ready {
            switch event.registration {
            case Self.timerRegistration:
                do throws(Errno) { _ = try timer.drain() } catch { throw LoopError("read the timerfd", error) }
                armedFor = nil
            case Self.wakeRegistration: try drainInbox()
            default: try watches[event.registration]?.action()
            }
        }
    }

    /// How often the timerfd woke `run()`, for tests.
    private(set) var timerWakes = 0

    /// Timers not yet run, for tests.
    var timersWaiting: Int { timers.count + slots.count { $0.due != nil } }

    /// The epoll set's and the eventfd's descriptor numbers, for tests that break them.
    var epollDescriptorForTesting: FileDescriptor? { epoll.descriptor }
    var wakeDescriptorForTesting: FileDescriptor? { wake.descriptor }
}

/// Why the loop cannot go on: what it was doing and the errno.
public struct LoopError: Error, CustomStringConvertible, Sendable {
    /// What the loop could not do, e.g. "wait for events (epoll_wait)".
    public let action: String
    public let errno: Errno

    public init(_ action: String, _ errno: Errno) {
        self.action = action
        self.errno = errno
    }

    public var description: String { "loop: cannot \(action): \(errno.words)" }
}
