import BodySystem

/// systemd's notify protocol without libsystemd: one datagram to NOTIFY_SOCKET
/// (BodySystem's `NotifySocket`). Outside systemd (no NOTIFY_SOCKET) every
/// call does nothing.
public struct Notify: Sendable {
    private let socket: NotifySocket?

    public init() {
        socket = NotifySocket.fromEnvironment()
    }

    /// For a test: the socket path as NOTIFY_SOCKET would give it.
    init(path: String?) { socket = NotifySocket(path: path) }

    /// Half of WATCHDOG_USEC in seconds when systemd asks for pings (and the
    /// ask is for this process), else nil.
    public static func watchdogInterval() -> Double? {
        guard let raw = CurrentProcess.environment("WATCHDOG_USEC"), let usec = Double(raw), usec > 0 else { return nil }
        if let pid = CurrentProcess.environment("WATCHDOG_PID"), Int32(pid) != CurrentProcess.id { return nil }
        return usec / 1e6 / 2
    }

    /// Sends `state`; the failure in words, or nil when it went (or when
    /// there is no systemd to tell). A watchdog ping that does not go gets
    /// the body killed, so its caller says why.
    @discardableResult
    public func send(_ state: String) -> String? {
        guard let socket else { return nil }
        let what = state.split(separator: "\n").first.map(String.init) ?? state
        do throws(Errno) {
            try socket.send(state)
            return nil
        } catch where error == .nameTooLong {
            return "systemd: NOTIFY_SOCKET \(socket.path) is longer than a socket path may be"
        } catch {
            return "systemd: cannot send \(what) to \(socket.path): \(error.words)"
        }
    }
}
