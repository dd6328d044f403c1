import BodyHub

// The hello's answer: what Oriel (or anything at oriel.url) answers with a
// status outside 2xx is read for its `{"error": "..."}` words, which go into
// the journal line (docs/reliability.md). The first input byte picks the
// status; the rest is the answer's body.

func check(_ ok: Bool, _ words: @autoclosure () -> String) {
    if !ok { fatalError("rule broken: \(words())") }
}

let statuses = [300, 301, 400, 401, 403, 404, 405, 409, 413, 429, 500, 502, 503, 504, 418, 599]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let status = statuses[Int(data[0]) % statuses.count]
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let words = HubError.words(answer: body)
    if let words { check(!words.isEmpty && words.count <= 160, "words of \(words.count) characters") }
    let error = HubError(part: "hello", method: "POST", url: "http://oriel.local:8787/api/bodies/hello",
                         reason: .status(status, words))
    let line = error.description
    check(line.hasPrefix("hello: POST http://oriel.local:8787/api/bodies/hello answered \(status) "), line)
    if let words { check(line.hasSuffix(": \(words)"), "the line does not end with the words: \(line)") }
    check(!line.contains("\n") || (words?.contains("\n") ?? false), "a line break from nowhere")
    return 0
}
