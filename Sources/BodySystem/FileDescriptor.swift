/// A file descriptor number, with the few calls the body makes on any
/// descriptor. It does not own the descriptor: the type that opened it
/// closes it, once. Modelled on apple/swift-system's `FileDescriptor`.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The process's standard input, output and error (0, 1, 2).
    public static let standardInput = FileDescriptor(rawValue: 0)
    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)

    /// "descriptor 7", for the words of an error.
    public var description: String { "descriptor \(rawValue)" }

    /// Reads at most `buffer.count` bytes. The C function is `read`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { system_read(rawValue, buffer.baseAddress, buffer.count) }.get()
    }

    /// Writes at most `buffer.count` bytes. The C function is `write`.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { system_write(rawValue, buffer.baseAddress, buffer.count) }.get()
    }

    /// Writes every byte, a short write continued where it stopped.
    public func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var sent = 0
        while sent < bytes.count {
            sent += try valueOrErrno {
                bytes.withUnsafeBytes { system_write(rawValue, $0.baseAddress! + sent, $0.count - sent) }
            }.get()
        }
    }

    /// Waits until something can be read or `seconds` pass (nil: no limit);
    /// true when readable. The C function is `poll`.
    public func waitReadable(seconds: Double?) throws(Errno) -> Bool {
        let ms = seconds.map { Int32(min(max(0, ($0 * 1000).rounded(.up)), 3_600_000)) } ?? -1
        return try valueOrErrno { system_poll_readable(rawValue, ms) }.get() > 0
    }

    /// Reads and drops everything waiting, until nothing is left (EAGAIN on a
    /// non-blocking descriptor) or the end of the file.
    public func discardAvailable() throws(Errno) {
        var sink = [UInt8](repeating: 0, count: 256)
        while true {
            let n = try valueOrNilIfWouldBlock(valueOrErrno {
                sink.withUnsafeMutableBytes { system_read(rawValue, $0.baseAddress, $0.count) }
            }).get()
            guard let n, n > 0 else { return }
        }
    }

    /// Reads one 8-byte counter (eventfd, timerfd); nil when none is waiting (EAGAIN).
    func readCounter() throws(Errno) -> UInt64? {
        var value: UInt64 = 0
        let n = try valueOrNilIfWouldBlock(valueOrErrno {
            withUnsafeMutableBytes(of: &value) { system_read(rawValue, $0.baseAddress, $0.count) }
        }).get()
        guard let n else { return nil }
        // The kernel hands these counters over whole; anything else is not a counter.
        if n != 8 { throw Errno.ioError }
        return value
    }

    /// Ends a socket both ways; the descriptor stays open for its owner to
    /// close. The C function is `shutdown`.
    public func shutDown() throws(Errno) {
        try nothingOrErrno { system_shutdown(rawValue) }.get()
    }

    /// Closes the descriptor, without retrying on EINTR (Linux has already
    /// freed it then). The C function is `close`.
    public func close() throws(Errno) {
        try nothingOrErrno(retryOnInterrupt: false) { system_close(rawValue) }.get()
    }

    /// Makes `target` refer to what this descriptor refers to, closing what
    /// `target` referred to, in one step. The C function is `dup2`.
    public func duplicate(as target: FileDescriptor) throws(Errno) {
        _ = try valueOrErrno { system_dup2(rawValue, target.rawValue) }.get()
    }

    /// A pipe, both ends close-on-exec and non-blocking. The C functions are `pipe` and `fcntl`.
    public static func pipe() throws(Errno) -> (read: FileDescriptor, write: FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        try nothingOrErrno { system_pipe(&fds) }.get()
        let ends = (read: FileDescriptor(rawValue: fds[0]), write: FileDescriptor(rawValue: fds[1]))
        do throws(Errno) {
            try nothingOrErrno { system_set_cloexec_nonblock(fds[0]) }.get()
            try nothingOrErrno { system_set_cloexec_nonblock(fds[1]) }.get()
        } catch {
            try? ends.read.close()
            try? ends.write.close()
            throw error
        }
        return ends
    }
}
