/// The URL the hello tells Oriel (DESIGN 5) and `studio-body check` prints.
public enum BodyURL {
    /// Why the URL is what it is, for `check`.
    public enum Source: Equatable, Sendable {
        case configured, announced, listenAddress, hostName
    }

    /// `[body] url` when set. Else, for a body listening on every address while
    /// it is announced over mDNS, Avahi's own host name (`studio.local`): the
    /// name every mDNS resolver on the network finds, where the bare host name
    /// is usually found by none. Else the listen address, or the bare host name.
    /// `tls` says the scheme: `https` when the body serves HTTPS.
    public static func choose(configured: String?, announcedHost: String?, listenHost: String,
                              hostName: String?, port: UInt16, tls: Bool) -> (url: String, source: Source) {
        if let configured { return (configured, .configured) }
        let scheme = tls ? "https" : "http"
        let everywhere = listenHost == "0.0.0.0" || listenHost == "::"
        if everywhere, let announced = announcedHost, !announced.isEmpty {
            return ("\(scheme)://\(HostText.withPort(announced, port))", .announced)
        }
        if !everywhere { return ("\(scheme)://\(HostText.withPort(listenHost, port))", .listenAddress) }
        return ("\(scheme)://\(HostText.withPort(hostName ?? "localhost", port))", .hostName)
    }
}
