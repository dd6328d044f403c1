/// A request head from MHD into an `HTTPRequest`.
extension HTTPServer {
    /// The header and query strings are the last completed request's, emptied
    /// (`spareFields`): a kept-alive connection's requests allocate none.
    func readRequest(_ connection: OpaquePointer, method: String, path: String) -> HTTPRequest {
        var headers = HTTPFields()
        var query = HTTPFields()
        swap(&headers, &spareFields.headers)
        swap(&query, &spareFields.query)
        headers.removeAll()
        query.removeAll()
        calls.values(connection, .header, &headers)
        calls.values(connection, .query, &query)
        return HTTPRequest(method: method, path: path, query: query, headers: headers,
                           remote: calls.clientAddress(connection))
    }

    /// A completed request's strings, kept for the next head. Unless the
    /// handler kept a copy of the request, no one else holds them, and the
    /// next request writes into them in place; if it did, the next request's
    /// write makes its own copy (a string is a value).
    func recycleFields(_ exchange: Exchange) {
        swap(&spareFields.headers, &exchange.request.headers)
        swap(&spareFields.query, &exchange.request.query)
    }
}
