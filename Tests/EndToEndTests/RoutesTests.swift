import Foundation
import Testing
import BodyTestSupport

/// The HTTP contract of DESIGN 4, against the real binary on a real socket.
@Suite("routes and refusals")
struct RoutesTests {
    static let routes: [(String, String)] = [
        ("GET", "/hello"), ("POST", "/face"), ("GET", "/ears?wait=0"), ("GET", "/status"), ("GET", "/where"),
        ("GET", "/preview"), ("GET", "/preview.jpg"), ("GET", "/sim/state"), ("POST", "/sim/press?button=onair"),
        ("GET", "/metrics"), ("GET", "/events"),
    ]

    @Test("every route answers 401 and nothing else without the right token", arguments: [nil, "wrong-token-0123456789", ""])
    func unauthorised(token: String?) async throws {
        let body = try await BodyProcess.start()
        for (method, path) in Self.routes {
            let a = try await body.request(method, path, body: method == "POST" ? Data("{}".utf8) : nil, token: .some(token))
            #expect(a.status == 401, "\(method) \(path)")
            #expect(a.json as NSDictionary == ["error": "unauthorized"] as NSDictionary, "\(method) \(path): \(a.text)")
        }
        // Nothing was pressed or pushed.
        #expect(try await body.onair().string("value") == "unknown")
    }

    @Test("hello says who the body is and which protocols it speaks")
    func hello() async throws {
        let body = try await BodyProcess.start()
        let h = try await body.get("/hello").json
        #expect(h.string("name") == "studio")
        #expect(h.string("body") == "studio-body")
        #expect(h.object("protocol") as NSDictionary == ["onair": 2, "eyes": 1, "where": 1, "ears": 1] as NSDictionary)
        #expect(h.object("hardware").string("board") == "sim")
    }

    @Test("an unknown route is 404 and a wrong method 405, both in words")
    func unknownAndWrongMethod() async throws {
        let body = try await BodyProcess.start()
        let missing = try await body.get("/nothing-here")
        #expect(missing.status == 404)
        #expect(missing.json.string("error")?.contains("/nothing-here") == true)
        let wrong = try await body.request("POST", "/status", body: Data("{}".utf8))
        #expect(wrong.status == 405)
        #expect(wrong.json.string("error") != nil)
    }

    @Test("a malformed push is 400 with the parser's reason and changes nothing")
    func malformedPush() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        let bad = try await body.push(#"{"onair": {"on": fals"#)
        #expect(bad.status == 400)
        #expect(bad.json.string("error") == "the push is not valid JSON: expected false, found the end at byte 21",
                "\(bad.text)")
        let huge = try await body.push(#"{"onair": {"on": false, "since": 1e999}}"#)
        #expect(huge.status == 400)
        #expect(huge.json.string("error")
                == "the push is not valid JSON: the number 1e999 does not fit at byte 33")
        let comma = try await body.push(#"{"onair": {"on": false,}}"#)
        #expect(comma.status == 400)
        #expect(comma.json.string("error") == "the push is not valid JSON: a trailing comma before '}' at byte 22",
                "\(comma.text)")
        let notObject = try await body.push("[1,2]")
        #expect(notObject.status == 400)
        #expect(notObject.json.string("error")?.contains("not a JSON object") == true)
        #expect(try await body.onair().string("value") == "on")
    }

    @Test("a body over 64 KiB is 413 and changes nothing")
    func oversized() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":true}}"#)
        let filler = String(repeating: "x", count: 64 * 1024)
        let big = try await body.request("POST", "/face", body: Data(#"{"onair":{"on":false},"pad":"\#(filler)"}"#.utf8))
        #expect(big.status == 413)
        #expect(big.json.string("error") != nil)
        #expect(try await body.onair().bool("on") == true)
    }

    @Test("/where is refused with words while location is not allowed")
    func whereNotAllowed() async throws {
        let body = try await BodyProcess.start()
        let a = try await body.get("/where")
        #expect(a.status == 403)
        #expect(a.json.string("error") == "location is not allowed for this body; a person allows it in the configuration")
    }

    @Test("the preview is 409 with the reason while the eyes gate is shut")
    func previewShut() async throws {
        let body = try await BodyProcess.start()
        for path in ["/preview", "/preview.jpg"] {
            let a = try await body.get(path)
            #expect(a.status == 409, "\(path)")
            #expect(a.json.string("error")?.isEmpty == false)
        }
    }

    @Test("/metrics is Prometheus's text: a push, a press that arms and one that asks, a poll and the answers so far")
    func metrics() async throws {
        let body = try await BodyProcess.start()
        #expect(try await body.request("GET", "/metrics", token: .some(nil)).status == 401)
        try await body.push(#"{"onair":{"on":false}}"#)
        try await body.press("onair", times: 2, gap: 0.6)
        #expect(try await eventually(within: 10) { try await body.onair().string("value") == "asking" })
        _ = try await body.ears()
        let m = try await body.get("/metrics")
        #expect(m.status == 200)
        #expect(m.contentType == "text/plain; version=0.0.4; charset=utf-8")
        for line in ["studio_body_pushes_total 1", "studio_body_polls_total 1",
                     #"studio_body_presses_total{button="onair",outcome="armed"} 1"#,
                     #"studio_body_presses_total{button="onair",outcome="asked"} 1"#,
                     #"studio_body_http_answers_total{code="401"} 1"#,
                     "studio_body_press_to_taken_seconds_count 1", "studio_body_push_to_lines_seconds_count 1",
                     #"studio_body_on_air{word="asking"} 1"#, "studio_body_board_ok 1"] {
            #expect(m.text.split(separator: "\n").contains(Substring(line)), "\(line) in:\n\(m.text)")
        }
    }

    @Test("a board line that no chip has stops the start in one line, naming the chips searched")
    func missingLine() async throws {
        do {
            _ = try await BodyProcess.start(board: """
                [lamp]
                line = NO-SUCH-LINE-17
                [armed-led]
                line = NO-SUCH-LINE-27
                [button onair]
                line = NO-SUCH-LINE-23
                """)
            Issue.record("a GPIO board with missing lines must not start")
        } catch let failed as BodyFailed {
            #expect(failed.words.contains("NO-SUCH-LINE"), "\(failed.words)")
        }
    }
}
