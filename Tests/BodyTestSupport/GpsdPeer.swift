import Glibc

/// A listening socket on 127.0.0.1 standing where gpsd would: the test plays
/// gpsd's side, line by line, and can hang up mid-line.
public final class GpsdPeer {
    let listener: Int32
    public private(set) var conn: Int32 = -1
    public let port: UInt16

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let bound = bindLoopback(fd, listen: 4)
        listener = fd
        port = bound ?? 0
        guard bound != nil else { throw FixtureError("peer: \(String(cString: strerror(errno)))") }
    }

    /// Accepts the session and returns the first thing it said; "" when
    /// nobody connected within 2 s (a test that fails rather than hangs).
    public func accept() -> String {
        var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 2000) == 1 else { return "" }
        conn = Glibc.accept(listener, nil, nil)
        var buf = [UInt8](repeating: 0, count: 512)
        let n = recv(conn, &buf, buf.count, 0)
        return String(decoding: buf.prefix(max(0, n)), as: UTF8.self)
    }

    public func send(_ s: String) { _ = s.withCString { Glibc.send(conn, $0, strlen($0), 0) } }
    public func hangUp() { close(conn); conn = -1 }
    deinit { if conn >= 0 { close(conn) }; close(listener) }
}

/// A test's fixture could not be set up, in words.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
