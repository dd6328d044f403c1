/// One timer on CLOCK_MONOTONIC, armed for an absolute time: the kernel's
/// timerfd, close-on-exec and non-blocking. Closed on `close()`, safe twice.
/// The C functions are `timerfd_create` and `timerfd_settime`.
public final class MonotonicTimer {
    /// Stored privately, read through `descriptor`: a public stored property
    /// may be read from other modules, so each read here would be a runtime
    /// exclusivity check, at every wake.
    private var fd: FileDescriptor?
    public var descriptor: FileDescriptor? { fd }

    public init() throws(Errno) {
        fd = FileDescriptor(rawValue: try valueOrErrno { system_timerfd_create_monotonic() }.get())
    }

    deinit { close() }

    /// Fires once at `due` (monotonic seconds, as `SystemClock.monotonic`);
    /// nil disarms. A time already past fires at once.
    public func arm(at due: Double?) throws(Errno) {
        guard let fd = descriptor?.rawValue else { throw Errno.badFileDescriptor }
        var seconds = 0, nanoseconds = 0
        if let due {
            // Zero would disarm: the earliest time there is stands for "now".
            let d = max(due, 1e-9)
            seconds = Int(d)
            nanoseconds = max(1, Int((d - Double(seconds)) * 1e9))
        }
        try nothingOrErrno { system_timerfd_settime_absolute(fd, seconds, nanoseconds) }.get()
    }

    /// How often it fired since the last drain; 0 when it has not (EAGAIN).
    public func drain() throws(Errno) -> UInt64 {
        guard let fd = descriptor else { throw Errno.badFileDescriptor }
        return try fd.readCounter() ?? 0
    }

    public func close() {
        guard let fd else { return }
        self.fd = nil
        try? fd.close()
    }
}
