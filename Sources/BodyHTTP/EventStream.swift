/// Server-sent events (the HTML standard's `text/event-stream`), as bytes: the
/// page's `GET /events`. Encoded once per change and offered to
/// every client as the same bytes.
public enum EventStream {
    public static let contentType = "text/event-stream; charset=utf-8"

    /// One event: `event:` its name, `id:` its number, the data as `data:`
    /// lines (a line break in the data starts another, which the browser joins
    /// back with "\n"), and the blank line that ends it.
    public static func event(_ name: String, id: UInt64? = nil, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + name.utf8.count + 40)
        out += Array("event: \(oneLine(name))\n".utf8)
        if let id { out += Array("id: \(id)\n".utf8) }
        var line: [UInt8] = []
        var i = 0
        func flush() {
            out += Array("data: ".utf8)
            out += line
            out.append(0x0A)
            line.removeAll(keepingCapacity: true)
        }
        while i < data.count {
            let b = data[i]
            if b == 0x0D || b == 0x0A {
                flush()
                if b == 0x0D, i + 1 < data.count, data[i + 1] == 0x0A { i += 1 }
            } else {
                line.append(b)
            }
            i += 1
        }
        flush()
        out.append(0x0A)
        return out
    }

    /// The first bytes of a stream: how long the browser waits before it
    /// reconnects after the connection drops (`retry:`, milliseconds).
    public static func opening(retryMillis: Int) -> [UInt8] {
        Array("retry: \(retryMillis)\n\n".utf8)
    }

    private static func oneLine(_ s: String) -> String {
        String(s.filter { $0 != "\n" && $0 != "\r" })
    }
}
