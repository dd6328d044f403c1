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

    /// The set's descriptor; nil once closed.
    public var descriptor: FileDescriptor? { raw < 0 ? nil : FileDescriptor(rawValue: raw) }
    /// The number itself, -1 once closed: a private plain integer, which the
    /// optimizer can prove no access overlaps, so a wait makes no runtime
    /// exclusivity check for it (a public optional would be one a wait).
    private var raw: Int32
    /// Where the kernel's events land, made again only when a wait asks for
    /// more than it holds; `wait` reads them in place.
    private var events: EventBuffer

    /// A set whose buffer holds `capacity` events at first (a wait that asks
    /// for more makes it bigger).
    public init(capacity: Int = 32) throws(Errno) {
        raw = try valueOrErrno { system_epoll_create1() }.get()
        events = EventBuffer(capacity: Swift.max(1, capacity))
    }

    deinit {
        close()
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
        let epfd = raw
        guard epfd >= 0 else { throw Errno.badFileDescriptor }
        try nothingOrErrno { system_epoll_ctl(epfd, op, fd.rawValue, events.rawValue, registration) }.get()
    }

    /// Waits until something is ready, at most `timeout` milliseconds (-1: no
    /// limit), for at most `maxEvents` events; a signal that
    /// interrupts the wait waits again. The events are read where the kernel
    /// wrote them, in a buffer the next wait reuses once they are let go.
    public func wait(maxEvents: Int = 32, timeout: Int32 = -1) throws(Errno) -> Ready {
        let epfd = raw
        guard epfd >= 0 else { throw Errno.badFileDescriptor }
        let max = Swift.max(1, maxEvents)
        // A `Ready` still held (a wait from inside an action walking the last one)
        // keeps its events: this wait takes a buffer of its own, never writes over them.
        if events.capacity < max || !isKnownUniquelyReferenced(&events) { events = EventBuffer(capacity: max) }
        let events = self.events
        let n = try valueOrErrno { system_epoll_wait(epfd, events.start, Int32(max), timeout) }.get()
        return Ready(events: events, count: Int(n))
    }

    /// The events one wait reported, read from the set's buffer as they are
    /// asked for: no list is made a wait (an array kept by the set
    /// would be three runtime exclusivity checks a wait). It holds the buffer, so
    /// it is never read after the buffer is freed.
    public struct Ready: RandomAccessCollection {
        let events: EventBuffer
        public let count: Int

        public var startIndex: Int { 0 }
        public var endIndex: Int { count }

        public subscript(i: Int) -> Event {
            precondition(i >= 0 && i < count, "an epoll event past those reported")
            let (mask, data) = system_epoll_event_fields(events.start[i])
            return Event(events: Events(rawValue: mask), registration: data)
        }
    }

    /// The kernel's events, allocated once for the set's life and freed with
    /// the last holder (the set, or a `Ready` kept past it).
    final class EventBuffer {
        let start: UnsafeMutablePointer<system_epoll_event>
        let capacity: Int

        init(capacity: Int) {
            start = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        deinit { start.deallocate() }
    }

    public func close() {
        let fd = raw
        guard fd >= 0 else { return }
        raw = -1
        // Nothing to do about a failed close: the descriptor is gone either way.
        try? FileDescriptor(rawValue: fd).close()
    }
}
