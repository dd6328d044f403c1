import Foundation
import Glibc
import Testing
@testable import BodyHTTP
import BodyTestSupport

/// Every refusal is DESIGN 4's `{"error": "<words>"}`, the ones libmicrohttpd
/// answers itself before any callback of ours runs too (MHDPages, pages.c).
@Suite("HTTP server: every refusal is JSON with words", .serialized)
struct RefusalsTests {
    static let bigHeader = "X-Big: " + String(repeating: "a", count: 50_000) + "\r\n"
    static let longPath = "/" + String(repeating: "p", count: 50_000)

    /// Raw bytes a client sends, the status, and the exact words.
    static let rows: [(String, Int, String)] = [
        ("GET / FOO\r\nHost: x\r\n\r\n", 400, "the request is not valid HTTP"),
        ("GET /status HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400, "the request is not valid HTTP"),
        ("GET / HTTP/0.9\r\nHost: x\r\n\r\n", 505, "HTTP before 1.0 is not spoken here"),
        ("GET /status HTTP/1.1\r\nHost: x\r\n\(bigHeader)\r\n", 431,
         "the request line or head is too big for this server (\(HTTPLimits.headMemory / 1024) KiB at most)"),
        ("GET \(longPath) HTTP/1.1\r\nHost: x\r\n\r\n", 414,
         "the request line or head is too big for this server (\(HTTPLimits.headMemory / 1024) KiB at most)"),
        ("GET /status HTTP/2.0\r\nHost: x\r\n\r\n", 505, "this HTTP version is not spoken here; use HTTP/1.1"),
        ("POST /face HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n", 400,
         "the request's chunked body is not valid chunked encoding"),
        // Past the drain limit: answered at the head, the body never read.
        ("POST /face HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413,
         "the request body is 2000000 bytes; the limit is 65536"),
    ]

    @Test("each refusal on a real socket is application/json {\"error\": words}", arguments: rows)
    func refusal(bytes: String, status: Int, words: String) throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let client = Background(h) { () -> Got in
            let c = RawClient(port: port, from: 7)
            c.send(bytes)
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive(limit: 5) { client.isDone })
        let answer = try #require(try client.value?.get())
        #expect(answer.status == status)
        #expect(answer.headers["content-type"] == "application/json")
        let json = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: String]
        #expect(json == ["error": words], "\(answer.text)")
        #expect(h.handled.isEmpty, "no handler ran for a refused request")
    }

    /// The largest head is `HTTPLimits.headMemory`, 16 KiB (issue 21: MHD
    /// zeroes that much after every request, so it is kept small): a browser's
    /// head with a KiB to spare is heard, one a KiB over is refused in words.
    @Test("a 15 KiB head is heard; a 17 KiB one is refused, 431, 16 KiB at most",
          arguments: [(15 * 1024, 200), (17 * 1024, 431)])
    func headLimit(size: Int, status: Int) throws {
        #expect(HTTPLimits.headMemory == 16 * 1024)
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let start = "GET /status HTTP/1.1\r\nHost: x\r\nX-Pad: "
        let head = start + String(repeating: "a", count: size - start.utf8.count - 4) + "\r\n\r\n"
        #expect(head.utf8.count == size)
        let client = Background(h) { () -> Got in
            let c = RawClient(port: port, from: 7)
            c.send(head)
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive(limit: 5) { client.isDone })
        let answer = try #require(try client.value?.get())
        #expect(answer.status == status, "\(answer.text)")
        if status == 431 {
            #expect(answer.text == #"{"error":"the request line or head is too big for this server (16 KiB at most)"}"#)
            #expect(h.handled.isEmpty)
        } else {
            #expect(h.handled.count == 1)
        }
    }

    /// The last half KiB below the limit, where a whole head leaves MHD's pool
    /// too little room to write any answer: 0.9.75 then closes the connection
    /// without one (docs/decisions.md, for heads of ~16,050-16,250 bytes). What
    /// must hold across it: every head gets its answer, a 431 or that close,
    /// never a hang, and the server answers the next client.
    @Test("a head at the limit gets an answer, a 431 or a close, never a hang; the next client is heard")
    func headAtTheLimit() throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let sizes = Array(stride(from: 15 * 1024 + 512, through: 16 * 1024 + 512, by: 64))
        let client = Background(h) { () -> [Got] in
            let start = "GET /status HTTP/1.1\r\nHost: x\r\nX-Pad: "
            var got: [Got] = sizes.map { size in
                let c = RawClient(port: port, from: 8)
                c.send(start + String(repeating: "a", count: size - start.utf8.count - 4) + "\r\n\r\n")
                return attempt { () throws(ClientError) in try c.answer() }
            }
            let after = RawClient(port: port, from: 8)
            after.send("GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
            got.append(attempt { () throws(ClientError) in try after.answer() })
            return got
        }
        #expect(h.drive(limit: 20) { client.isDone })
        let got = try #require(client.value)
        for (size, one) in zip(sizes, got) {
            switch one {
            case .success(let answer): #expect([200, 431].contains(answer.status), "\(size) bytes: \(answer.text)")
            case .failure(let error): #expect(error == .closed, "\(size) bytes: \(error)")
            }
        }
        #expect(got.prefix(3).allSatisfy { (try? $0.get().status) == 200 }, "heads of 15.5-15.6 KiB are heard")
        #expect(got.dropLast().suffix(2).allSatisfy { (try? $0.get().status) == 431 }, "heads of 16.4-16.5 KiB get 431")
        #expect((try? got.last?.get().status) == 200, "the client after them is heard")
    }

    /// libmicrohttpd 0.9.75 sends the head of these two refusals twice (its
    /// state machine goes on after parse_connection_headers refused): the
    /// client sees a status line, a head, and a body that is the head again
    /// and then the JSON. The words are still JSON, never an HTML page.
    static let contentLengthRows: [(String, Int, String)] = [
        ("abc", 400, "the request's Content-Length is not a number"),
        ("99999999999999999999999", 413, "the request's Content-Length is too large"),
    ]

    @Test("a Content-Length that MHD refuses is answered with JSON words too", arguments: contentLengthRows)
    func contentLength(value: String, status: Int, words: String) throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let client = Background(h) { () -> [UInt8] in
            let c = RawClient(port: port, from: 7)
            c.send("POST /face HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\n\r\n")
            var all: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                all += chunk[0..<n]
            }
            return all
        }
        #expect(h.drive(limit: 7) { client.isDone })
        let text = String(decoding: try #require(client.value), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 \(status) "), "\(text)")
        #expect(text.hasSuffix(String(decoding: HTTPResponse.errorBody(words), as: UTF8.self)), "\(text)")
        #expect(text.contains("Content-Type: application/json") && !text.contains("<html>"), "\(text)")
        #expect(h.handled.isEmpty)
    }

    @Test("every page of libmicrohttpd 0.9.75 has words of its own", arguments: MHDPages.words.map(\.phrase))
    func table(phrase: String) {
        let page = "<html><head><title>x</title></head><body>\(phrase)</body></html>"
        #expect(MHDPages.words(forPage: page) != "the server refused the request")
        #expect(MHDPages.words(forPage: "<html><head><title>new</title></head></html>") == "the server refused the request")
    }
}
