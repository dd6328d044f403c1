/// Checks `Authorization: Bearer <token>` against the body's token.
public struct BearerAuth: Sendable {
    private let token: [UInt8]

    public init(token: String) {
        self.token = Array(token.utf8)
    }

    /// True only for the scheme `Bearer` (any case) followed by exactly the token.
    public func allows(_ authorizationHeader: String?) -> Bool {
        guard let header = authorizationHeader else { return false }
        let bytes = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count >= scheme.count,
              zip(bytes, scheme).allSatisfy({ ($0 | 0x20) == $1 }) // ASCII lower-case; NUL never reaches here
        else { return false }
        var given = bytes[scheme.count...].drop { $0 == 0x20 }[...]
        while let last = given.last, last == 0x20 || last == 0x09 { given = given.dropLast() }
        return matches(Array(given))
    }

    /// The bare token (the page's sign-in form), compared the same way.
    public func allows(token given: String?) -> Bool {
        guard let given else { return false }
        return matches(Array(given.utf8))
    }

    /// Constant time: the loop runs over every given byte and never exits early,
    /// and a length mismatch only sets a bit, so timing tells nothing of the token.
    private func matches(_ given: [UInt8]) -> Bool {
        guard !token.isEmpty else { return false }
        var diff: UInt8 = given.count == token.count ? 0 : 1
        for i in 0..<given.count {
            diff |= given[i] ^ token[i % token.count]
        }
        return diff == 0
    }
}
