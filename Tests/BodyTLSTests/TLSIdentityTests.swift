import Foundation
import Testing
import BodyCore
import BodyTLS
import BodyTestSupport

/// The body's key and certificate on a real filesystem, through GnuTLS.
@Suite("the body's own key and certificate (issue 19)")
struct TLSIdentityTests {
    let names = (dns: ["studio", "studio.local", "localhost"], ips: ["127.0.0.1", "::1"])

    func directory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)").path
        return dir
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test("made once in a new directory (0600 files), then read back the same, never rewritten")
    func madeOnce() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try TLSIdentity.read(directory: dir) == nil)
        let (made, fresh) = try TLSIdentity.obtain(directory: dir, commonName: "studio", names: names)
        #expect(fresh)
        #expect(try mode(made.keyFile) == 0o600 && mode(made.certificateFile) == 0o600)
        #expect(try mode(dir) == 0o700)
        #expect(made.names == ["studio", "studio.local", "localhost", "127.0.0.1", "::1"])
        #expect(String(decoding: made.key, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let before = try Data(contentsOf: URL(fileURLWithPath: made.keyFile))
        let (again, freshAgain) = try TLSIdentity.obtain(directory: dir, commonName: "studio", names: names)
        #expect(!freshAgain)
        #expect(again.pin == made.pin)
        #expect(try Data(contentsOf: URL(fileURLWithPath: made.keyFile)) == before)
    }

    @Test("the pin is the SHA-256 of the certificate's public key, as openssl computes it")
    func pinIsOpenSSLs() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (made, _) = try TLSIdentity.obtain(directory: dir, commonName: "studio", names: names)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "openssl x509 -in '\(made.certificateFile)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"]
        let out = Pipe()
        shell.standardOutput = out
        try shell.run()
        shell.waitForExit()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(made.pin.description == "sha256:" + said)
    }

    @Test("renew makes a new key and a new pin")
    func renew() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (first, _) = try TLSIdentity.obtain(directory: dir, commonName: "studio", names: names)
        let (second, made) = try TLSIdentity.obtain(directory: dir, commonName: "studio", names: names, renew: true)
        #expect(made && second.pin != first.pin)
        #expect(try TLSIdentity.read(directory: dir)?.pin == second.pin)
    }

    @Test("a key others may read, a key alone, a key of another certificate: each refused in words")
    func refused() throws {
        let dir = try directory(), other = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: other) }
        let (made, _) = try TLSIdentity.obtain(directory: dir, commonName: "studio", names: names)
        let (elsewhere, _) = try TLSIdentity.obtain(directory: other, commonName: "studio", names: names)

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: made.keyFile)
        #expect(throws: TLSError.self) { try TLSIdentity.read(directory: dir) }
        #expect(words { try TLSIdentity.read(directory: dir) } == "tls: \(made.keyFile) is readable by others (mode 644); run chmod 600 \(made.keyFile)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: made.keyFile)

        try FileManager.default.removeItem(atPath: elsewhere.keyFile)
        try FileManager.default.copyItem(atPath: made.keyFile, toPath: elsewhere.keyFile)
        #expect(words { try TLSIdentity.read(directory: other) } == "tls: \(elsewhere.keyFile) and \(elsewhere.certificateFile): the key does not belong to the certificate")

        try FileManager.default.removeItem(atPath: made.certificateFile)
        #expect(words { try TLSIdentity.read(directory: dir) }
            == "tls: \(made.keyFile) is there but its certificate \(made.certificateFile) is not; run studio-body tls --renew to make both again")

        try "not a key".write(toFile: elsewhere.keyFile, atomically: false, encoding: .utf8)
        #expect(words { try TLSIdentity.read(directory: other) }?.contains("the key cannot be read") == true)
    }

    @Test("a directory that cannot be made is said")
    func noDirectory() {
        #expect(words { try TLSIdentity.obtain(directory: "/proc/nope/tls", commonName: "s", names: names) }
            == "tls: cannot make the directory /proc/nope/tls: No such file or directory")
    }

    private func words<T>(_ body: () throws -> T) -> String? {
        do { _ = try body(); return nil } catch { return "\(error)" }
    }
}
