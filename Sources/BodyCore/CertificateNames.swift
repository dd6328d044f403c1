/// The names the body's own certificate carries: the host name and
/// `HOST.local`, Avahi's own host name when it differs (`studio-2.local` after
/// a collision, or one set in avahi-daemon.conf), the host of `[body] url`, `localhost`,
/// and this machine's addresses. A client that pins the key needs none of them;
/// one that checks names as well (Prometheus' `server_name`, a browser) finds
/// the one it was given.
public enum CertificateNames {
    public static func choose(hostName: String?, avahiHost: String? = nil, configuredURL: String?,
                              addresses: [String]) -> (dns: [String], ips: [String]) {
        var dns: [String] = []
        var ips: [String] = []
        func add(_ name: String) {
            let n = name.lowercased()
            guard !n.isEmpty, n.utf8.count < 254 else { return }
            if isAddress(n) {
                if !ips.contains(n) { ips.append(n) }
            } else if !dns.contains(n) {
                dns.append(n)
            }
        }
        if let host = hostName, !host.isEmpty {
            add(host)
            if !host.contains(".") { add(host + ".local") }
        }
        if let avahi = avahiHost { add(avahi.hasSuffix(".") ? String(avahi.dropLast()) : avahi) }
        if let url = configuredURL, let host = host(of: url) { add(host) }
        add("localhost")
        for a in addresses { add(a) }
        return (dns, ips)
    }

    /// The host of `scheme://host[:port]/…`, brackets off an IPv6 address.
    static func host(of url: String) -> String? {
        let parts = url.split(separator: "://", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        var rest = parts[1]
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            return String(rest[rest.index(after: rest.startIndex)..<close])
        }
        if let colon = rest.lastIndex(of: ":") { rest = rest[..<colon] }
        return rest.isEmpty ? nil : String(rest)
    }

    /// An IPv4 dotted quad or anything with a colon (IPv6); the C side checks it properly.
    static func isAddress(_ s: String) -> Bool {
        if s.contains(":") { return true }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isNumber) && Int(p)! <= 255 }
    }
}
