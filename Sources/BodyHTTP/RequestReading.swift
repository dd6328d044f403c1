internal import CMicroHTTPD

/// A request head from MHD into an `HTTPRequest`.
extension HTTPServer {
    func readRequest(_ connection: OpaquePointer, method: String, path: String) -> HTTPRequest {
        HTTPRequest(method: method, path: path,
                    query: values(connection, .GET_ARGUMENT_KIND, lowercased: false),
                    headers: values(connection, .HEADER_KIND, lowercased: true),
                    remote: clientAddress(connection))
    }

    /// Headers: names lower-cased, repeats joined. Query: the first of a repeated name wins.
    private final class Pairs { var values: [String: String] = [:]; var lower = false }

    /// The C function is `MHD_get_connection_values`.
    private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
        let pairs = Pairs()
        pairs.lower = lowercased
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let pairs = Unmanaged<Pairs>.fromOpaque(cls).takeUnretainedValue()
            var name = String(cString: key)
            if pairs.lower { name = name.lowercased() }
            let text = value.map { String(cString: $0) } ?? ""
            if let old = pairs.values[name] {
                if pairs.lower { pairs.values[name] = old + ", " + text }
            } else {
                pairs.values[name] = text
            }
            return .YES
        }, Unmanaged.passUnretained(pairs).toOpaque())
        return pairs.values
    }

    private func clientAddress(_ connection: OpaquePointer) -> String {
        var text = [CChar](repeating: 0, count: 64)
        body_mhd_client_address(connection, &text, text.count)
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
