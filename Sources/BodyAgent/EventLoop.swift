import Glibc
internal import CSystem
import Synchronization

/// The body's one thread of control: an epoll set with one timerfd for every
/// timer and one eventfd for work handed in from other threads.
///
/// Everything that touches the body's state runs on the thread that calls
/// `run()`. Why one epoll loop rather than an actor: libmicrohttpd, libgpiod,
/// libgps and V4L2 all hand us file descriptors, and one loop that waits on
/// all of them needs no locks and never wakes when nothing is due
/// (docs/event-loop.md).
public final class EventLoop: @unchecked Sendable {
    public typealias Action = () -> Void

    public struct WatchID: Hashable, Sendable { let fd: Int32 }
    public struct TimerID: Hashable, Sendable { let raw: UInt64 }

    private let epfd: Int32
    private let timerfd: Int32
    private let wakefd: Int32
    private var watches: [Int32: Action] = [:]
    private var timers: [UInt64: (due: Double, action: Action)] = [:]
    private var nextTimer: UInt64 = 1
    private var armedFor: Double? = nil
    private var stopping = false
    private let inbox = Mutex<[@Sendable () -> Void]>([])

    public init() throws(LoopError) {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        if epfd < 0 { throw LoopError("epoll_create1", errno) }
        timerfd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        if timerfd < 0 { throw LoopError("timerfd_create", errno) }
        wakefd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        if wakefd < 0 { throw LoopError("eventfd", errno) }
        try add(timerfd)
        try add(wakefd)
    }

    deinit {
        close(epfd); close(timerfd); close(wakefd)
    }

    /// Seconds on CLOCK_MONOTONIC: the same scale as the kernel's GPIO event timestamps.
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Seconds since the epoch, for the times the status document shows.
    public static func wall() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    private func add(_ fd: Int32) throws(LoopError) {
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue
        ev.data.fd = fd
        if epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 { throw LoopError("epoll_ctl add fd \(fd)", errno) }
    }

    /// Calls `action` on the loop thread whenever `fd` is readable.
    @discardableResult
    public func watch(fd: Int32, _ action: @escaping Action) throws(LoopError) -> WatchID {
        if watches[fd] == nil { try add(fd) }
        watches[fd] = action
        return WatchID(fd: fd)
    }

    /// Stops watching; safe to call twice and after the fd was closed.
    public func unwatch(_ id: WatchID) {
        guard watches.removeValue(forKey: id.fd) != nil else { return }
        epoll_ctl(epfd, EPOLL_CTL_DEL, id.fd, nil)
    }

    /// Runs `action` once at `due` (monotonic seconds).
    @discardableResult
    public func schedule(at due: Double, _ action: @escaping Action) -> TimerID {
        let id = nextTimer
        nextTimer += 1
        timers[id] = (due, action)
        rearm()
        return TimerID(raw: id)
    }

    public func cancel(_ id: TimerID?) {
        guard let id, timers.removeValue(forKey: id.raw) != nil else { return }
        rearm()
    }

    /// Hands work to the loop thread from any thread.
    public func post(_ work: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.append(work) }
        var one: UInt64 = 1
        _ = write(wakefd, &one, 8)
    }

    /// Ends `run()` after the current turn.
    public func stop() { stopping = true }

    private func rearm() {
        let due = timers.values.map(\.due).min()
        if due == armedFor { return }
        armedFor = due
        var spec = itimerspec()
        if let due {
            // An absolute time in the past still fires: the kernel treats it as due now.
            let d = max(due, 1e-9)
            spec.it_value.tv_sec = Int(d)
            spec.it_value.tv_nsec = max(1, Int((d - Double(Int(d))) * 1e9))
        }
        timerfd_settime(timerfd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    private func runDueTimers() {
        var expirations: UInt64 = 0
        _ = read(timerfd, &expirations, 8)
        armedFor = nil
        let now = EventLoop.monotonic()
        let due = timers.filter { $0.value.due <= now }.sorted { $0.value.due < $1.value.due }
        for (id, timer) in due {
            timers.removeValue(forKey: id)
            timer.action()
        }
        rearm()
    }

    private func drainInbox() {
        var count: UInt64 = 0
        _ = read(wakefd, &count, 8)
        let work = inbox.withLock { q -> [@Sendable () -> Void] in
            let w = q
            q.removeAll()
            return w
        }
        for w in work { w() }
    }

    /// Waits on every descriptor and timer until `stop()`.
    public func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 32)
        while !stopping {
            let n = epoll_wait(epfd, &events, Int32(events.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            for i in 0..<Int(n) {
                let fd = events[i].data.fd
                if fd == timerfd { runDueTimers() }
                else if fd == wakefd { drainInbox() }
                else if let action = watches[fd] { action() }
                if stopping { break }
            }
        }
    }
}

/// A failed system call of the loop, in words.
public struct LoopError: Error, CustomStringConvertible {
    public let description: String
    init(_ call: String, _ code: Int32) {
        description = "loop: \(call) failed: \(String(cString: strerror(code)))"
    }
}
