import Testing
@testable import BodyHTTP

@Suite("routing")
struct RoutingTests {
    @Test("every route is found by its method and path", arguments: [
        ("GET", "/hello", Route.hello),
        ("POST", "/face", .face),
        ("GET", "/ears", .ears(after: nil, wait: 25)),
        ("GET", "/status", .status),
        ("GET", "/where", .where_),
        ("GET", "/preview", .preview),
        ("GET", "/preview.jpg", .previewJPEG),
        ("GET", "/metrics", .metrics),
        ("HEAD", "/status", .status),
        ("GET", "/sim", .simPage),
        ("GET", "/sim/state", .simState),
        ("GET", "/", .page),
        ("GET", "/events", .events),
        ("POST", "/signin", .signIn),
        ("POST", "/signout", .signOut),
    ])
    func routes(method: String, path: String, route: Route) throws {
        #expect(try Routing.route(method: method, path: path, query: [:], simRoutes: true).get() == route)
    }

    @Test("an unknown path is 404 with words")
    func unknown() throws {
        let r = Routing.route(method: "GET", path: "/nope", query: [:], simRoutes: true)
        #expect(failure(r)?.status == 404)
        #expect(failure(r)?.body == Array(#"{"error":"no route /nope"}"#.utf8))
    }

    @Test("sim routes do not exist off the sim board", arguments: ["/sim", "/sim/state", "/sim/press"])
    func simHidden(path: String) throws {
        let r = Routing.route(method: path == "/sim/press" ? "POST" : "GET", path: path,
                              query: ["button": "onair"], simRoutes: false)
        #expect(failure(r)?.status == 404)
    }

    @Test("a wrong method is 405 and says which is allowed")
    func wrongMethod() throws {
        let post = try #require(failure(Routing.route(method: "POST", path: "/status", query: [:], simRoutes: false)))
        #expect(post.status == 405)
        #expect(post.header("allow") == "GET, HEAD")
        let get = try #require(failure(Routing.route(method: "GET", path: "/face", query: [:], simRoutes: false)))
        #expect(get.status == 405)
        #expect(get.header("Allow") == "POST")
    }

    @Test("ears reads after and wait", arguments: [
        (["after": "17"], Route.ears(after: 17, wait: 25)),
        (["after": "0", "wait": "0"], .ears(after: 0, wait: 0)),
        (["wait": "2.5"], .ears(after: nil, wait: 2.5)),
        (["wait": "60"], .ears(after: nil, wait: 60)),
        (["wait": "61"], .ears(after: nil, wait: 60)),
        (["wait": "3600"], .ears(after: nil, wait: 60)),
        (["after": "1764500000000"], .ears(after: 1_764_500_000_000, wait: 25)),
        // Any whole number is a route: how far ahead a cursor may be is the outbox's (Outbox.refusal).
        (["after": "18446744073709551615"], .ears(after: UInt64.max, wait: 25)),
    ])
    func earsQuery(query: [String: String], route: Route) throws {
        #expect(try Routing.route(method: "GET", path: "/ears", query: query, simRoutes: false).get() == route)
    }

    @Test("a malformed after or wait is 400 with words", arguments: [
        ["after": "-1"], ["after": "abc"], ["after": ""], ["after": "1.5"],
        ["after": "18446744073709551616"],
        ["wait": "-1"], ["wait": "soon"], ["wait": "nan"], ["wait": "inf"], ["wait": ""],
    ])
    func earsMalformed(query: [String: String]) throws {
        let r = try #require(failure(Routing.route(method: "GET", path: "/ears", query: query, simRoutes: false)))
        #expect(r.status == 400)
        let words = String(decoding: r.body, as: UTF8.self)
        #expect(words.contains(query.keys.first!))
    }

