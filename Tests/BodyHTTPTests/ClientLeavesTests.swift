import Foundation
import Glibc
import Testing
@testable import BodyHTTP

/// A client that goes away while its request is suspended: MHD does not watch
/// that socket, so the server's hang-up watch must tell the reply's owner.
@Suite("HTTP server: a client leaves a suspended request", .serialized)
struct ClientLeavesTests {
    @Test("a client that closes while its request waits: the reply's onClose runs within a fraction of a second")
    func waitingReply() throws {
        var held: HTTPReply?
        var closedAt: Double?
        let h = try Harness { _, _, reply in
            held = reply
            reply.onClose = { closedAt = Harness.now() }
        }
        let port = h.server.port
        let client = Background(h) { () -> Double in
            let c = RawClient(port: port)
            c.get("/ears?wait=30")
            usleep(200_000)
            return Harness.now()  // c closes as the closure returns
        }
        #expect(h.drive { client.isDone && held != nil })
        let left = try #require(client.value)
        #expect(h.drive(limit: 2) { closedAt != nil })
        let heard = try #require(closedAt)
        #expect(heard - left < 0.5)
        #expect(held?.isOpen == false)
        // A late answer is dropped, and the server holds no socket.
        held?.send(.json(200, okBody))
        #expect(h.drive(limit: 2) { h.server.live.isEmpty && heldSockets(port: port) == 0 })
        // A client that left is no error: the only line is none.
        #expect(h.logs.isEmpty, "\(h.logs)")
    }

    @Test("a client that closes while its stream waits for a frame: the stream's onClose runs at once")
    func idleStream() throws {
        var closedAt: Double?
        let stream = HTTPStream()
        stream.onClose = { closedAt = Harness.now() }
        let h = try Harness { _, _, reply in reply.stream(contentType: "text/plain", stream) }
        let port = h.server.port
        let client = Background(h) { () -> Double in
            let c = RawClient(port: port)
            c.get("/preview")
            _ = try? c.head()
            return Harness.now()
        }
        #expect(h.drive { client.isDone })
        let left = try #require(client.value)
        #expect(h.drive(limit: 2) { closedAt != nil })
        #expect((closedAt ?? 99) - left < 0.5)
        #expect(h.drive(limit: 2) { h.server.live.isEmpty && heldSockets(port: port) == 0 })
    }

    @Test("an answer that went out closes the reply too, once")
    func answeredReply() throws {
        var closes = 0
        let h = try Harness { h, _, reply in
            reply.onClose = { closes += 1 }
            h.after(0.05) { reply.send(.json(200, okBody)) }
        }
        let port = h.server.port
        let client = Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.get("/ears?wait=1")
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive { client.isDone })
        #expect(try client.value?.get().status == 200)
        #expect(h.drive(limit: 2) { closes == 1 && h.server.live.isEmpty })
    }
}
