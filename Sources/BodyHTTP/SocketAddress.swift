internal import CMicroHTTPD
import BodyCore
import BodySystem

/// An IPv4 or IPv6 listening address from text (BodySystem's `InternetAddress`),
/// as the `sockaddr` libmicrohttpd takes.
struct SocketAddress: CustomStringConvertible {
    private let address: InternetAddress
    var isIPv6: Bool { address.isIPv6 }
    var isAny: Bool { address.isAny }
    let description: String

    init(host: String, port: UInt16) throws(HTTPServerError) {
        let name = host == "localhost" ? "127.0.0.1" : host
        description = HostText.withPort(name, port)
        guard let address = InternetAddress(numeric: name, port: port) else {
            throw HTTPServerError("http: cannot listen on \"\(host)\": not an IPv4 or IPv6 address")
        }
        self.address = address
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        address.withSocketAddress { raw, _ in body(raw.assumingMemoryBound(to: sockaddr.self)) }
    }
}
