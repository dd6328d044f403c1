/// A request head from MHD into an `HTTPRequest`.
extension HTTPServer {
    func readRequest(_ connection: OpaquePointer, method: String, path: String) -> HTTPRequest {
        HTTPRequest(method: method, path: path,
                    query: Self.pairs(calls.values(connection, .query), lowercased: false),
                    headers: Self.pairs(calls.values(connection, .header), lowercased: true),
                    remote: calls.clientAddress(connection))
    }

    /// Headers: names lower-cased, repeats joined. Query: the first of a repeated name wins.
    static func pairs(_ list: [(String, String)], lowercased: Bool) -> [String: String] {
        var values: [String: String] = [:]
        for (key, text) in list {
            let name = lowercased ? key.lowercased() : key
            if let old = values[name] {
                if lowercased { values[name] = old + ", " + text }
            } else {
                values[name] = text
            }
        }
        return values
    }
}
