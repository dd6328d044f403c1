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

    deinit { close() }

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

    /// Waits until something is ready, at most `timeout` milliseconds (-1: no
    /// limit); a signal that interrupts the wait waits again.
    public func wait(maxEvents: Int = 32, timeout: Int32 = -1) throws(Errno) -> [Event] {
        guard let epfd = descriptor?.rawValue else { throw Errno.badFileDescriptor }
        var ready: [(events: UInt32, data: UInt64)] = []
        _ = try valueOrErrno { () -> Int32 in
            ready.removeAll(keepingCapacity: true)
            return system_epoll_wait(epfd, maxEvents, timeout, &ready)
        }.get()
        return ready.map { Event(events: Events(rawValue: $0.events), registration: $0.data) }
    }

    public func close() {
        guard let fd = descriptor else { return }
        descriptor = nil
        // Nothing to do about a failed close: the descriptor is gone either way.
        try? fd.close()
    }
}
