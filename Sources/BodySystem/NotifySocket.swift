/// systemd's notify socket (`NOTIFY_SOCKET`): one datagram a state, without
/// libsystemd. A socket is made for each send and closed after it, as
/// `sd_notify` does, so nothing is held between the watchdog's pings.
public struct NotifySocket: Sendable, Equatable {
    /// The path as systemd gives it; "@name" is an abstract socket.
    public let path: String

    /// nil for no path or an empty one: there is no systemd to tell.
    public init?(path: String?) {
        guard let path, !path.isEmpty else { return nil }
        self.path = path
    }

    /// The socket systemd gave this process; nil outside systemd.
    public static func fromEnvironment() -> NotifySocket? {
        NotifySocket(path: CurrentProcess.environment("NOTIFY_SOCKET"))
    }

    /// Sends `state` ("READY=1", "WATCHDOG=1", ...). A path longer than a
    /// socket's address holds is ENAMETOOLONG; a socket not there is ENOENT,
    /// one nobody reads ECONNREFUSED. The C functions are `socket` and `sendto`.
    public func send(_ state: String) throws(Errno) {
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // an abstract socket
        // A path socket's name needs its NUL; an abstract one's length is its own.
        guard bytes.count < system_unix_path_capacity else { throw Errno.nameTooLong }
        _ = try valueOrErrno { system_send_datagram(to: bytes, Array(state.utf8)) }.get()
    }
}
