import Testing
@testable import BodyHTTP

@Suite("bearer token")
struct BearerAuthTests {
    let auth = BearerAuth(token: "0123456789abcdef")

    @Test("the right token passes, in any case of the scheme", arguments: [
        "Bearer 0123456789abcdef", "bearer 0123456789abcdef", "BEARER 0123456789abcdef", "Bearer  0123456789abcdef ",
    ])
    func right(header: String) {
        #expect(auth.allows(header))
    }

    @Test("anything else is refused", arguments: [
        "Bearer 0123456789abcdeF",      // one byte wrong
        "Bearer 1123456789abcdef",      // first byte wrong
        "Bearer 0123456789abcde",       // shorter
        "Bearer 0123456789abcdef0",     // longer
        "Bearer 0123456789abcdef0123456789abcdef", // the token twice
        "Bearer ",                      // empty
        "Bearer",
        "Basic 0123456789abcdef",       // wrong scheme
        "0123456789abcdef",             // no scheme
        "Bearer0123456789abcdef",
        "",
    ])
    func wrong(header: String) {
        #expect(!auth.allows(header))
    }

    @Test("a request's Authorization header, read where the request keeps it")
    func request() {
        func asking(_ headers: [String: String]) -> HTTPRequest { HTTPRequest(method: "GET", path: "/status", headers: headers) }
        #expect(auth.allows(asking(["authorization": "Bearer 0123456789abcdef"])))
        #expect(auth.allows(asking(["authorization": "bearer  0123456789abcdef ", "host": "x"])))
        #expect(!auth.allows(asking(["authorization": "Bearer 0123456789abcdeF"])))
        #expect(!auth.allows(asking(["cookie": "Bearer 0123456789abcdef"])), "only the Authorization header")
        #expect(!auth.allows(asking([:])))
    }

    @Test("a token of any length is compared in full: one wrong byte anywhere is refused", arguments: [1, 7, 8, 9, 16, 19, 33])
    func everyByte(length: Int) {
        let token = String(decoding: (0..<length).map { UInt8(0x61 + $0 % 26) }, as: UTF8.self)
        let auth = BearerAuth(token: token)
        #expect(auth.allows("Bearer \(token)"))
        for i in 0..<length {
            var bytes = Array(token.utf8)
            bytes[i] ^= 0x01
            #expect(!auth.allows("Bearer \(String(decoding: bytes, as: UTF8.self))"), "byte \(i)")
        }
    }

    @Test("a token of another length is refused, even the token repeated, cut short or run on", arguments: [1, 7, 8, 9, 16, 19, 33])
    func otherLengths(length: Int) {
        let token = String(decoding: (0..<length).map { UInt8(0x61 + $0 % 26) }, as: UTF8.self)
        let auth = BearerAuth(token: token)
        for given in [token + token, String(token.dropLast()), token + "a", String(repeating: token, count: 3) + "xyz"]
        where !given.isEmpty {
            #expect(!auth.allows("Bearer \(given)"), "\(given.count) bytes")
            #expect(!auth.allows(token: given))
        }
    }

    @Test("a missing header is refused")
    func missing() {
        #expect(!auth.allows(nil))
        #expect(!auth.allows(token: nil))
    }

    @Test("an empty configured token lets nobody in")
    func emptyToken() {
        let none = BearerAuth(token: "")
        #expect(!none.allows("Bearer "))
        #expect(!none.allows(token: ""))
    }

    @Test("the bare token for the sim page's query")
    func bare() {
        #expect(auth.allows(token: "0123456789abcdef"))
        #expect(!auth.allows(token: "0123456789abcdeg"))
        #expect(!auth.allows(token: "0123456789"))
    }
}
