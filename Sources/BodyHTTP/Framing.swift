/// How a request's head says its body ends (RFC 9112 section 6.3), read
/// before libmicrohttpd reads the body. MHD 0.9.75 frames a request with both
/// Content-Length and Transfer-Encoding by the latter, and one with two
/// Content-Lengths by the first, and keeps the connection either way: a
/// request hidden in the body would be served next. Such a head is
/// refused, and its connection closed. `package` for Fuzz/FuzzRouting.
package enum Framing: Equatable {
    case none
    case length(Int)
    case chunked
    /// A 400 with these words, and the connection closed.
    case refused(String)

    /// `headers` as `HTTPRequest` has them: names lower-cased, repeats joined with ", ".
    package init(headers: [String: String]) { self.init(headers: HTTPFields(headers)) }

    package init(headers: HTTPFields) {
        // The usual head (no Transfer-Encoding, one Content-Length or none) is
        // read from the value's bytes: a string of it would be a fifth of a push's head.
        if headers.withValue("transfer-encoding", { $0 == nil }) {
            let length: Int?? = headers.withValue("content-length") { $0.map(Self.digits) }
            switch length {
            case nil: self = .none; return
            case let n?? : self = .length(n); return
            case .some(nil): break  // not digits alone: said in words below
            }
        }
        let length = headers["content-length"]
        if let coding = headers["transfer-encoding"] {
            if length != nil {
                self = .refused("the request has both Content-Length and Transfer-Encoding, "
                    + "so where its body ends is unclear (RFC 9112 section 6.3); the connection is closed")
            } else if coding.lowercased() != "chunked" {
                // MHD 0.9.75 reads any other coding as a body that never ends.
                self = .refused("the request's Transfer-Encoding is \(Self.shown(coding)); "
                    + "only chunked is spoken here; the connection is closed")
            } else {
                self = .chunked
            }
            return
        }
        guard let length else { self = .none; return }
        // MHD has checked the first value is a number; more than one shows as "5, 6".
        guard !length.isEmpty, length.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            self = .refused("the request has more than one Content-Length (\(Self.shown(length))); "
                + "the connection is closed")
            return
        }
        self = .length(Int(length) ?? .max)
    }

    /// A value of digits alone as a number (`.max` when too large, as
    /// `Int(_:) ?? .max` reads it below); nil when empty or anything but digits.
    private static func digits(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !value.isEmpty else { return nil }
        var n = 0
        var over = false
        for b in value {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            let (times, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(b - 0x30))
            over = over || o1 || o2
            n = sum
        }
        return over ? .max : n
    }

    /// A client's value in quotes, cut to 40 printable characters: it goes into the answer and the log.
    private static func shown(_ value: Substring) -> String {
        let printable = value.unicodeScalars.prefix(40).map { (0x20..<0x7F).contains($0.value) && $0 != "\"" ? Character($0) : "?" }
        return "\"" + String(printable) + (value.unicodeScalars.count > 40 ? "…\"" : "\"")
    }
}
