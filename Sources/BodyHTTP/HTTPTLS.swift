/// What the server needs to serve HTTPS: the key and certificate
/// in PEM, as libmicrohttpd takes them (MHD_OPTION_HTTPS_MEM_KEY and _CERT).
public struct HTTPTLS: Sendable {
    public var key: [UInt8]
    public var certificate: [UInt8]
    /// GnuTLS's priority string for the handshake (MHD_OPTION_HTTPS_PRIORITIES).
    public var priorities: String = HTTPTLS.priorities

    public init(key: [UInt8], certificate: [UInt8]) {
        self.key = key
        self.certificate = certificate
    }

    /// The one place the body's TLS settings are chosen (docs/tls.md
    /// compares them with Mozilla's profiles). Every client the body has
    /// (Oriel over libcurl, Chromium, Prometheus) speaks TLS 1.3, so nothing
    /// older is offered. GnuTLS reads the string once, at the daemon's start;
    /// a string it cannot read stops the start with its reason in the log.
    public static let priorities = [
        // GnuTLS's own defaults for whatever the parts below do not name
        // (signature algorithms, extensions), rather than a hand-kept list.
        "NORMAL",
        // TLS 1.3 only: no TLS 1.0/1.1, and no TLS 1.2 with its CBC and
        // SHA-1 suites. TLS 1.3 has no renegotiation at all, which GnuTLS has
        // no keyword to turn off (there is no %NO_RENEGOTIATION; removing the
        // RFC 5746 extension instead would lock out OpenSSL 3's clients at 1.2).
        "-VERS-ALL", "+VERS-TLS1.3",
        // AEAD ciphers only, TLS 1.3's three; ChaCha20 for a Pi without AES
        // instructions, AES-GCM for clients with them (the client's order wins).
        "-CIPHER-ALL", "+CHACHA20-POLY1305", "+AES-128-GCM", "+AES-256-GCM",
        // The AEAD's own integrity: no HMAC-SHA1 (that is CBC's).
        "-MAC-ALL", "+AEAD",
        // Elliptic-curve key shares only (Mozilla's list): no slow finite-field DHE on the Pi.
        "-GROUP-ALL", "+GROUP-X25519", "+GROUP-SECP256R1", "+GROUP-SECP384R1",
    ].joined(separator: ":")
}

extension HTTPServer {
    /// Whether the server speaks TLS.
    public var servesTLS: Bool { tls != nil }
}
