import BodyHub
import BodyTestSupport
import Foundation
import Glibc
import Testing

/// The body's own client (the hello, issue 36, docs/tls.md) against an Oriel
/// played by `openssl s_server` with one TLS setting each: TLS 1.2 with an AEAD
/// suite gets through; TLS 1.1, or TLS 1.2 with CBC-SHA1 suites alone, is refused.
@Suite("the hello's TLS: 1.2 at least, AEAD suites only", .serialized)
struct HelloTLSTests {
    /// A P-256 key and certificate for localhost in a folder of its own, and curl's form of its pin.
    static func identity() throws -> (dir: String, pin: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hello-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let made = try runTool("/bin/sh", ["-c", """
            cd '\(dir)' && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem \
              -out cert.pem -subj /CN=localhost -addext subjectAltName=DNS:localhost -days 1 2>/dev/null &&
            openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64
            """], package: "openssl")
        try #require(made.code == 0, "\(made.out)")
        return (dir, "sha256//" + made.out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// What the body's client gets from an s_server allowing only `flags`.
    static func hello(_ flags: [String]) throws -> Result<HubResponse, HubError> {
        let (dir, pin) = try identity()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A port the kernel gives and takes back, for s_server (whose own output is buffered in a pipe).
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let port = try #require(bindLoopback(probe))
        close(probe)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        server.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", "\(dir)/cert.pem", "-key", "\(dir)/key.pem",
                            "-www", "-quiet"] + flags
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        // SIGKILL: s_server inherits the test runner's signal mask, where SIGTERM may be blocked.
        defer { kill(server.processIdentifier, SIGKILL); server.waitForExit() }
        try #require(eventuallyConnects(port), "openssl s_server did not listen on \(port)")
        return HubConnection(part: "hello", pin: pin, trust: "\(dir)/cert.pem").send("GET", "https://localhost:\(port)/", timeout: 10)
    }

    @Test("TLS 1.2 with ECDHE and AES-GCM: the hello gets through")
    func aead() throws {
        let got = try Self.hello(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"])
        #expect((try? got.get().status) == 200, "\(got)")
    }

    @Test("TLS 1.1, or TLS 1.2 with CBC-SHA1 suites alone: refused, in words", arguments: [
        ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"],
        ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA"],
    ])
    func refused(_ flags: [String]) throws {
        let got = try Self.hello(flags)
        guard case .failure(let error) = got else { Issue.record("a handshake with \(flags) was accepted"); return }
        #expect(!"\(error)".isEmpty)
    }

    /// Whether 127.0.0.1:`port` takes a connection within 5 s.
    static func eventuallyConnects(_ port: UInt16) -> Bool {
        for _ in 0..<100 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            if connectLoopback(fd, port: port) == 0 { return true }
            usleep(50_000)
        }
        return false
    }
}
