/// A program the body starts and must end: the Pi camera's source
/// (`rpicam-vid`), run by `/bin/sh -c` in a process group of its own so
/// that ending it ends whatever it started. Whoever spawns it ends it.
public final class ChildProcess {
    public let pid: Int32
    public let command: String
    /// How it ended, once known.
    public private(set) var ended: Ending?

    public enum Ending: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// "exited with status 1", "ended by signal 13 (SIGPIPE)".
        public var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signalled(let signal): "ended by signal \(signal)" + (Self.names[signal].map { " (\($0))" } ?? "")
            }
        }

        static let names: [Int32: String] = [1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"]

        /// From a wait status, as the C macros WIFEXITED and WTERMSIG read it.
        init(status: Int32) {
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        }
    }

    private init(pid: Int32, command: String) {
        self.pid = pid
        self.command = command
    }

    /// Starts `/bin/sh -c command` with its standard output on `output`
    /// (standard input and error are this process's). The C function is
    /// `posix_spawn`.
    public static func spawnShell(_ command: String, output: FileDescriptor) throws(Errno) -> ChildProcess {
        let pid = try valueOrErrno(retryOnInterrupt: false) { system_spawn_shell(command, output: output.rawValue) }.get()
        return ChildProcess(pid: pid, command: command)
    }

    /// Whether it has ended, without waiting; reaps it if so. The C function
    /// is `waitpid` with WNOHANG.
    @discardableResult
    public func poll() throws(Errno) -> Ending? {
        if let ended { return ended }
        var status: Int32 = 0
        let pid = try valueOrErrno { system_wait_nohang(self.pid, &status) }.get()
        if pid == self.pid { ended = Ending(status: status) }
        return ended
    }

    /// Waits until it ends by itself, and reaps it. The C function is `waitpid`.
    public func wait() throws(Errno) -> Ending {
        if let ended { return ended }
        var status: Int32 = 0
        _ = try valueOrErrno { system_wait(self.pid, &status) }.get()
        let ending = Ending(status: status)
        ended = ending
        return ending
    }

    /// Ends it: SIGTERM to its process group, then SIGKILL if it has not
    /// ended within `grace` seconds; waits until it has, and reaps it.
    /// Steps of 20 ms: it is the feeder's own end, not the body's loop.
    public func end(grace: Double = 1) -> Ending? {
        if let ended = try? poll() { return ended }
        _ = system_kill(-pid, system_SIGTERM)
        for _ in 0..<max(1, Int(grace / 0.02)) {
            SystemClock.sleep(0.02)
            if let ended = try? poll() { return ended }
        }
        _ = system_kill(-pid, system_SIGKILL)
        for _ in 0..<250 {
            if let ended = try? poll() { return ended }
            SystemClock.sleep(0.02)
        }
        return nil
    }
}
