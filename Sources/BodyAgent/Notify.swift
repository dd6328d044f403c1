import Glibc
import BodySystem

/// systemd's notify protocol without libsystemd: one datagram to NOTIFY_SOCKET.
/// Outside systemd (no NOTIFY_SOCKET) every call does nothing.
public struct Notify: Sendable {
    private let path: String?

    public init() {
        path = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
    }

    /// For a test: the socket path as NOTIFY_SOCKET would give it.
    init(path: String?) { self.path = path }

    /// Half of WATCHDOG_USEC in seconds when systemd asks for pings (and the
    /// ask is for this process), else nil.
    public static func watchdogInterval() -> Double? {
        guard let raw = getenv("WATCHDOG_USEC"), let usec = Double(String(cString: raw)), usec > 0 else { return nil }
        if let pid = getenv("WATCHDOG_PID"), Int32(String(cString: pid)) != getpid() { return nil }
        return usec / 1e6 / 2
    }

    /// Sends `state`; the failure in words, or nil when it went (or when
    /// there is no systemd to tell). A watchdog ping that does not go gets
    /// the body killed, so its caller says why.
    @discardableResult
    public func send(_ state: String) -> String? {
        guard let path, !path.isEmpty else { return nil }
        let what = state.split(separator: "\n").first.map(String.init) ?? state
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return "systemd: cannot make a socket to send \(what): \(Errno.current.words)" }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // an abstract socket
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { return "systemd: NOTIFY_SOCKET \(path) is longer than a socket path may be" }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let sent = state.withCString { msg in
            withUnsafePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    sendto(fd, msg, strlen(msg), Int32(MSG_NOSIGNAL), sa, length)
                }
            }
        }
        return sent < 0 ? "systemd: cannot send \(what) to \(path): \(Errno.current.words)" : nil
    }
}
