/// Checks `Authorization: Bearer <token>` against the body's token.
public struct BearerAuth: Sendable {
    private let token: [UInt8]

    public init(token: String) {
        self.token = Array(token.utf8)
    }

    /// True only for the scheme `Bearer` (any case) followed by exactly the token.
    /// Read in place, no copy of the header: it runs on every request.
    public func allows(_ authorizationHeader: String?) -> Bool {
        allows(authorizationHeader.map { $0[...] })
    }

    /// The same for a request's `Authorization` header, its bytes read where
    /// the request keeps them: it runs twice a request.
    public func allows(_ request: HTTPRequest) -> Bool {
        request.headers.withValue("authorization") { $0.map(check) ?? false }
    }

    /// The same for the header as the request holds it (a `Substring` of its `HTTPFields`).
    public func allows<Header: StringProtocol>(_ authorizationHeader: Header?) -> Bool {
        guard let header = authorizationHeader else { return false }
        return header.utf8.withContiguousStorageIfAvailable(check) ?? Array(header.utf8).withUnsafeBufferPointer(check)
    }

    private func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let scheme: StaticString = "bearer "
        let n = scheme.utf8CodeUnitCount
        guard bytes.count >= n,
              scheme.withUTF8Buffer({ s in (0..<n).allSatisfy { (bytes[$0] | 0x20) == s[$0] } }) // ASCII lower-case; NUL never reaches here
        else { return false }
        var start = n
        while start < bytes.count, bytes[start] == 0x20 { start += 1 }
        var end = bytes.count
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return matches(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    /// The bare token (the page's sign-in form), compared the same way.
    public func allows(token given: String?) -> Bool {
        guard var given else { return false }
        return given.withUTF8 { matches($0) }
    }

    /// Constant time: one loop over every given byte, eight at a time, with no
    /// early exit, whatever the length; a length that differs only starts the
    /// difference at 1 and reads the token round, so timing tells nothing of the
    /// token, nor of its length. Word-wise: a byte at a time would be
    /// most of a check, two a request.
    private func matches(_ given: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !token.isEmpty else { return false }
        return token.withUnsafeBytes { token in
            let given = UnsafeRawBufferPointer(given)
            let sameLength = given.count == token.count
            var diff: UInt64 = sameLength ? 0 : 1
            var i = 0, j = 0
            // Words only from a token of a word or more; `j` wraps before a read past its end.
            let words = token.count >= 8
            while words && i + 8 <= given.count {
                diff |= given.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    ^ token.loadUnaligned(fromByteOffset: j, as: UInt64.self)
                i += 8
                j += 8
                if j + 8 > token.count { j = 0 }
            }
            // The tail: the same place in the token when the lengths match, round it when not.
            var t = sameLength ? i : j
            while i < given.count {
                diff |= UInt64(given[i] ^ token[t])
                i += 1
                t += 1
                if t == token.count { t = 0 }
            }
            return diff == 0
        }
    }
}
