import BodyCore
import DemoHub
import Foundation
import Synchronization
import Testing

/// A fake studio body: `/ears` serves a queue of items under a boot id, `/face` is recorded.
final class FakeBody: Sendable {
    private final class State: Sendable {
        let value = Mutex((boot: "boot-1", items: [JSON](), polls: [String]()))
    }

    private let shared = State()
    let server: TestServer

    init(port: UInt16 = 0) throws {
        let shared = self.shared
        server = try TestServer(port: port) { request in
            let state = shared
            switch (request.method, request.path) {
            case ("POST", "/face"):
                return Reply(status: 200, body: Array(#"{"onair":{}}"#.utf8))
            case ("GET", "/ears"):
                let after = Int(request.query("after") ?? "0") ?? 0
                let answer = state.value.withLock { s -> JSON in
                    s.polls.append(request.target)
                    let fresh = s.items.filter { Int($0["seq"]?.number ?? 0) > after }
                    let next = s.items.compactMap { $0["seq"]?.number }.max() ?? 0
                    return .object(["boot": .string(s.boot), "items": .array(fresh), "next": .number(next)])
                }
                if answer["items"]?.array?.isEmpty == true { Thread.sleep(forTimeInterval: 0.2) }
                return Reply(status: 200, body: BodyJSON.encode(answer))
            default:
                return Reply(status: 404, body: BodyJSON.error("no such route"))
            }
        }
    }

    func queue(_ item: JSON) { shared.value.withLock { $0.items.append(item) } }
    func restart(boot: String) { shared.value.withLock { $0.boot = boot; $0.items = [] } }
    var polls: [String] { shared.value.withLock { $0.polls } }

    var faces: [JSON] {
        server.requests.filter { $0.path == "/face" }.compactMap { try? JSON.parse($0.body) }
    }

    /// Waits (real time: this is the hub's own pace) until `check` holds or `seconds` pass.
    func waitFor(_ seconds: Double, _ check: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if check() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return check()
    }
}

@Suite("the demo hub against a fake body on a real socket", .serialized)
struct DemoHubTests {
    @Test("it pushes the face at start, takes an onair item from /ears and answers it with the same id")
    func answersOnAirItem() throws {
        let body = try FakeBody()
        defer { body.server.stop() }
        let lines = Mutex([String]())
        let hub = DemoHub(bodyURL: body.server.url, token: "demo-token", log: { line in lines.withLock { $0.append(line) } })
        hub.start()
        defer { hub.stop() }

        #expect(body.waitFor(3) { !body.faces.isEmpty })
        #expect(body.faces.first?["onair"]?["on"] == .bool(false))
        #expect(body.server.requests.allSatisfy { $0.headers["authorization"] == "Bearer demo-token" })
        #expect(body.server.requests.allSatisfy { $0.headers["x-cordelia-doing"]?.hasPrefix("the demo hub") == true })

        body.queue(.object(["seq": .number(1_764_000_000_001), "kind": .string("onair"), "id": .string("q1"),
                            "on": .bool(true), "by": .string("studio")]))
        let answered = body.waitFor(6) { body.faces.contains { $0["onair"]?["answered"]?["id"] == .string("q1") } }

        #expect(answered)
        let face = try #require(body.faces.last { $0["onair"]?["answered"]?["id"] == .string("q1") })
        #expect(face["onair"]?["on"] == .bool(true))
        #expect(face["onair"]?["answered"]?["error"] == .null)
        #expect(body.waitFor(2) { body.polls.contains { $0.contains("after=1764000000001") } })
        #expect(lines.withLock { $0.contains("demo hub: turned On Air on, asked by the studio body's button") })
    }

    @Test("it waits for a body that is not up yet, and starts over when the body restarts")
    func survivesBodyAbsenceAndRestart() throws {
        let lines = Mutex([String]())
        let port = try TestServer.deadPort()
        let hub = DemoHub(bodyURL: "http://127.0.0.1:\(port)", token: "t", log: { line in lines.withLock { $0.append(line) } })
        hub.start()
        defer { hub.stop() }
        Thread.sleep(forTimeInterval: 1.5)
        #expect(lines.withLock { $0.filter { $0.contains("cannot reach") }.count } == 1)

        let body = try FakeBody(port: port)
        defer { body.server.stop() }
        #expect(body.waitFor(3) { body.faces.count == 1 })
        #expect(lines.withLock { $0.contains("demo hub: the studio body answers at http://127.0.0.1:\(port) (boot boot-1)") })
        body.queue(.object(["seq": .number(50), "kind": .string("dance"), "id": .string("x")]))
        #expect(body.waitFor(3) { body.polls.contains { $0.contains("after=50") } })

        body.restart(boot: "boot-2")

        #expect(body.waitFor(3) { body.faces.count == 2 })
        // The hub pushes the face before it polls again: wait for that poll too.
        #expect(body.waitFor(3) { body.polls.last?.contains("after=0") == true })
        #expect(lines.withLock { $0.contains { $0.hasPrefix("demo hub: the studio body restarted (boot boot-2)") } })
    }
}
