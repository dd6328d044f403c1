import BodyHub
import BodyTestSupport
import Foundation
import Testing

/// The way Oriel reaches a body over HTTPS (issue 19), and the way the body
/// reaches an https Oriel with `[oriel] pin`: libcurl trusting the pinned
/// public key alone. Against the real body with its own fresh certificate.
@Suite("HTTPS by the pinned public key, against the real body's own certificate")
struct PinnedTests {
    static func body() async throws -> (BodyRun, Int) {
        let run = try BodyRun("pinned", token: "pinned-token-0123456789") { _, tokenFile in
            "[body]\nname = studio\nlisten = 127.0.0.1:0\ntoken-file = \(tokenFile)\nannounce = no\n[board]\nfile = sim\n"
        }
        guard await eventually(within: 20, { run.servingPort != nil && run.pin != nil }), let port = run.servingPort else {
            throw NotStarted(log: run.log)
        }
        return (run, port)
    }

    @Test("the right pin: the body answers, and its /hello gives that pin")
    func rightPin() async throws {
        let (run, port) = try await Self.body()
        let result = HubClient(part: "oriel", pin: run.curlPin).get("https://127.0.0.1:\(port)/hello", token: run.token, timeout: 10)
        let response = try result.get()
        #expect(response.status == 200)
        let hello = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(hello?["tls"] as? String == run.pin)
        // by name too: the certificate names localhost
        #expect(try HubClient(part: "oriel", pin: run.curlPin).get("https://localhost:\(port)/hello", token: run.token, timeout: 10).get().status == 200)
    }

    @Test("another pin is refused in words, and no pin is not trusted: a self-signed certificate has no authority")
    func wrongPin() async throws {
        let (run, port) = try await Self.body()
        let url = "https://127.0.0.1:\(port)/hello"
        let other = "sha256//" + String(repeating: "A", count: 43) + "="
        let refused = HubClient(part: "oriel", pin: other).get(url, token: run.token, timeout: 10)
        #expect(refused.failure?.description == "oriel: cannot GET \(url): refused: its certificate's public key is not the pinned sha256:\(String(repeating: "A", count: 43))=")
        let untrusted = HubClient(part: "oriel").get(url, token: run.token, timeout: 10)
        #expect(untrusted.failure?.description.contains("refused: its certificate is not trusted by this system's certificate authorities") == true)
    }

    @Test("plain HTTP to the HTTPS port gets no answer, and the body still serves the pinned client after")
    func plainToTLS() async throws {
        let (run, port) = try await Self.body()
        let plain = HubClient(part: "oriel").get("http://127.0.0.1:\(port)/hello", token: run.token, timeout: 5)
        #expect(plain.failure != nil)
        #expect(try HubClient(part: "oriel", pin: run.curlPin).get("https://127.0.0.1:\(port)/hello", token: run.token, timeout: 10).get().status == 200)
    }
}

struct NotStarted: Error, CustomStringConvertible {
    var log: String
    var description: String { "studio-body did not start: \(log)" }
}

extension Result {
    var failure: Failure? {
        if case .failure(let f) = self { return f }
        return nil
    }
}
