/// One request as the body's handler sees it, read in full before the handler runs.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoded.
    public var path: String
    /// Query arguments, percent-decoded; an argument without `=` has the value "";
    /// the first of a repeated name wins.
    public var query: HTTPFields
    /// Header names are lower-cased; repeated headers are joined with ", ".
    public var headers: HTTPFields
    public var body: [UInt8]
    /// The client's address ("127.0.0.1", "::1"), or "" when unknown.
    public var remote: String
    /// Whether it showed the server's token (`HTTPServer`'s `token`), as found
    /// at its head; nil when the server was given none to check. Routing takes
    /// it rather than checking again, so the check runs once a request.
    public var showedToken: Bool?

    public init(method: String, path: String, query: HTTPFields, headers: HTTPFields,
                body: [UInt8] = [], remote: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remote = remote
    }

    /// A request from dictionaries (a test's): header names as given, already lower-cased.
    public init(method: String, path: String, query: [String: String] = [:],
                headers: [String: String] = [:], body: [UInt8] = [], remote: String = "") {
        self.init(method: method, path: path, query: HTTPFields(query), headers: HTTPFields(headers),
                  body: body, remote: remote)
    }

    /// What the caller says it is doing (`X-Cordelia-Doing`), for the log.
    public var doing: String? { headers["x-cordelia-doing"].map(String.init) }
}
