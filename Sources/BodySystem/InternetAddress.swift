/// An IPv4 or IPv6 address with a port, from numeric text ("127.0.0.1",
/// "::"), as the `sockaddr_in` or `sockaddr_in6` a C library takes.
/// The C function is `inet_pton`.
public struct InternetAddress: Sendable, Equatable {
    private let bytes: [UInt8]
    public let isIPv6: Bool
    /// The wildcard address (0.0.0.0 or ::): every interface.
    public let isAny: Bool

    /// nil when `numeric` is neither an IPv4 nor an IPv6 address (a name is not resolved).
    public init?(numeric: String, port: UInt16) {
        guard let made = system_socket_address(numeric, port) else { return nil }
        (bytes, isIPv6, isAny) = made
    }

    /// The `sockaddr` bytes and their length, for as long as `body` runs.
    public func withSocketAddress<T>(_ body: (UnsafeRawPointer, Int) -> T) -> T {
        bytes.withUnsafeBytes { body($0.baseAddress!, $0.count) }
    }
}
