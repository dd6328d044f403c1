import BodyHTTP

// The router with its token check: an HTTPRequest built from fuzz bytes
// (docs/reliability.md). The input is a small request:
//   METHOD PATH[?QUERY]
//   name: value            (headers, one a line, until an empty line)
// The query is split on & and = as libmicrohttpd would hand it over (the first
// of a repeated name wins); header names are lower-cased and repeats joined.
// Strings end at a NUL, as the C strings the server reads do. The headers'
// framing (Content-Length, Transfer-Encoding) is checked too.

let token = "s3cret-token"
let auth = BearerAuth(token: token)

func check(_ ok: Bool, _ words: @autoclosure () -> String) {
    if !ok { fatalError("rule broken: \(words())") }
}

func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
}

/// What DESIGN 4 says a header must be: the scheme Bearer in any case, then the token.
func reference(_ header: String?) -> Bool {
    guard let header else { return false }
    let bytes = Array(header.utf8)
    guard bytes.count >= 7, String(decoding: bytes[..<7], as: UTF8.self).lowercased() == "bearer " else { return false }
    var rest = bytes[7...].drop { $0 == 0x20 }
    while let last = rest.last, last == 0x20 || last == 0x09 { rest = rest.dropLast() }
    return Array(rest) == Array(token.utf8)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var lines = input.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
        line.last == 0x0D ? line.dropLast() : line
    }
    guard !lines.isEmpty else { return 0 }
    let first = lines.removeFirst()
    let space = first.firstIndex(of: 0x20) ?? first.endIndex
    let method = text(first[..<space])
    let target = first[space...].dropFirst()
    let mark = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
    let path = text(target[..<mark])
    var query: [String: String] = [:]
    for pair in target[mark...].dropFirst().split(separator: UInt8(ascii: "&")) {
        let eq = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
        let name = text(pair[..<eq])
        if query[name] == nil { query[name] = text(pair[eq...].dropFirst()) }
    }
    var headers: [String: String] = [:]
    for line in lines {
        if line.isEmpty { break }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let name = text(line[..<colon]).lowercased()
        let value = text(line[colon...].dropFirst().drop { $0 == 0x20 })
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
    }
    let request = HTTPRequest(method: method, path: path, query: query, headers: headers)

    let headerAllows = auth.allows(headers["authorization"])
    check(headerAllows == reference(headers["authorization"]), "allows(\(String(reflecting: headers["authorization"]))) is \(headerAllows)")
    check(auth.allows(token: query["token"]) == (query["token"] == token), "allows(token: \(String(reflecting: query["token"])))")
    // A session is the caller's to judge: routing takes its word for the page's routes only.
    let signedIn = headers["cookie"] != nil
    check(!BearerAuth(token: "").allows(headers["authorization"]), "an empty token let a request in")

    for sim in [false, true] {
        let bare = Routing.route(method: method, path: path, query: query, simRoutes: sim)
        let routed = Routing.route(request, auth: auth, simRoutes: sim, signedIn: signedIn)
        let access = Routing.access(path, simRoutes: sim)
        // No token in a URL is taken (issue 20); the page's few open routes answer anyone.
        let allowed = headerAllows || access == .open || (signedIn && access == .tokenOrSession)
        switch bare {
        case .success(let route):
            check(sim || !route.isSim, "a sim route off the sim board: \(route)")
            if case .ears(_, let wait) = route { check(wait.isFinite && (0...Routing.maxWait).contains(wait), "wait \(wait)") }
            if case .simPress(let button) = route { check(!button.isEmpty && button == query["button"], "button \(button)") }
            check((try? routed.get()) == (allowed ? route : nil), "\(route) routed as \(routed)")
            if [.face, .hello, .metrics].contains(route) || { if case .ears = route { true } else { false } }() {
                check(access == .token, "\(route) is Oriel's or a machine's: the token only")
            }
        case .failure(let response):
            check([400, 404, 405].contains(response.status), "status \(response.status)")
            check(response.contentType == "application/json", "content type \(response.contentType)")
            if response.status == 405 { check(response.header("allow") != nil, "405 without Allow") }
            // Routed with the token: the same answer; without: 401 and nothing else.
            if case .failure(let r) = routed {
                check(r == (allowed ? response : Routing.unauthorized), "answered \(r.status) for \(response.status)")
            } else {
                fatalError("a failed route was served")
            }
        }
        if case .failure(let r) = routed, r.status != 401 {
            check(allowed, "\(r.status) told a stranger about a route")
        }
    }
    checkFraming(headers)
    return 0
}

/// RFC 9112 section 6.3 read plainly: a head framed two ways, or by a coding
/// other than chunked, is refused in a few words; a length is digits only.
func checkFraming(_ headers: [String: String]) {
    let framing = Framing(headers: headers)
    let length = headers["content-length"], coding = headers["transfer-encoding"]
    switch framing {
    case .none: check(length == nil && coding == nil, "no framing for \(headers)")
    case .chunked: check(length == nil && coding?.lowercased() == "chunked", "chunked for \(headers)")
    case .length(let n):
        check(coding == nil, "a length beside Transfer-Encoding \(String(reflecting: coding))")
        check(length.map { !$0.isEmpty && $0.allSatisfy { "0123456789".contains($0) } } == true, "length \(String(reflecting: length))")
        check(n >= 0 && (Int(length ?? "") ?? .max) == n, "length \(n) for \(String(reflecting: length))")
    case .refused(let words):
        check(length != nil || coding != nil, "refused without framing headers")
        check(words.hasSuffix("the connection is closed") && words.count <= 200, "words \(words)")
    }
}
