/// libmicrohttpd's own refusals, which it answers before any callback of
/// ours runs, in the body's words (DESIGN 4: every refusal is
/// `{"error": "<words>"}`). The C side that catches its HTML pages is
/// Sources/CMicroHTTPD/pages.c, installed by `MHDCalls`; the status stays MHD's.
enum MHDPages {
    /// Each page of 0.9.75's connection.c, told by a phrase of its body.
    static let words: [(phrase: String, words: String)] = [
        ("Your HTTP header was too big",
         "the request line or head is too big for this server (\(HTTPLimits.headMemory / 1024) KiB at most)"),
        ("Host:&quot; header required", "an HTTP/1.1 request needs a Host header"),
        ("Your HTTP request was syntactically incorrect", "the request is not valid HTTP"),
        ("Your HTTP chunked encoding was syntactically incorrect", "the request's chunked body is not valid chunked encoding"),
        ("The chunk size used in your HTTP chunked encoded request is too large", "a chunk of the request's body is too large"),
        ("too large value for <b>Content-Length</b>", "the request's Content-Length is too large"),
        ("wrong value for <b>Content-Length</b>", "the request's Content-Length is not a number"),
        ("Requested HTTP version is too old", "HTTP before 1.0 is not spoken here"),
        ("Requested HTTP version is not supported", "this HTTP version is not spoken here; use HTTP/1.1"),
        ("Internal server error", "the server could not finish this request"),
    ]

    /// The words for one of MHD's pages; any page not in the table still gets words.
    static func words(forPage page: String) -> String {
        words.first { page.contains($0.phrase) }?.words ?? "the server refused the request"
    }
}
