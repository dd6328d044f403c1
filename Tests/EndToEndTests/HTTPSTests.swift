import Foundation
import Testing
import BodyTestSupport
import BodyHub

/// A fresh body serves HTTPS with its own certificate (issue 19), and a client
/// that trusts that certificate alone, the way Oriel will, reaches it. The
/// client is curl: `--cacert` the body's certificate as the only authority,
/// `--pinnedpubkey` its pin; never `--insecure` alone.
@Suite("HTTPS by default, with the body's own certificate, pinned")
struct HTTPSTests {
    static func curl(_ args: [String]) throws -> (code: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-sS", "--max-time", "10"] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        let end = p.waitForExit()
        return (end.code, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    static func tool(_ args: [String]) throws -> (code: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Repository.studioBody)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let end = p.waitForExit()
        return (end.code, String(decoding: o, as: UTF8.self))
    }

    static func start(_ name: String) async throws -> (BodyRun, Int) {
        let run = try BodyRun(name, token: "https-token-0123456789abcdef") { _, tokenFile in
            "[body]\nname = studio\nlisten = 127.0.0.1:0\ntoken-file = \(tokenFile)\nannounce = no\n[board]\nfile = sim\n"
        }
        guard await eventually(within: 20, { run.servingPort != nil && run.pin != nil }), let port = run.servingPort else {
            throw BodyFailed(words: "studio-body did not start: \(run.log)")
        }
        return (run, port)
    }

    @Test("a first start makes the key and certificate (0600), says so and the pin; curl trusting that certificate alone gets /status")
    func firstStart() async throws {
        let (run, port) = try await Self.start("https-first")
        let cert = run.dir.appendingPathComponent("tls.crt").path, key = run.dir.appendingPathComponent("tls.key").path
        for file in [cert, key] {
            #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
        }
        #expect(run.log.contains("tls: serving HTTPS with a key and self-signed certificate made now in \(cert)"))
        let pin = try #require(run.curlPin)
        let status = try Self.curl(["--cacert", cert, "-H", "Authorization: Bearer \(run.token)", "https://localhost:\(port)/status"])
        #expect(status.code == 0 && status.out.contains("\"onair\""), "\(status.err)")
        let pinned = try Self.curl(["--cacert", cert, "--pinnedpubkey", pin, "-H", "Authorization: Bearer \(run.token)",
                                    "https://127.0.0.1:\(port)/hello"])
        #expect(pinned.code == 0 && pinned.out.contains("\"tls\":\"\(run.pin!)\""), "\(pinned.err)")
        // The system's authorities do not vouch for it: an unpinned client is refused.
        let untrusted = try Self.curl(["https://localhost:\(port)/hello"])
        #expect(untrusted.code == 60, "\(untrusted.err)")
        let wrong = try Self.curl(["--cacert", cert, "--pinnedpubkey", "sha256//" + String(repeating: "A", count: 43) + "=",
                                   "https://localhost:\(port)/hello"])
        #expect(wrong.code == 90, "\(wrong.err)")
        // check and tls say the same pin as the log.
        let conf = run.dir.appendingPathComponent("body.conf").path
        let check = try Self.tool(["check", "--config", conf])
        #expect(check.out.contains("tls: HTTPS with \(cert) (") && check.out.contains("Oriel pins \(run.pin!)"), "\(check.out)")
        let said = try Self.tool(["tls", "--config", conf])
        #expect(said.code == 0 && said.out.contains("pin \(run.pin!)"), "\(said.out)")
    }

    @Test("a kept-alive connection pays one handshake for many requests, a long poll's among them")
    func keptAlive() async throws {
        let (run, port) = try await Self.start("https-kept-alive")
        let cert = run.dir.appendingPathComponent("tls.crt").path
        let url = "https://localhost:\(port)"
        let three = try Self.curl(["-v", "--cacert", cert, "--pinnedpubkey", run.curlPin ?? "", "-H", "Authorization: Bearer \(run.token)",
                                   "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
                                   "\(url)/status", "\(url)/ears?after=0&wait=1", "\(url)/hello"])
        #expect(three.code == 0, "\(three.err)")
        let handshakes = three.err.components(separatedBy: "SSL connection using").count - 1
        let reused = three.err.components(separatedBy: "Re-using existing connection").count - 1
        #expect(handshakes == 1 && reused == 2, "handshakes \(handshakes), reused \(reused): \(three.err.suffix(600))")
    }

    @Test("the tests' in-process client keeps its connection: one for many requests, a push and a long poll's among them")
    func inProcessKeptAlive() async throws {
        let body = try await BodyProcess.start()
        let client = HubConnection(part: "end-to-end test", pin: try #require(body.curlPin), trust: body.certificate)
        let url = "https://localhost:\(body.port)", auth = [("Authorization", "Bearer \(body.token)")]
        let statuses = try [
            client.send("GET", url + "/status", headers: auth, timeout: 10).get().status,
            client.send("POST", url + "/face", headers: auth + [("Content-Type", "application/json")],
                        body: Array(#"{"onair":{"on":true,"phase":"live"}}"#.utf8), timeout: 10).get().status,
            client.send("GET", url + "/ears?after=0&wait=0.2", headers: auth, timeout: 10).get().status,
            client.send("GET", url + "/status", headers: auth, timeout: 10).get().status,
        ]
        #expect(statuses == [200, 200, 200, 200])
        #expect(client.connectionsOpened == 1, "opened \(client.connectionsOpened) connections for 4 requests")
    }

    @Test("a restart keeps the certificate; tls --renew makes a new key and pin")
    func keptThenRenewed() async throws {
        let (run, _) = try await Self.start("https-kept")
        let conf = run.dir.appendingPathComponent("body.conf").path
        let first = try #require(run.pin)
        run.process.terminate()
        run.process.waitForExit()
        let again = try Self.tool(["tls", "--config", conf])
        #expect(again.out.contains("pin \(first)"))
        let renewed = try Self.tool(["tls", "--config", conf, "--renew"])
        #expect(renewed.code == 0 && renewed.out.contains("made a new key and certificate"), "\(renewed.out)")
        let after = try Self.tool(["tls", "--config", conf])
        #expect(after.code == 0 && !after.out.contains(first), "\(after.out)")
    }

    @Test("Oriel's push, poll and a press's answer over HTTPS, through the pinned client")
    func onAirOverHTTPS() async throws {
        let body = try await BodyProcess.start(tls: true)
        let pushed = try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        #expect(pushed.status == 200 && pushed.contentType?.hasPrefix("application/json") == true)
        #expect(try await body.status().object("lines").bool("lamp") == true)
        try await body.press("kill", times: 2)
        #expect(await eventually(within: 5) { ((try? await body.ears().items()) ?? []).count == 1 })
        #expect(try await body.request("GET", "/status", token: .some(nil)).status == 401)
    }

    @Test("the in-process client with a wrong pin is refused, in words, and never reaches the body")
    func wrongPin() async throws {
        let body = try await BodyProcess.start()
        let wrong = "sha256//" + String(repeating: "A", count: 43) + "="
        let client = HubConnection(part: "end-to-end test", pin: wrong, trust: body.certificate)
        let refused = client.send("POST", "https://localhost:\(body.port)/face",
                                  headers: [("Authorization", "Bearer \(body.token)")],
                                  body: Array(#"{"onair":{"on":true,"phase":"live"}}"#.utf8), timeout: 10)
        guard case .failure(let error) = refused else { Issue.record("a wrong pin was accepted: \(refused)"); return }
        #expect("\(error)".contains("refused: its certificate's public key is not the pinned sha256:AAAA"), "\(error)")
        let onair = try await body.onair()
        #expect(onair.string("value") == "unknown", "the push went through a wrong pin: \(onair)")
        // The page tests' byte stream is refused the same way, before a byte is sent.
        let stream = HubStream.open("https://localhost:\(body.port)", part: "page test", pin: wrong, trust: body.certificate, timeout: 10)
        guard case .failure(let streamError) = stream else { Issue.record("a wrong pin opened a stream"); return }
        #expect("\(streamError)".contains("refused: its certificate's public key is not the pinned sha256:AAAA"), "\(streamError)")
        // The same client with the right pin gets through: the refusal was the pin's.
        let right = HubConnection(part: "end-to-end test", pin: try #require(body.curlPin), trust: body.certificate)
        let hello = try right.send("GET", "https://localhost:\(body.port)/hello",
                                   headers: [("Authorization", "Bearer \(body.token)")], timeout: 10).get()
        #expect(hello.status == 200 && hello.contentType?.hasPrefix("application/json") == true, "\(hello)")
    }

    @Test("tls = no serves plain HTTP and says why")
    func plain() async throws {
        // Plain HTTP on purpose: this test is about `tls = no`.
        let body = try await BodyProcess.start(tls: false)
        #expect(await eventually(within: 5) { body.log.contains("tls: serving plain HTTP because [body] tls = no") }, "\(body.log)")
        #expect(try await body.request("GET", "/hello").json["tls"] is NSNull)
    }
}
