/// The page's session cookie: its name, reading it from a
/// request's `Cookie` header, and the `Set-Cookie` values that give and end it.
public enum SessionCookie {
    public static let name = "studio-body-session"

    /// The value of our cookie in a `Cookie` header (`a=1; studio-body-session=…`), or nil.
    public static func value(in header: String?) -> String? {
        value(in: header.map { $0[...] })
    }

    /// The same for the header as the request holds it (a `Substring` of its `HTTPFields`).
    public static func value<Header: StringProtocol>(in header: Header?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " || $0 == "\t" }
            guard let eq = trimmed.firstIndex(of: "=") else { continue }
            if trimmed[..<eq].elementsEqual(name) {
                let value = trimmed[trimmed.index(after: eq)...].filter { $0 != " " && $0 != "\t" && $0 != "\"" }
                return value.isEmpty ? nil : String(value)
            }
        }
        return nil
    }

    /// Script cannot read it (`HttpOnly`), another site's page cannot send it
    /// (`SameSite=Strict`), the whole page has it (`Path=/`), and the browser
    /// drops it when the session ends (`Max-Age`).
    public static func give(_ id: String, seconds: Int) -> (String, String) {
        ("Set-Cookie", "\(name)=\(id); HttpOnly; SameSite=Strict; Path=/; Max-Age=\(seconds)")
    }

    /// Ends the cookie in the browser.
    public static let end = ("Set-Cookie", "\(name)=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
}

/// An HTML form's body (`application/x-www-form-urlencoded`): `a=1&b=two+words`.
public enum FormBody {
    /// The fields, `+` as a space and `%XX` decoded; a malformed escape is kept as written.
    public static func parse(_ bytes: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for part in bytes.split(separator: UInt8(ascii: "&")) {
            let kv = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let key = decode(kv[0])
            if fields[key] == nil { fields[key] = kv.count > 1 ? decode(kv[1]) : "" }
        }
        return fields
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(0x20)
            } else if b == UInt8(ascii: "%"), i + 2 < bytes.endIndex,
                      let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 2
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