    @Test("a sim press names its button")
    func simPress() throws {
        #expect(try Routing.route(method: "POST", path: "/sim/press", query: ["button": "kill"], simRoutes: true).get()
                == .simPress(button: "kill"))
        #expect(failure(Routing.route(method: "POST", path: "/sim/press", query: [:], simRoutes: true))?.status == 400)
    }

    // MARK: with the token

    let auth = BearerAuth(token: "s3cret-token")

    func request(_ method: String, _ path: String, header: String? = nil, query: [String: String] = [:]) -> HTTPRequest {
        var headers: [String: String] = [:]
        if let header { headers["authorization"] = header }
        return HTTPRequest(method: method, path: path, query: query, headers: headers)
    }

    @Test("without the right token every path is 401 and nothing else", arguments: [
        ("GET", "/status", nil), ("GET", "/status", "Bearer wrong-token!"), ("GET", "/nope", nil),
        ("POST", "/status", "Basic s3cret-token"), ("GET", "/sim/state", nil),
        ("GET", "/events", nil), ("GET", "/events", "Bearer wrong-token!"),
    ] as [(String, String, String?)])
    func unauthorized(method: String, path: String, header: String?) throws {
        let r = Routing.route(request(method, path, header: header), auth: auth, simRoutes: true)
        #expect(failure(r) == HTTPResponse.error(401, "unauthorized"))
        #expect(failure(r)?.body == Array(#"{"error":"unauthorized"}"#.utf8))
    }

    @Test("with the token, routing goes on as usual")
    func authorized() throws {
        let h = "Bearer s3cret-token"
        #expect(try Routing.route(request("GET", "/status", header: h), auth: auth, simRoutes: false).get() == .status)
        #expect(failure(Routing.route(request("GET", "/nope", header: h), auth: auth, simRoutes: false))?.status == 404)
        #expect(failure(Routing.route(request("PUT", "/face", header: h), auth: auth, simRoutes: false))?.status == 405)
    }

    @Test("no route takes the token in its URL (issue 20)", arguments: ["/sim", "/sim/state", "/status", "/events", "/"])
    func noQueryToken(path: String) throws {
        let q = ["token": "s3cret-token"]
        let r = Routing.route(request("GET", path, query: q), auth: auth, simRoutes: true)
        switch Routing.access(path, simRoutes: true) {
        case .open: #expect((try? r.get()) != nil, "\(path) is open to anyone, token or not")
        default: #expect(failure(r)?.status == 401, "\(path) took ?token=")
        }
        #expect(failure(Routing.route(request("POST", "/sim/press", query: ["token": "s3cret-token", "button": "onair"]),
                                      auth: auth, simRoutes: true))?.status == 401)
    }

    @Test("the page, the sign-in and sign-out, and /sim's redirect answer anyone; nothing else does",
          arguments: [("GET", "/", Route.page), ("POST", "/signin", .signIn), ("POST", "/signout", .signOut), ("GET", "/sim", .simPage)])
    func openRoutes(method: String, path: String, route: Route) throws {
        #expect(try Routing.route(request(method, path), auth: auth, simRoutes: true).get() == route)
        #expect(Routing.access(path, simRoutes: true) == .open)
    }

    @Test("/sim is no route off the sim board, so it is not open there either")
    func simOpenOnlyOnSim() {
        #expect(Routing.access("/sim", simRoutes: false) == .token)
        #expect(failure(Routing.route(request("GET", "/sim"), auth: auth, simRoutes: false))?.status == 401)
    }

    @Test("a signed-in browser reads the page's routes and presses the sim", arguments: [
        ("GET", "/events", Route.events), ("GET", "/status", .status), ("GET", "/sim/state", .simState),
        ("POST", "/sim/press", .simPress(button: "onair")), ("GET", "/preview.jpg", .previewJPEG), ("GET", "/where", .where_),
    ])
    func session(method: String, path: String, route: Route) throws {
        let r = request(method, path, query: path == "/sim/press" ? ["button": "onair"] : [:])
        #expect(try Routing.route(r, auth: auth, simRoutes: true, signedIn: true).get() == route)
        #expect(failure(Routing.route(r, auth: auth, simRoutes: true, signedIn: false))?.status == 401)
    }

    @Test("the session is asked about only when the token is not shown, and only on the page's routes")
    func sessionAskedLate() throws {
        var asked = 0
        func signedIn() -> Bool { asked += 1; return true }
        let withToken = request("GET", "/status", header: "Bearer s3cret-token")
        #expect(try Routing.route(withToken, auth: auth, simRoutes: true, signedIn: signedIn()).get() == .status)
        #expect(asked == 0)
        #expect(try Routing.route(request("GET", "/status"), auth: auth, simRoutes: true, signedIn: signedIn()).get() == .status)
        #expect(asked == 1)
        #expect(failure(Routing.route(request("GET", "/ears"), auth: auth, simRoutes: true, signedIn: signedIn())) == Routing.unauthorized)
        #expect(asked == 1)
    }

    @Test("a session never stands in for the token on Oriel's and the machines' routes", arguments: [
        ("POST", "/face"), ("GET", "/ears"), ("GET", "/hello"), ("GET", "/metrics"),
    ])
    func sessionNotForOriel(method: String, path: String) throws {
        let r = Routing.route(request(method, path), auth: auth, simRoutes: true, signedIn: true)
        #expect(failure(r) == Routing.unauthorized)
    }

    @Test("error words are escaped like BodyJSON does")
    func errorEscaping() throws {
        let r = HTTPResponse.error(400, "not \"JSON\" at a/b\n")
        #expect(String(decoding: r.body, as: UTF8.self) == #"{"error":"not \"JSON\" at a/b\n"}"#)
        #expect(r.contentType == "application/json")
    }

    func failure(_ r: Result<Route, HTTPResponse>) -> HTTPResponse? {
        if case .failure(let e) = r { return e }
        return nil
    }
}

@Suite("Routing: the server's answer about the token")
struct RoutingCarriedTokenTests {
    private let auth = BearerAuth(token: "carried-token-0123456789")

    @Test("a token route takes the server's answer, not a second check of the header")
    func carried() {
        var shown = HTTPRequest(method: "GET", path: "/ears")
        shown.showedToken = true
        #expect((try? Routing.route(shown, auth: auth, simRoutes: false).get()) == .ears(after: nil, wait: Routing.defaultWait))
        var refused = HTTPRequest(method: "GET", path: "/ears", headers: ["authorization": "Bearer carried-token-0123456789"])
        refused.showedToken = false
        #expect((try? Routing.route(refused, auth: auth, simRoutes: false).get()) == nil)
        // A session still serves a token-or-session route when the token was not shown.
        var session = HTTPRequest(method: "GET", path: "/status")
        session.showedToken = false
        #expect((try? Routing.route(session, auth: auth, simRoutes: false, signedIn: true).get()) == .status)
        // Unknown (nil): the header is checked, as before.
        let unknown = HTTPRequest(method: "GET", path: "/ears", headers: ["authorization": "Bearer carried-token-0123456789"])
        #expect((try? Routing.route(unknown, auth: auth, simRoutes: false).get()) == .ears(after: nil, wait: Routing.defaultWait))
    }
}
