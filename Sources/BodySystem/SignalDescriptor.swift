/// Signals as a descriptor a loop watches: the signals are blocked for the
/// process and read from a signalfd instead, close-on-exec and non-blocking.
/// Closed on `close()`, safe twice. The C functions are `sigprocmask` and `signalfd`.
public final class SignalDescriptor {
    public private(set) var descriptor: FileDescriptor?

    /// Blocks `signals` (e.g. SIGTERM, SIGINT) and hears them here.
    public init(_ signals: [Int32]) throws(Errno) {
        descriptor = FileDescriptor(rawValue: try valueOrErrno { system_signalfd_blocking(signals) }.get())
    }

    deinit { close() }

    /// Every signal that would end the process and that can wait for a loop: a body
    /// stopped by any of them darkens the lamp first. A Raspberry Pi kernel keeps a
    /// released output at its last level, so a lamp left lit by an exit stays lit.
    public static var endingSignals: [Int32] { system_ending_signals.map(\.0) }

    /// "SIGHUP" for SIGHUP; "signal N" for one not in `endingSignals`.
    public static func name(of signal: Int32) -> String {
        system_ending_signals.first { $0.0 == signal }?.1 ?? "signal \(signal)"
    }

    /// A write to a closed socket or pipe becomes EPIPE instead of killing the process.
    public static func ignoreBrokenPipe() { system_ignore_sigpipe() }

    /// The signal that arrived; nil when none is waiting (EAGAIN).
    public func take() throws(Errno) -> Int32? {
        guard let fd = descriptor?.rawValue else { throw Errno.badFileDescriptor }
        var signal: Int32 = 0
        let n = try valueOrNilIfWouldBlock(valueOrErrno { system_signalfd_read(fd, &signal) }).get()
        guard let n else { return nil }
        if n != system_signalfd_siginfo_size { throw Errno.ioError }
        return signal
    }

    public func close() {
        guard let fd = descriptor else { return }
        descriptor = nil
        try? fd.close()
    }
}
