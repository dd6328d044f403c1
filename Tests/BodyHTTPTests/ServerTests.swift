import Foundation
import Glibc
import Testing
@testable import BodyHTTP

typealias Got = Result<Answer, ClientError>

func attempt(_ body: () throws(ClientError) -> Answer) -> Got {
    do { return .success(try body()) } catch { return .failure(error) }
}

let okBody = Array(#"{"ok":true}"#.utf8)

/// Real sockets on 127.0.0.1, the server driven on the test thread like the body's loop.
@Suite("HTTP server on real sockets", .serialized)
struct ServerTests {
    @Test("a handler answering at once, with the request read in full")
    func immediate() throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let client = Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.get("/status?after=3&flag", headers: "Authorization: Bearer t0k\r\nX-Cordelia-Doing: checking the lamp\r\n")
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive { client.isDone })
        let answer = try client.value!.get()
        #expect(answer.status == 200)
        #expect(answer.body == okBody)
        #expect(answer.headers["content-type"] == "application/json")
        let request = try #require(h.handled.first)
        #expect(request.method == "GET")
        #expect(request.path == "/status")
        #expect(request.query == ["after": "3", "flag": ""])
        #expect(request.headers["authorization"] == "Bearer t0k")
        #expect(request.doing == "checking the lamp")
        #expect(request.remote == "127.0.0.1")
        #expect(h.logs.contains(#"http: GET /status 200 doing "checking the lamp""#))
    }

    @Test("without answer lines, an answer below 400 is said nowhere and a refusal is said as before")
    func answerLines() throws {
        let h = try Harness(answerLines: false) { _, request, reply in
            reply.send(request.path == "/status" ? .json(200, okBody) : .error(404, "no route \(request.path)"))
        }
        var statuses: [Int] = []
        h.server.answered = { statuses.append($0) }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            ["/status", "/nope"].map { path in
                let c = RawClient(port: port)
                c.get(path, headers: "X-Cordelia-Doing: looking\r\n")
                return attempt { () throws(ClientError) in try c.answer() }
            }
        }
        #expect(h.drive { client.isDone })
        #expect(try client.value!.map { try $0.get().status } == [200, 404])
        #expect(statuses == [200, 404], "every answer is still counted")
        #expect(h.logs == [#"http: GET /nope 404 doing "looking""#])
    }

    @Test("a kept-alive connection's next request has only its own headers and query; a request kept by its handler is unchanged")
    func keptAliveFields() throws {
        var kept: [HTTPRequest] = []
        let h = try Harness { _, request, reply in
            kept.append(request)
            reply.send(.json(200, okBody))
        }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            let c = RawClient(port: port)
            return [("/status?after=3&wait=1", "Authorization: Bearer first\r\nCookie: a=1\r\nCookie: b=2\r\n"),
                    ("/ears?after=9", "Authorization: Bearer second\r\n"),
                    ("/status", "")].map { path, headers in
                c.get(path, headers: headers)
                return attempt { () throws(ClientError) in try c.answer() }
            }
        }
        #expect(h.drive { client.isDone })
        #expect(try client.value!.map { try $0.get().status } == [200, 200, 200])
        #expect(kept.map(\.query) == [["after": "3", "wait": "1"], ["after": "9"], [:]])
        #expect(kept.map { $0.headers["authorization"] } == ["Bearer first", "Bearer second", nil])
        #expect(kept.map { $0.headers["cookie"] } == ["a=1, b=2", nil, nil])
        #expect(kept.map { $0.headers["host"] } == ["test", "test", "test"])
    }

    @Test("a kept-alive connection's next request reuses the exchange and its reply, unless the handler kept the reply")
    func reusedReply() throws {
        var replies: [ObjectIdentifier] = []
        var kept: HTTPReply?
        var parked: HTTPReply?
        let h = try Harness { _, request, reply in
            replies.append(ObjectIdentifier(reply))
            switch request.path {
            case "/keep": kept = reply; reply.send(.json(200, okBody))
            case "/park": parked = reply  // answered later, below
            default: reply.send(.json(200, okBody))
            }
        }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            let c = RawClient(port: port)
            return ["/a", "/b", "/keep", "/park"].map { path in
                c.get(path)
                return attempt { () throws(ClientError) in try c.answer() }
            }
        }
        #expect(h.drive { parked != nil })
        // The kept reply answered /keep; it must not answer the request now waiting.
        #expect(kept?.isOpen == false)
        kept?.send(.error(500, "an old reply"))
        #expect(parked?.isOpen == true && parked?.isSent == false)
        parked?.send(.json(201, okBody))
        #expect(h.drive { client.isDone })
        #expect(try client.value!.map { try $0.get().status } == [200, 200, 200, 201])
        #expect(replies[1] == replies[0] && replies[2] == replies[0], "one reply for the connection's requests")
        #expect(replies[3] != replies[2], "the kept reply is not reused")
    }

    @Test("the answered observer hears the status of every answer queued, in order")
    func answeredObserver() throws {
        let h = try Harness { _, request, reply in
            reply.send(request.path == "/status" ? .json(200, okBody) : .error(404, "no route \(request.path)"))
        }
        var statuses: [Int] = []
        h.server.answered = { statuses.append($0) }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            ["/status", "/nope"].map { path in
                let c = RawClient(port: port)
                c.get(path)
                return attempt { () throws(ClientError) in try c.answer() }
            }
        }
        #expect(h.drive { client.isDone })
        #expect(try client.value!.map { try $0.get().status } == [200, 404])
        #expect(statuses == [200, 404])
    }

    @Test("a reply sent later from the loop reaches a suspended request")
    func deferred() throws {
        let h = try Harness { h, _, reply in
            h.after(0.2) { reply.send(.json(200, okBody)) }
        }
        let port = h.server.port
        let client = Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.get("/ears?wait=1")
            return attempt { () throws(ClientError) in try c.answer() }
        }
        let start = Harness.now()
        #expect(h.drive { client.isDone })
        let took = Harness.now() - start
        #expect(try client.value!.get().body == okBody)
        #expect(took >= 0.2 && took < 1.5)
        // Then it settles: no timer sooner than the idle connection's timeout.
        #expect(h.drive(limit: 1) { (h.server.timeout() ?? 99) > 1 })
    }

    @Test("two requests, a body and a deferred answer on one keep-alive connection")
    func keepAlive() throws {
        let h = try Harness { h, request, reply in
            switch request.path {
            case "/face": reply.send(.json(200, Array("\(request.body.count)".utf8)))
            case "/later": h.after(0.05) { reply.send(.json(200, Array("later".utf8))) }
            default: reply.send(.json(200, okBody))
            }
        }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            let c = RawClient(port: port)
            let body = String(repeating: "x", count: 5000)
            c.send("POST /face HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\nContent-Type: application/json\r\n\r\n\(body)")
            let a = attempt { () throws(ClientError) in try c.answer() }
            c.get("/later")
            let b = attempt { () throws(ClientError) in try c.answer() }
            c.get("/status")
            let d = attempt { () throws(ClientError) in try c.answer() }
            return [a, b, d]
        }
        #expect(h.drive { client.isDone })
        let answers = try client.value!.map { try $0.get() }
        #expect(answers.map(\.text) == ["5000", "later", #"{"ok":true}"#])
        #expect(answers.allSatisfy { $0.headers["connection"]?.lowercased() != "close" })
        #expect(h.handled.count == 3)
    }

    @Test("each request on a kept-alive connection has its own body alone; a body its handler kept is unchanged")
    func keptAliveBodies() throws {
        var kept: [[UInt8]] = []
        let h = try Harness { _, request, reply in
            kept.append(request.body)
            reply.send(.json(200, okBody))
        }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            let c = RawClient(port: port)
            let heads = ["POST /face HTTP/1.1\r\nHost: t\r\nContent-Length: 300\r\n\r\n" + String(repeating: "x", count: 300),
                         "POST /face HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nab",
                         "GET /status HTTP/1.1\r\nHost: t\r\n\r\n",
                         "POST /face HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nyz\r\n0\r\n\r\n"]
            return heads.map { head in
                c.send(head)
                return attempt { () throws(ClientError) in try c.answer() }
            }
        }
        #expect(h.drive { client.isDone })
        #expect(try client.value!.map { try $0.get().status } == [200, 200, 200, 200])
        #expect(kept.map { String(decoding: $0, as: UTF8.self) } == [String(repeating: "x", count: 300), "ab", "", "yz"])
    }

    @Test("a body over the limit is 413 without calling the handler", arguments: [false, true])
    func tooLarge(chunked: Bool) throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let client = Background(h) { () -> Got in
            let c = RawClient(port: port)
            let size = 65537
            if chunked {
                c.send("POST /face HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
                for _ in 0..<(size / 1000) { c.send("3e8\r\n" + String(repeating: "y", count: 1000) + "\r\n") }
                let rest = size % 1000
                c.send(String(rest, radix: 16) + "\r\n" + String(repeating: "y", count: rest) + "\r\n0\r\n\r\n")
            } else {
                c.send("POST /face HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\r\n")
                c.send(String(repeating: "y", count: size))
            }
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive { client.isDone })
        let answer = try client.value!.get()
        #expect(answer.status == 413)
        #expect(answer.text == #"{"error":"the request body is 65537 bytes; the limit is 65536"}"#)
        #expect(h.handled.isEmpty)
        #expect(h.logs.contains("http: POST /face 413"))
    }

    @Test("a client that sends a too-big body whole before reading still reads its 413 in words, and every byte was sent")
    func tooLargeSentWhole() throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        // 600 KB: far past what the socket buffers hold, so a server that
        // answered at the head and closed would leave bytes unread (a reset).
        let size = 600_000
        let client = Background(h) { () -> (Bool, Got) in
            let c = RawClient(port: port)
            let sent = c.send(Array("POST /face HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\r\n".utf8)
                + [UInt8](repeating: 0x79, count: size))
            return (sent, attempt { () throws(ClientError) in try c.answer() })
        }
        #expect(h.drive { client.isDone })
        let (sent, got) = try #require(client.value)
        #expect(sent, "the whole body went out: the server read it")
        let answer = try got.get()
        #expect(answer.status == 413)
        #expect(answer.text == #"{"error":"the request body is 600000 bytes; the limit is 65536"}"#)
        #expect(h.handled.isEmpty)
    }

    @Test("Expect: 100-continue gets Continue for a fitting body and 413 at once for one too big")
    func expectContinue() throws {
        let h = try Harness { _, request, reply in reply.send(.json(200, Array("\(request.body.count)".utf8))) }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            let c = RawClient(port: port)
            c.send("POST /face HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\nExpect: 100-continue\r\n\r\n")
            let cont = attempt { () throws(ClientError) in try c.answer() }
            c.send(String(repeating: "{", count: 2000))
            let a = attempt { () throws(ClientError) in try c.answer() }
            let big = RawClient(port: port)
            big.send("POST /face HTTP/1.1\r\nHost: t\r\nContent-Length: 70000\r\nExpect: 100-continue\r\n\r\n")
            let b = attempt { () throws(ClientError) in try big.answer() }
            return [cont, a, b]
        }
        #expect(h.drive { client.isDone })
        let answers = try client.value!.map { try $0.get() }
        #expect(answers.map(\.status) == [100, 200, 413])
        #expect(answers[1].text == "2000")
        #expect(h.handled.count == 1)
    }

    @Test("a flood of refusals is one line with its count, while every answer that is not one is said")
    func refusalsSaidOnce() throws {
        let h = try Harness { _, request, reply in
            reply.send(.json(request.path == "/status" ? 200 : 401, okBody))
        }
        let port = h.server.port
        let client = Background(h) { () -> Int in
            for path in Array(repeating: "/face", count: 40) + Array(repeating: "/status", count: 5) {
                let c = RawClient(port: port)
                c.get(path)
                guard (try? c.answer()) != nil else { return -1 }
            }
            return 0
        }
        #expect(h.drive(limit: 20) { client.isDone })
        #expect(client.value == 0)
        #expect(h.logs.filter { $0.hasPrefix("http: GET /face 401") } == ["http: GET /face 401"])
        #expect(h.logs.filter { $0 == "http: GET /status 200" }.count == 5)
    }

    @Test("refusals of paths the client varies are still one line: the filter is keyed by method and status, not by the path")
    func variedRefusalsSaidOnce() throws {
        let h = try Harness { _, _, reply in reply.send(.json(401, okBody)) }
        let port = h.server.port
        let client = Background(h) { () -> Int in
            for i in 0..<40 {
                let c = RawClient(port: port)
                c.get("/a\(i)")
                guard (try? c.answer()) != nil else { return -1 }
            }
            return 0
        }
        #expect(h.drive(limit: 20) { client.isDone })
        #expect(client.value == 0)
        #expect(h.logs.filter { $0.contains(" 401") } == ["http: GET /a0 401"])
        #expect(h.server.repeats.remembered <= 2)
    }

    @Test("a body of exactly the limit reaches the handler")
    func atLimit() throws {
        let h = try Harness { _, request, reply in reply.send(.json(200, Array("\(request.body.count)".utf8))) }
        let port = h.server.port
        let client = Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.send("POST /face HTTP/1.1\r\nHost: t\r\nContent-Length: 65536\r\n\r\n")
            c.send([UInt8](repeating: 0x7a, count: 65536))
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive { client.isDone })
        #expect(try client.value!.get().text == "65536")
    }

    @Test("a stream offers three chunks, then finishes")
    func stream() throws {
        var closed = 0
        let parts: [[UInt8]] = [Array("--frame\r\none\r\n".utf8), Array("--frame\r\ntwo\r\n".utf8), Array("--frame\r\nthree\r\n".utf8)]
        let h = try Harness { h, _, reply in
            let s = HTTPStream()
            s.onClose = { closed += 1 }
            reply.stream(contentType: "multipart/x-mixed-replace; boundary=frame", s)
            // Each chunk once the one before has gone out: a newer offer replaces a
            // chunk not yet started (slowReader tests that), and a loaded machine can
            // leave one unstarted for longer than any fixed gap.
            var left = parts[...]
            func next() {
                guard s.isOpen else { return }
                guard s.isDrained else { return h.after(0.005, next) }
                if let part = left.popFirst() { s.offer(part); h.after(0.005, next) } else { s.finish() }
            }
            h.after(0.05, next)
        }
        let port = h.server.port
        let client = Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.get("/preview")
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive { client.isDone && closed > 0 })
        let answer = try client.value!.get()
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "multipart/x-mixed-replace; boundary=frame")
        #expect(answer.body == parts.flatMap { $0 })
        #expect(closed == 1)
    }

    @Test("a slow stream reader does not hold up another client, and its frames are dropped, not queued")
    func slowReader() throws {
        let frame = [UInt8](repeating: 0x4a, count: 256 * 1024)
        var offered = 0
        var stream: HTTPStream?
        var closed = false
        let h = try Harness { h, request, reply in
            guard request.path == "/preview" else { return reply.send(.json(200, okBody)) }
            let s = HTTPStream()
            s.onClose = { closed = true }
            stream = s
            reply.stream(contentType: "application/octet-stream", s)
            func tick() {
                guard s.isOpen else { return }
                s.offer(frame)
                offered += 1
                h.after(0.005, tick)
            }
            tick()
        }
        let port = h.server.port
        let release = DispatchSemaphore(value: 0)
        let slow = Background(h) { () -> Int in
            let c = RawClient(port: port, receiveBuffer: 4096)
            c.get("/preview")
            guard (try? c.head()) != nil else { return -1 }
            release.wait() // never reads the body
            return 0
        }
        #expect(h.drive { stream != nil && offered > 40 })
        let quick = Background(h) { () -> (Got, Double) in
            let start = Harness.now()
            let c = RawClient(port: port)
            c.get("/status")
            let got = attempt { () throws(ClientError) in try c.answer() }
            return (got, Harness.now() - start)
        }
        #expect(h.drive { quick.isDone })
        let (got, took) = quick.value!
        #expect(try got.get().status == 200)
        #expect(took < 0.5)
        release.signal()
        #expect(h.drive { slow.isDone && closed })
        // Hundreds of 256 KiB frames were offered; the socket took a few.
        #expect(offered > 40)
    }

    @Test("stop answers a suspended request and ends a stream")
    func stop() throws {
        let h = try Harness { _, request, reply in
            if request.path == "/preview" { reply.stream(contentType: "text/plain", HTTPStream()) }
            // /ears is held and never answered by the handler
        }
        let port = h.server.port
        let poll = Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.get("/ears")
            return attempt { () throws(ClientError) in try c.answer() }
        }
        let watch = Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.get("/preview")
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive { h.handled.count == 2 })
        let start = Harness.now()
        h.server.stop()
        #expect(Harness.now() - start < 0.9)
        h.server.stop()
        #expect(h.drive(limit: 2) { poll.isDone && watch.isDone })
        let answer = try poll.value!.get()
        #expect(answer.status == 503)
        #expect(answer.text == #"{"error":"the body is stopping"}"#)
        #expect(answer.headers["connection"]?.lowercased() == "close")
        #expect(try watch.value!.get().status == 200)
        #expect(h.server.pollDescriptor == nil && h.server.hangupDescriptor == nil)
    }

    @Test("an empty answer, then stop() called from inside a handler waits for the turn to end")
    func emptyAndStopInHandler() throws {
        let h = try Harness { h, request, reply in
            reply.send(HTTPResponse(status: 204, contentType: "text/plain", body: []))
            if request.path == "/quit" { h.server.stop() }
        }
        let port = h.server.port
        let client = Background(h) { () -> [Got] in
            let c = RawClient(port: port)
            c.get("/status")
            let a = attempt { () throws(ClientError) in try c.answer() }
            c.get("/quit")
            let b = attempt { () throws(ClientError) in try c.answer() }
            return [a, b]
        }
        #expect(h.drive { client.isDone })
        let answers = try client.value!.map { try $0.get() }
        #expect(answers.map(\.status) == [204, 204])
        #expect(answers.allSatisfy { $0.body.isEmpty })
        #expect(h.drive(limit: 1) { h.server.pollDescriptor == nil })
    }

    @Test("it listens on IPv6 too")
    func ipv6() throws {
        let server = try HTTPServer(listen: "::1", port: 0, log: { _ in }, handler: { _, _ in })
        #expect(server.port != 0)
        server.stop()
    }

    @Test("an idle server asks for no timer")
    func idle() throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        #expect(h.server.timeout() == nil)
        #expect(h.server.port != 0)
        #expect(h.server.pollDescriptor != nil && h.server.hangupDescriptor != nil)
    }

    @Test("a port in use is an error that names the address and the cause")
    func portInUse() throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let error = #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(listen: "127.0.0.1", port: port, log: { _ in }, handler: { _, _ in })
        }
        #expect(error?.description.hasPrefix("http: cannot listen on 127.0.0.1:\(port): ") == true)
        #expect(error?.description.contains("in use") == true)
    }

    @Test("a listen address that is not one is an error in words")
    func badHost() {
        let error = #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(listen: "studio.local", port: 0, log: { _ in }, handler: { _, _ in })
        }
        #expect(error?.description == #"http: cannot listen on "studio.local": not an IPv4 or IPv6 address"#)
    }
}
