internal import FoundationEssentials

/// A whole answer: status, content type, body and any extra headers.
public struct HTTPResponse: Sendable, Equatable, Error {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    public var headers: [(String, String)]

    public init(status: Int, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: body)
    }

    /// `{"error":"<words>"}`, byte for byte what BodyCore's `BodyJSON.error` makes.
    public static func error(_ status: Int, _ words: String) -> HTTPResponse {
        .json(status, errorBody(words))
    }

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.contentType == b.contentType && a.body == b.body
            && a.headers.elementsEqual(b.headers) { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    /// Encoded like BodyJSON (sorted keys, slashes unescaped) without importing BodyCore.
    static func errorBody(_ words: String) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(["error": words]) { return Array(data) }
        // A [String: String] always encodes; this is only a well-formed fallback.
        return Array(#"{"error":"the body could not encode its answer"}"#.utf8)
    }
}
