/// An epoll set whose registrations carry a 64-bit number of the caller's
/// choosing (`epoll_event.data.u64`): the caller keys its watches by that
/// number, never by the descriptor, so an event for a descriptor closed and
/// reused in the same turn can be told from the new one. Closed on `close()`,
/// safe twice. The C functions are `epoll_create1`, `epoll_ctl`, `epoll_wait`.
public final class Epoll {
    public struct Events: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// EPOLLIN
        public static let readable = Events(rawValue: system_EPOLLIN)
        /// EPOLLOUT
        public static let writable = Events(rawValue: system_EPOLLOUT)
        /// EPOLLERR (always reported)
        public static let error = Events(rawValue: system_EPOLLERR)
        /// EPOLLHUP (always reported)
        public static let hangUp = Events(rawValue: system_EPOLLHUP)
        /// EPOLLRDHUP: the peer closed (or shut down) its sending side.
        public static let readHangUp = Events(rawValue: system_EPOLLRDHUP)
        /// EPOLLET: reported once when it becomes so, not for as long as it is.
        public static let edgeTriggered = Events(rawValue: system_EPOLLET)
    }

    /// One ready registration.
    public struct Event: Sendable, Hashable {
        public var events: Events
        /// The number given at `add` or `modify`.
        public var registration: UInt64
    }

    public private(set) var descriptor: FileDescriptor?

    public init() throws(Errno) {
        descriptor = FileDescriptor(rawValue: try valueOrErrno { system_epoll_create1() }.get())
    }

    deinit {
        close()
        buffer?.deallocate()
    }

    public func add(_ fd: FileDescriptor, _ events: Events = .readable, registration: UInt64) throws(Errno) {
        try control(.add, fd, events, registration)
    }

    public func modify(_ fd: FileDescriptor, _ events: Events = .readable, registration: UInt64) throws(Errno) {
        try control(.modify, fd, events, registration)
    }

    public func remove(_ fd: FileDescriptor) throws(Errno) {
        try control(.remove, fd, [], 0)
    }

    private func control(_ op: system_EpollOperation, _ fd: FileDescriptor, _ events: Events, _ registration: UInt64) throws(Errno) {
        guard let epfd = descriptor?.rawValue else { throw Errno.badFileDescriptor }
        try nothingOrErrno { system_epoll_ctl(epfd, op, fd.rawValue, events.rawValue, registration) }.get()
    }

    /// The kernel's events land here, and the list `wait` returns is made
    /// here: both reused from wait to wait, so a wait allocates nothing once
    /// they have grown (issue 21: three arrays a wait, two or three waits a request).
    private var buffer: UnsafeMutablePointer<system_epoll_event>?
    private var capacity = 0
    private var ready: [Event] = []

    /// Waits until something is ready, at most `timeout` milliseconds (-1: no
    /// limit); a signal that interrupts the wait waits again. The list is the
    /// set's own: let it go before the next wait, or that wait copies it.
    public func wait(maxEvents: Int = 32, timeout: Int32 = -1) throws(Errno) -> [Event] {
        guard let epfd = descriptor?.rawValue else { throw Errno.badFileDescriptor }
        let max = Swift.max(1, maxEvents)
        if capacity < max {
            buffer?.deallocate()
            buffer = .allocate(capacity: max)
            capacity = max
        }
        let events = buffer!
        let n = try valueOrErrno { system_epoll_wait(epfd, events, Int32(max), timeout) }.get()
        ready.removeAll(keepingCapacity: true)
        for i in 0..<Int(n) {
            let (mask, data) = system_epoll_event_fields(events[i])
            ready.append(Event(events: Events(rawValue: mask), registration: data))
        }
        return ready
    }

    public func close() {
        guard let fd = descriptor else { return }
        descriptor = nil
        // Nothing to do about a failed close: the descriptor is gone either way.
        try? fd.close()
    }
}
