import Glibc
import BodyCore

/// An IPv4 or IPv6 listening address from text.
struct SocketAddress: CustomStringConvertible {
    private var v4 = sockaddr_in()
    private var v6 = sockaddr_in6()
    let isIPv6: Bool
    let isAny: Bool
    let description: String

    init(host: String, port: UInt16) throws(HTTPServerError) {
        let name = host == "localhost" ? "127.0.0.1" : host
        description = HostText.withPort(name, port)
        if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            isIPv6 = false
            isAny = v4.sin_addr.s_addr == 0
        } else if inet_pton(AF_INET6, name, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            isIPv6 = true
            isAny = name == "::"
        } else {
            throw HTTPServerError("http: cannot listen on \"\(host)\": not an IPv4 or IPv6 address")
        }
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        if isIPv6 {
            var a = v6
            return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        var a = v4
        return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }
}
