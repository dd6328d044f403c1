import BodyHub
import Foundation
import Synchronization
import Testing

@Suite("calls to a hub over libcurl, against a real socket on 127.0.0.1")
struct HubClientTests {
    @Test("a post carries the bearer token, the JSON body and the caller's headers")
    func postSendsTokenAndBody() throws {
        let server = try TestServer { _ in Reply(status: 200, body: Array(#"{"ok":true}"#.utf8)) }
        defer { server.stop() }
        let json = Array(#"{"name":"studio","boot":"b1"}"#.utf8)

        let result = HubClient().post(server.url + "/api/bodies/hello", token: "s3cret", json: json,
                                      headers: [("X-Cordelia-Doing", "saying hello")])

        #expect(result == .success(HubResponse(status: 200, body: Array(#"{"ok":true}"#.utf8), contentType: "application/json")))
        let seen = try #require(server.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.target == "/api/bodies/hello")
        #expect(seen.headers["authorization"] == "Bearer s3cret")
        #expect(seen.headers["content-type"] == "application/json")
        #expect(seen.headers["x-cordelia-doing"] == "saying hello")
        #expect(seen.body == json)
    }

    @Test("the hello goes to {oriel}/api/bodies/hello, off the caller's thread, and done is called")
    func helloSenderPosts() async throws {
        let server = try TestServer { _ in Reply(status: 204, body: []) }
        defer { server.stop() }
        let sender = HelloSender(client: HubClient())

        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<HubResponse, HubError>, Never>) in
            sender.send(url: HelloSender.url(oriel: server.url + "/"), token: "t0k", body: Array(#"{"name":"studio"}"#.utf8)) { done.resume(returning: $0) }
        }

        #expect(result == .success(HubResponse(status: 204, body: [], contentType: "application/json")))
        #expect(server.requests.map(\.target) == ["/api/bodies/hello"])
        #expect(server.requests.first?.headers["authorization"] == "Bearer t0k")
    }

    @Test("hellos sent together go one at a time, in order")
    func helloSenderOrder() async throws {
        let server = try TestServer { _ in Reply() }
        defer { server.stop() }
        let sender = HelloSender(client: HubClient())

        let answers = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            let count = LockedCount()
            for n in 1...3 {
                sender.send(url: server.url, token: "t", body: Array("{\"n\":\(n)}".utf8)) { _ in
                    if count.bump() == 3 { done.resume(returning: 3) }
                }
            }
        }

        #expect(answers == 3)
        #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
    }

    @Test("a refused connection is a failure whose words name the URL")
    func refusedNamesURL() throws {
        let url = "http://127.0.0.1:\(try TestServer.deadPort())/api/bodies/hello"

        let result = HubClient().post(url, token: "t", json: Array("{}".utf8))

        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error.reason == .unreachable("Couldn't connect to server"))
        #expect(error.description == "hello: cannot reach \(url): Couldn't connect to server")
    }

    @Test("a 500 is a failure that names the status and the hub's words")
    func serverErrorNamesStatus() throws {
        let server = try TestServer { _ in Reply(status: 500, body: Array(#"{"error":"oriel is restarting"}"#.utf8)) }
        defer { server.stop() }
        let url = server.url + "/api/bodies/hello"

        let result = HubClient().post(url, token: "t", json: Array("{}".utf8))

        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error.reason == .status(500, "oriel is restarting"))
        #expect(error.description == "hello: POST \(url) answered 500 Internal Server Error: oriel is restarting")
    }

    @Test("a hub that never answers is given up on when the timeout runs out")
    func timeoutHonoured() throws {
        let server = try TestServer { _ in Reply(hang: 5) }
        defer { server.stop() }
        let url = server.url + "/api/bodies/hello"
        let started = Date()

        let result = HubClient(timeout: 0.5).post(url, token: "t", json: Array("{}".utf8))

        let took = Date().timeIntervalSince(started)
        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error.description == "hello: no answer from \(url) within 0.5 s")
        #expect(took >= 0.45 && took < 4.0, "took \(took) s")   // the hub hangs 5 s: under 4 is the timeout's doing
    }

    @Test("a get waits as long as its own timeout allows, longer than the client's default")
    func getHonoursItsTimeout() throws {
        let server = try TestServer { _ in
            Thread.sleep(forTimeInterval: 0.8)
            return Reply(status: 200, body: Array(#"{"items":[]}"#.utf8))
        }
        defer { server.stop() }
        let client = HubClient(timeout: 0.3, part: "demo hub")

        let slow = client.get(server.url + "/ears?after=0&wait=1", token: "t", timeout: 3)
        let hurried = client.get(server.url + "/ears?after=0&wait=1", token: "t", timeout: 0.3)

        #expect(slow == .success(HubResponse(status: 200, body: Array(#"{"items":[]}"#.utf8), contentType: "application/json")))
        #expect(server.requests.first?.method == "GET")
        guard case .failure(let error) = hurried else { Issue.record("expected a failure, got \(hurried)"); return }
        #expect(error.description.hasPrefix("demo hub: no answer from \(server.url)/ears"))
    }

    @Test("a token with a line break is refused before anything is sent")
    func lineBreakRefused() throws {
        let server = try TestServer { _ in Reply() }
        defer { server.stop() }
        let url = server.url + "/api/bodies/hello"

        let result = HubClient().post(url, token: "t\r\nX-Evil: 1", json: Array("{}".utf8))

        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error.description == "hello: cannot POST \(url): the Authorization header holds a line break")
        #expect(server.requests.isEmpty)
    }
}

/// A counter the sender's worker thread bumps.
final class LockedCount: Sendable {
    private let value = Mutex(0)
    func bump() -> Int { value.withLock { $0 += 1; return $0 } }
}
