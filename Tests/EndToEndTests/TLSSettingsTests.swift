import Foundation
import Testing
import BodyTestSupport

/// The body's TLS settings (issue 36, docs/tls.md) as real clients see them:
/// OpenSSL's and GnuTLS's own command-line clients and sslscan, against the
/// real binary. Each refusal is judged by the client's exit status or
/// sslscan's XML, never by a library's wording (Bookworm and Trixie differ).
@Suite("TLS 1.3 only: real clients against the real body")
struct TLSSettingsTests {
    /// `openssl s_client` with `flags`; security level 0 so the client really
    /// offers TLS 1.0 and SHA-1 suites (OpenSSL 3's default would not even ask).
    static func openssl(_ port: Int, _ flags: [String]) throws -> (code: Int32, out: String) {
        try runTool("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)", "-brief"] + flags, package: "openssl")
    }

    static func gnutls(_ port: Int, certificate: String, priority: String) throws -> (code: Int32, out: String) {
        try runTool("/usr/bin/gnutls-cli", ["--x509cafile", certificate, "--priority", priority, "-p", "\(port)", "localhost"],
                    package: "gnutls-bin")
    }

    @Test("openssl: TLS 1.0, 1.1 and 1.2 (CBC-SHA1 suites too) are refused; TLS 1.3 is served", arguments: [
        ["-tls1", "-cipher", "DEFAULT:@SECLEVEL=0"],
        ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"],
        ["-tls1_2", "-cipher", "DEFAULT:@SECLEVEL=0"],
        ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:@SECLEVEL=0"],
    ])
    func opensslRefused(_ flags: [String]) async throws {
        let body = try await BodyProcess.start()
        let old = try Self.openssl(body.port, flags)
        #expect(old.code != 0, "a handshake with \(flags) completed: \(old.out)")
        // The same client, the same body: TLS 1.3 completes, so the refusal above was the version's.
        let served = try Self.openssl(body.port, ["-tls1_3"])
        #expect(served.code == 0 && served.out.contains("TLSv1.3"), "\(served.out)")
    }

    @Test("gnutls-cli trusting the body's certificate: TLS 1.3 is served; 1.2 and 1.0 are refused")
    func gnutls() async throws {
        let body = try await BodyProcess.start()
        let served = try Self.gnutls(body.port, certificate: body.certificate, priority: "NORMAL:-VERS-ALL:+VERS-TLS1.3")
        #expect(served.code == 0, "\(served.out)")
        for version in ["TLS1.2", "TLS1.0"] {
            let old = try Self.gnutls(body.port, certificate: body.certificate, priority: "NORMAL:-VERS-ALL:+VERS-\(version)")
            #expect(old.code != 0, "a \(version) handshake completed: \(old.out)")
        }
    }

    @Test("sslscan: only TLS 1.3 is enabled, every accepted suite is TLS 1.3's, no renegotiation")
    func sslscan() async throws {
        let body = try await BodyProcess.start()
        let scan = try runTool("/usr/bin/sslscan", ["--no-colour", "--xml=-", "127.0.0.1:\(body.port)"], package: "sslscan")
        // sslscan writes one element a line: `<protocol type="tls" version="1.0" enabled="0" />`.
        func attributes(_ element: String) -> [[String: String]] {
            scan.out.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("<\(element) ") }.map { line in
                var found: [String: String] = [:]
                for pair in line.split(separator: " ").dropFirst() {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { found[String(parts[0])] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"/>")) }
                }
                return found
            }
        }
        let enabled = attributes("protocol").filter { $0["enabled"] == "1" }.map { "\($0["type"] ?? "")\($0["version"] ?? "")" }
        #expect(enabled == ["tls1.3"], "\(scan.out)")
        let suites = attributes("cipher")
        #expect(!suites.isEmpty && suites.allSatisfy { $0["sslversion"] == "TLSv1.3" }, "\(suites)")
        #expect(attributes("renegotiation").map { $0["supported"] } == ["0"], "\(scan.out)")
    }
}
