// The small text rules the body writes in more than one place, once.

extension String {
    /// Without the spaces, tabs, carriage returns and line feeds at either end.
    public var trimmed: String {
        func blank(_ c: Character) -> Bool { c == " " || c == "\t" || c == "\r" || c == "\n" }
        var s = Substring(self)
        while let f = s.first, blank(f) { s.removeFirst() }
        while let l = s.last, blank(l) { s.removeLast() }
        return String(s)
    }

    /// The pieces one after another in one String, its room reserved once:
    /// an interpolation grows its String two or three times on the way, and
    /// a press's words are made at every press.
    public static func joined(_ a: String, _ b: String, _ c: String = "", _ d: String = "", _ e: String = "") -> String {
        var s = String()
        s.reserveCapacity(a.utf8.count + b.utf8.count + c.utf8.count + d.utf8.count + e.utf8.count)
        s += a
        s += b
        s += c
        s += d
        s += e
        return s
    }
}

/// A host as addresses and URLs write it.
public enum HostText {
    /// An IPv6 address in brackets ("[::1]"); any other host as it is.
    public static func bracketed(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    /// "HOST:PORT", an IPv6 host in brackets ("[::1]:2947").
    public static func withPort(_ host: String, _ port: UInt16) -> String {
        "\(bracketed(host)):\(port)"
    }
}
