import Foundation
import Glibc
import Testing
@testable import BodyHTTP
import BodyTestSupport

/// A request whose head says two things about where its body ends is refused
/// with 400 and its connection closed (RFC 9112 section 6.3), so a request
/// hidden in its body is never served (issue 19).
@Suite("HTTP server: a body framed two ways is refused and its connection closed", .serialized)
struct FramingTests {
    static let both = "the request has both Content-Length and Transfer-Encoding, "
        + "so where its body ends is unclear (RFC 9112 section 6.3); the connection is closed"

    @Test("the head's headers give the framing", arguments: [
        ([:], Framing.none),
        (["content-length": "12"], .length(12)),
        (["content-length": "99999999999999999999"], .length(.max)),
        (["content-length": "0"], .length(0)),
        (["content-length": "007"], .length(7)),
        (["content-length": "9223372036854775807"], .length(.max)),
        (["content-length": "9223372036854775806"], .length(.max - 1)),
        (["content-length": "9223372036854775808"], .length(.max)),
        (["content-length": ""], .refused(#"the request has more than one Content-Length (""); the connection is closed"#)),
        (["content-length": "1a"], .refused(#"the request has more than one Content-Length ("1a"); the connection is closed"#)),
        (["content-length": "12", "host": "x"], .length(12)),
        (["transfer-encoding": "chunked"], .chunked),
        (["transfer-encoding": "Chunked"], .chunked),
        (["content-length": "5", "transfer-encoding": "chunked"], .refused(both)),
        (["content-length": "5", "transfer-encoding": "gzip"], .refused(both)),
        (["content-length": "5, 6"], .refused(#"the request has more than one Content-Length ("5, 6"); the connection is closed"#)),
        (["content-length": "5, 5"], .refused(#"the request has more than one Content-Length ("5, 5"); the connection is closed"#)),
        (["transfer-encoding": "gzip, chunked"],
         .refused(#"the request's Transfer-Encoding is "gzip, chunked"; only chunked is spoken here; the connection is closed"#)),
        (["transfer-encoding": "chunked, chunked"],
         .refused(#"the request's Transfer-Encoding is "chunked, chunked"; only chunked is spoken here; the connection is closed"#)),
        (["transfer-encoding": "a\u{7}" + String(repeating: "x", count: 50)],
         .refused("the request's Transfer-Encoding is \"a?" + String(repeating: "x", count: 38)
                  + "…\"; only chunked is spoken here; the connection is closed")),
    ] as [([String: String], Framing)])
    func framing(headers: [String: String], framing: Framing) {
        #expect(Framing(headers: headers) == framing)
    }

    /// A server that answers /status without a token with 401, as the body does.
    static func server() throws -> Harness {
        try Harness { _, request, reply in
            if request.path == "/status" { reply.send(.error(401, "unauthorized")) } else { reply.send(.json(200, okBody)) }
        }
    }

    /// Sends `bytes` on one connection: the first answer, then whatever else
    /// comes before the connection ends, and how it ends (0: closed).
    static func exchange(_ h: Harness, _ bytes: String) throws -> (Answer, rest: [UInt8], end: Int32) {
        let port = h.server.port
        let client = Background(h) { () -> (Got, [UInt8], Int32) in
            let c = RawClient(port: port, from: 7)
            c.send(bytes)
            let first = attempt { () throws(ClientError) in try c.answer() }
            let (rest, end) = c.rest()
            return (first, rest, end)
        }
        #expect(h.drive(limit: 8) { client.isDone })
        let (first, rest, end) = try #require(client.value)
        return (try first.get(), rest, end)
    }

    static let hidden = "GET /status HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Each head with the bytes after it; the hidden GET follows the body as
    /// the Transfer-Encoding or the first Content-Length would end it.
    static let smuggled: [(String, String)] = {
        let chunked = "0\r\n\r\n" + hidden
        return [
            ("Content-Length: \(chunked.utf8.count)\r\nTransfer-Encoding: chunked\r\n\r\n\(chunked)", both),
            ("Transfer-Encoding: chunked\r\nContent-Length: \(chunked.utf8.count)\r\n\r\n\(chunked)", both),
            ("Content-Length: 5\r\nTransfer-Encoding: gzip\r\n\r\nhello" + hidden, both),
            ("Content-Length: 5\r\nContent-Length: \(5 + hidden.utf8.count)\r\n\r\nhello" + hidden,
             #"the request has more than one Content-Length ("5, \#(5 + hidden.utf8.count)"); the connection is closed"#),
        ]
    }()

    @Test("a POST /face framed two ways is 400 in words, closed, and the GET hidden in it never answered",
          arguments: smuggled)
    func smuggling(rest: String, words: String) throws {
        let h = try Self.server()
        let (answer, after, end) = try Self.exchange(h, "POST /face HTTP/1.1\r\nHost: x\r\n" + rest)
        #expect(answer.status == 400)
        #expect(answer.headers["content-type"] == "application/json")
        #expect(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: String] == ["error": words])
        #expect(answer.headers["connection"]?.lowercased() == "close")
        #expect(after.isEmpty, "a second answer came: \(String(decoding: after, as: UTF8.self))")
        #expect(end == 0, "the connection was not closed: errno \(end)")
        #expect(h.handled.isEmpty, "the handler ran for \(h.handled.map(\.path))")
        #expect(h.logs.contains("http: POST /face 400"))
    }

    @Test("a Transfer-Encoding other than chunked is 400 and closed, not a body that never ends")
    func otherCoding() throws {
        let h = try Self.server()
        let (answer, after, end) = try Self.exchange(h, "POST /face HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nhello")
        #expect(answer.status == 400)
        #expect(answer.text == String(decoding: HTTPResponse.errorBody(
            #"the request's Transfer-Encoding is "gzip"; only chunked is spoken here; the connection is closed"#), as: UTF8.self))
        #expect(after.isEmpty && end == 0)
        #expect(h.handled.isEmpty)
    }

    @Test("a chunked POST without Content-Length still works, and its connection stays open")
    func chunked() throws {
        let h = try Harness { _, request, reply in reply.send(.json(200, Array("\(request.body.count)".utf8))) }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            let c = RawClient(port: port, from: 7)
            c.send("POST /face HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n{\"onai\r\n")
            c.send("f\r\nr\":{\"on\":true}}\r\n0\r\n\r\n")
            let a = attempt { () throws(ClientError) in try c.answer() }
            c.get("/status")
            return [a, attempt { () throws(ClientError) in try c.answer() }]
        }
        #expect(h.drive { client.isDone })
        let answers = try #require(client.value).map { try $0.get() }
        #expect(answers.map(\.status) == [200, 200])
        #expect(answers.first?.text == "21")
        #expect(h.handled.first.map { String(decoding: $0.body, as: UTF8.self) } == #"{"onair":{"on":true}}"#)
        #expect(h.handled.count == 2)
    }
}
