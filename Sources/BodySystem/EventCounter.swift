/// A counter another thread adds to so the loop wakes: the kernel's eventfd,
/// close-on-exec and non-blocking. Closed on `close()`, safe twice.
/// The C function is `eventfd`.
public final class EventCounter: @unchecked Sendable {
    // Written only by init and close, which the owner calls on its own thread.
    /// Stored privately, read through `descriptor`: a public stored property
    /// may be read from other modules, so each read here would be a runtime
    /// exclusivity check, at every wake.
    private var fd: FileDescriptor?
    public var descriptor: FileDescriptor? { fd }

    public init() throws(Errno) {
        fd = FileDescriptor(rawValue: try valueOrErrno { system_eventfd(nonBlocking: true) }.get())
    }

    deinit { close() }

    /// Adds `n`. A counter already at its maximum (EAGAIN) will wake its
    /// reader anyway, so that is not an error.
    public func signal(_ n: UInt64 = 1) throws(Errno) {
        guard let fd = descriptor?.rawValue else { throw Errno.badFileDescriptor }
        var value = n
        let written = try valueOrNilIfWouldBlock(valueOrErrno {
            withUnsafeBytes(of: &value) { system_write(fd, $0.baseAddress, $0.count) }
        }).get()
        if let written, written != 8 { throw Errno.ioError }
    }

    /// Takes the count and sets it to zero; 0 when nothing was added (EAGAIN).
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
