import Foundation
import Glibc
import Testing
@testable import BodyHTTP

/// Records what the server asked of libmicrohttpd through the seam.
final class SeamLog {
    var resumed: [OpaquePointer] = []
    var stops = 0
}

/// The server on libmicrohttpd with one of its calls made to fail
/// (`MHDCalls`, the seam): each failure is said in words, ends the exchange
/// it hit, and leaks nothing.
@Suite("HTTP server: libmicrohttpd's calls failing", .serialized)
struct MHDSeamTests {
    /// A GET on a connection of its own, on a thread of its own: its answer, or how it failed.
    func answer(_ h: Harness, _ path: String) -> Background<Got> {
        let port = h.server.port
        return Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.get(path)
            return attempt { () throws(ClientError) in try c.answer() }
        }
    }

    func startError(_ calls: MHDCalls, port: UInt16 = 0) -> HTTPServerError? {
        do {
            _ = try HTTPServer(listen: "127.0.0.1", port: port, log: { _ in }, calls: calls, handler: { _, _ in })
            return nil
        } catch { return error }
    }

    @Test("a daemon that will not start is an error in words, with what MHD said")
    func noStart() {
        var calls = MHDCalls.live
        calls.start = { _, server in
            server.mhdSaid("Failed to bind to port 8080: Address already in use\n")
            return nil
        }
        #expect(startError(calls)?.description
                == "http: cannot listen on 127.0.0.1:0: Failed to bind to port 8080: Address already in use")
        calls.start = { _, _ in nil }
        #expect(startError(calls)?.description == "http: cannot listen on 127.0.0.1:0: libmicrohttpd refused to start")
    }

    @Test("a port another server holds: the real daemon's refusal, in words")
    func portTaken() throws {
        let first = try HTTPServer(listen: "127.0.0.1", port: 0, log: { _ in }, handler: { _, _ in })
        let error = try #require(startError(.live, port: first.port))
        #expect(error.description.hasPrefix("http: cannot listen on 127.0.0.1:\(first.port): "))
        #expect(error.description.contains("Address already in use"), "\(error)")
    }

    @Test("a daemon with no epoll descriptor: an error in words, and the daemon is stopped once")
    func noEpoll() {
        let seen = SeamLog()
        var calls = MHDCalls.live
        calls.epollDescriptor = { _ in -1 }
        let stop = calls.stop
        calls.stop = { daemon in
            seen.stops += 1
            stop(daemon)
        }
        #expect(startError(calls)?.description == "http: libmicrohttpd started on 127.0.0.1:0 without an epoll descriptor")
        #expect(seen.stops == 1)
    }

    @Test("an answer MHD will not queue: the exchange ends, the connection closes, the reply is closed, nothing is held")
    func queueFails() throws {
        var calls = MHDCalls.live
        calls.queue = { _, _, _ in .notQueued }
        weak var exchange: Exchange?
        var closes = 0
        let h = try Harness(calls: calls) { h, _, reply in
            exchange = h.server.live.first
            reply.onClose = { closes += 1 }
            reply.send(.json(200, okBody))
        }
        let port = h.server.port
        let client = answer(h, "/status")
        #expect(h.drive { client.isDone })
        #expect(client.value == .failure(.closed), "the client sees its connection closed, not an answer")
        #expect(h.drive(limit: 2) { h.server.live.isEmpty && heldSockets(port: port) == 0 })
        #expect(closes == 1)
        #expect(exchange == nil, "MHD's hold on the exchange was let go")
        // Said once in the body's words: not "the client went away", not MHD's "internal error".
        #expect(h.logs == ["http: GET /status 200", "http: cannot queue the answer to GET /status"])
        // The server goes on: the next request gets the same words, not a crash.
        let again = answer(h, "/status")
        #expect(h.drive { again.isDone })
        #expect(again.value == .failure(.closed))
    }

    @Test("a stream MHD cannot build: the stream and the reply close, nothing is held")
    func streamFails() throws {
        var calls = MHDCalls.live
        calls.queueStream = { _, _, _, _, _ in .notBuilt }
        let stream = HTTPStream()
        var streamClosed = false
        stream.onClose = { streamClosed = true }
        weak var exchange: Exchange?
        let h = try Harness(calls: calls) { h, _, reply in
            exchange = h.server.live.first
            reply.stream(contentType: "text/plain", stream)
        }
        let port = h.server.port
        let client = answer(h, "/preview")
        #expect(h.drive { client.isDone })
        #expect(client.value == .failure(.closed))
        #expect(h.drive(limit: 2) { h.server.live.isEmpty && heldSockets(port: port) == 0 })
        #expect(streamClosed && !stream.isOpen)
        #expect(exchange == nil)
        #expect(h.logs == ["http: cannot build the stream for GET /preview"])
    }

    @Test("a connection whose client left is resumed once, and never again after MHD completed it")
    func resumeGone() throws {
        let seen = SeamLog()
        var calls = MHDCalls.live
        let resume = calls.resume
        calls.resume = { connection in
            seen.resumed.append(connection)
            resume(connection)
        }
        var held: HTTPReply?
        var exchange: Exchange?
        var closed = false
        let h = try Harness(calls: calls) { h, _, reply in
            held = reply
            exchange = h.server.live.first
            reply.onClose = { closed = true }
        }
        let port = h.server.port
        let client = Background(h) { () -> Bool in
            let c = RawClient(port: port)
            c.get("/ears?wait=30")
            usleep(200_000)
            return true  // c closes as the closure returns
        }
        #expect(h.drive { client.isDone && held != nil })
        #expect(h.drive(limit: 2) { closed && h.server.live.isEmpty && heldSockets(port: port) == 0 })
        #expect(seen.resumed.count == 1, "the hang-up resumed it so MHD could close it")
        // The connection is gone: a late answer, a wake and a resume ask nothing of MHD.
        let gone = try #require(exchange)
        #expect(gone.connection == nil)
        held?.send(.json(200, okBody))
        gone.wake()
        h.server.perform(.resume, gone)
        h.server.perform(.closeReplyAndResume, gone)
        h.server.perform(.suspend, gone)
        h.server.run()
        #expect(seen.resumed.count == 1)
        #expect(h.logs.isEmpty, "\(h.logs)")
    }

    @Test("a run MHD says failed is said once in words, and the server still stops")
    func runFails() throws {
        var calls = MHDCalls.live
        calls.run = { _ in false }
        let h = try Harness(calls: calls) { _, _, _ in }
        h.server.run()
        h.server.run()
        #expect(h.logs == ["http: libmicrohttpd could not run (it says why above, if it did)"])
        h.server.stop(grace: 0)
        #expect(h.server.pollDescriptor == nil && h.server.hangupDescriptor == nil)
    }

    @Test("MHD not saying its timeout: requests are still answered, on readiness alone")
    func noTimeout() throws {
        var calls = MHDCalls.live
        calls.timeout = { _ in nil }
        let h = try Harness(calls: calls) { _, _, reply in reply.send(.json(200, okBody)) }
        #expect(h.server.timeout() == nil)
        let client = answer(h, "/status")
        #expect(h.drive { client.isDone })
        #expect(try client.value?.get().status == 200)
    }
}
