/// The pure routing table: method and path in, a route or the error answer out.
public enum Routing {
    public static let defaultWait: Double = 25
    public static let maxWait: Double = 60

    private struct Entry: Sendable {
        let method: String
        let sim: Bool
        let make: @Sendable ([String: String]) -> Result<Route, HTTPResponse>
    }

    private static let table: [String: Entry] = [
        "/hello": Entry(method: "GET", sim: false) { _ in .success(.hello) },
        "/face": Entry(method: "POST", sim: false) { _ in .success(.face) },
        "/ears": Entry(method: "GET", sim: false, make: ears),
        "/status": Entry(method: "GET", sim: false) { _ in .success(.status) },
        "/where": Entry(method: "GET", sim: false) { _ in .success(.where_) },
        "/preview": Entry(method: "GET", sim: false) { _ in .success(.preview) },
        "/preview.jpg": Entry(method: "GET", sim: false) { _ in .success(.previewJPEG) },
        "/metrics": Entry(method: "GET", sim: false) { _ in .success(.metrics) },
        "/sim": Entry(method: "GET", sim: true) { _ in .success(.simPage) },
        "/sim/state": Entry(method: "GET", sim: true) { _ in .success(.simState) },
        "/sim/press": Entry(method: "POST", sim: true, make: simPress),
    ]

    /// Finds the route: 404 for an unknown path (sim paths are unknown unless
    /// `simRoutes`), 405 with `Allow` for a wrong method, 400 with words for a
    /// malformed query. HEAD is accepted wherever GET is.
    public static func route(method: String, path: String, query: [String: String],
                             simRoutes: Bool) -> Result<Route, HTTPResponse> {
        guard let entry = table[path], simRoutes || !entry.sim else {
            return .failure(.error(404, "no route \(path)"))
        }
        let allowed = entry.method == "GET" ? ["GET", "HEAD"] : [entry.method]
        guard allowed.contains(method) else {
            var response = HTTPResponse.error(405, "\(path) takes \(entry.method), not \(method)")
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return .failure(response)
        }
        return entry.make(query)
    }

    /// Checks the token, then routes. A request without the right token gets
    /// 401 `{"error":"unauthorized"}` and nothing else, whatever its path, so a
    /// stranger learns no route. Sim routes also accept `?token=` (a browser
    /// opening /sim has no way to send the header).
    public static func route(_ request: HTTPRequest, auth: BearerAuth,
                             simRoutes: Bool) -> Result<Route, HTTPResponse> {
        let routed = route(method: request.method, path: request.path,
                           query: request.query, simRoutes: simRoutes)
        var allowed = auth.allows(request.headers["authorization"])
        if case .success(let r) = routed, r.isSim, auth.allows(token: request.query["token"]) {
            allowed = true
        }
        return allowed ? routed : .failure(unauthorized)
    }

    public static let unauthorized = HTTPResponse.error(401, "unauthorized")

    private static func ears(_ query: [String: String]) -> Result<Route, HTTPResponse> {
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

    private static func simPress(_ query: [String: String]) -> Result<Route, HTTPResponse> {
        guard let button = query["button"], !button.isEmpty else {
            return .failure(.error(400, "which button? POST /sim/press?button=NAME"))
        }
        return .success(.simPress(button: button))
    }
}
