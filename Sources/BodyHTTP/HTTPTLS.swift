/// What the server needs to serve HTTPS (issue 19): the key and certificate
/// in PEM, as libmicrohttpd takes them (MHD_OPTION_HTTPS_MEM_KEY and _CERT).
public struct HTTPTLS: Sendable {
    public var key: [UInt8]
    public var certificate: [UInt8]

    public init(key: [UInt8], certificate: [UInt8]) {
        self.key = key
        self.certificate = certificate
    }
}

extension HTTPServer {
    /// Whether the server speaks TLS.
    public var servesTLS: Bool { tls != nil }
}
