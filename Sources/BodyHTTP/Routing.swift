/// The pure routing table: method and path in, a route or the error answer out.
public enum Routing {
    public static let defaultWait: Double = 25
    public static let maxWait: Double = 60

    private struct Entry: Sendable {
        let method: String
        let sim: Bool
        let access: Access
        let make: @Sendable (HTTPFields) -> Result<Route, HTTPResponse>

        init(method: String, sim: Bool = false, access: Access = .token,
             make: @escaping @Sendable (HTTPFields) -> Result<Route, HTTPResponse>) {
            self.method = method
            self.sim = sim
            self.access = access
            self.make = make
        }
    }

    // Oriel's routes (`/face`, `/ears`, `/hello`) take the token only: a
    // browser's session reads the page and presses the sim, nothing else.
    private static let table: [String: Entry] = [
        "/hello": Entry(method: "GET") { _ in .success(.hello) },
        "/face": Entry(method: "POST") { _ in .success(.face) },
        "/ears": Entry(method: "GET", make: ears),
        "/status": Entry(method: "GET", access: .tokenOrSession) { _ in .success(.status) },
        "/where": Entry(method: "GET", access: .tokenOrSession) { _ in .success(.where_) },
        "/preview": Entry(method: "GET", access: .tokenOrSession) { _ in .success(.preview) },
        "/preview.jpg": Entry(method: "GET", access: .tokenOrSession) { _ in .success(.previewJPEG) },
        "/metrics": Entry(method: "GET") { _ in .success(.metrics) },
        "/": Entry(method: "GET", access: .open) { _ in .success(.page) },
        "/events": Entry(method: "GET", access: .tokenOrSession) { _ in .success(.events) },
        "/signin": Entry(method: "POST", access: .open) { _ in .success(.signIn) },
        "/signout": Entry(method: "POST", access: .open) { _ in .success(.signOut) },
        "/sim": Entry(method: "GET", sim: true, access: .open) { _ in .success(.simPage) },
        "/sim/state": Entry(method: "GET", sim: true, access: .tokenOrSession) { _ in .success(.simState) },
        "/sim/press": Entry(method: "POST", sim: true, access: .tokenOrSession, make: simPress),
    ]

    /// Who may take `path` (`.token` for a path that is no route here: its 401 says nothing).
    public static func access(_ path: String, simRoutes: Bool) -> Access {
        entry(path, simRoutes: simRoutes)?.access ?? .token
    }

    /// The path's entry, if it has one here (a sim path only with `simRoutes`).
    private static func entry(_ path: String, simRoutes: Bool) -> Entry? {
        guard let entry = table[path], simRoutes || !entry.sim else { return nil }
        return entry
    }

    /// Finds the route: 404 for an unknown path (sim paths are unknown unless
    /// `simRoutes`), 405 with `Allow` for a wrong method, 400 with words for a
    /// malformed query. HEAD is accepted wherever GET is.
    public static func route(method: String, path: String, query: [String: String],
                             simRoutes: Bool) -> Result<Route, HTTPResponse> {
        route(method: method, path: path, query: HTTPFields(query), simRoutes: simRoutes)
    }

    public static func route(method: String, path: String, query: HTTPFields,
                             simRoutes: Bool) -> Result<Route, HTTPResponse> {
        route(entry(path, simRoutes: simRoutes), method: method, path: path, query: query)
    }

    private static func route(_ entry: Entry?, method: String, path: String,
                              query: HTTPFields) -> Result<Route, HTTPResponse> {
        guard let entry else {
            return .failure(.error(404, "no route \(path)"))
        }
        guard method == entry.method || (entry.method == "GET" && method == "HEAD") else {
            let allowed = entry.method == "GET" ? ["GET", "HEAD"] : [entry.method]
            var response = HTTPResponse.error(405, "\(path) takes \(entry.method), not \(method)")
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return .failure(response)
        }
        return entry.make(query)
    }

    /// Checks the token, then routes. A request without the right token gets
    /// 401 `{"error":"unauthorized"}` and nothing else, whatever its path, so a
    /// stranger learns no route; only the page's own few (`Access.open`) answer
    /// anyone. `signedIn`: the request's session cookie names a live session
    /// (the caller's `Sessions` decides), which the page's routes take in
    /// place of the token. No route takes the token in its URL.
    /// `signedIn` is asked only when the token is not shown (a look at the cookie saved at every request).
    public static func route(_ request: HTTPRequest, auth: BearerAuth, simRoutes: Bool,
                             signedIn: @autoclosure () -> Bool = false) -> Result<Route, HTTPResponse> {
        // The table is read once: a lookup hashes the path.
        let entry = entry(request.path, simRoutes: simRoutes)
        let routed = route(entry, method: request.method, path: request.path, query: request.query)
        // The server's answer when it checked at the head: checked once a request.
        let allowed = switch entry?.access ?? .token {
        case .open: true
        case .token: request.showedToken ?? auth.allows(request)
        case .tokenOrSession: (request.showedToken ?? auth.allows(request)) || signedIn()
        }
        return allowed ? routed : .failure(unauthorized)
    }

    public static let unauthorized = HTTPResponse.error(401, "unauthorized")

    private static func ears(_ query: HTTPFields) -> Result<Route, HTTPResponse> {
        var after: UInt64? = nil
        if let text = query["after"] {
            guard let n = UInt64(text) else {
                return .failure(.error(400, "after must be a whole number of at least 0, not \"\(text)\""))
            }
            after = n
        }
        var wait = defaultWait
        if let text = query["wait"] {
            guard let s = Double(text), s.isFinite, s >= 0 else {
                return .failure(.error(400, "wait must be a number of seconds from 0 to \(Int(maxWait)), not \"\(text)\""))
            }
            wait = min(s, maxWait)
        }
        return .success(.ears(after: after, wait: wait))
    }

    private static func simPress(_ query: HTTPFields) -> Result<Route, HTTPResponse> {
        guard let button = query["button"], !button.isEmpty else {
            return .failure(.error(400, "which button? POST /sim/press?button=NAME"))
        }
        return .success(.simPress(button: String(button)))
    }
}
