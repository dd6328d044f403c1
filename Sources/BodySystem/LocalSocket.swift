/// Stream sockets on a local path (AF_UNIX): how the body wakes the Pi
/// camera's feeder, and how the feeder hears it. The descriptors are
/// non-blocking and close-on-exec; the caller owns and closes them.
public enum LocalSocket {
    /// Connects to the socket at `path`. Nothing there is ENOENT; a socket
    /// nobody listens on is ECONNREFUSED; a full queue is EAGAIN. The C
    /// functions are `socket` and `connect`.
    public static func connect(path: String) throws(Errno) -> FileDescriptor {
        let bytes = Array(path.utf8)
        guard bytes.count < system_unix_path_capacity else { throw Errno.nameTooLong }
        // A connect that a signal interrupts goes on in the kernel: not made twice.
        let fd = try valueOrErrno(retryOnInterrupt: false) { system_connect_local(bytes) }.get()
        return FileDescriptor(rawValue: fd)
    }

    /// The next connection waiting on `listening`; nil when none is (EAGAIN).
    /// The C function is `accept4`.
    public static func accept(from listening: FileDescriptor) throws(Errno) -> FileDescriptor? {
        try valueOrNilIfWouldBlock(valueOrErrno { system_accept(listening.rawValue) }).get()
            .map { FileDescriptor(rawValue: $0) }
    }
}

extension FileDescriptor {
    /// Waits until one of `descriptors` can be read (or has ended) or
    /// `seconds` pass (nil: no limit); which ones can, in order. The C
    /// function is `poll`.
    public static func waitReadable(_ descriptors: [FileDescriptor], seconds: Double?) throws(Errno) -> [Bool] {
        let ms = seconds.map { Int32(min(max(0, ($0 * 1000).rounded(.up)), 3_600_000)) } ?? -1
        var ready = [Bool](repeating: false, count: descriptors.count)
        _ = try valueOrErrno { system_poll_readable(descriptors.map(\.rawValue), &ready, ms) }.get()
        return ready
    }

    /// Makes the descriptor close-on-exec and non-blocking (one handed over
    /// by systemd is neither). The C function is `fcntl`.
    public func makeNonBlocking() throws(Errno) {
        try nothingOrErrno { system_set_cloexec_nonblock(rawValue) }.get()
    }
}
