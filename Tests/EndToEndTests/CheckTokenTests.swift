import Foundation
import Testing
import BodyTestSupport

// `studio-body check` as a person who cannot read the token (0600, the service's):
// everything else is checked, and the words say how to check the token too.
@Suite("check without the token")
struct CheckTokenTests {
    @Test("a person who cannot read the token is told it is the service's, and how to check it; the rest is checked")
    func unreadableToken() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-body-check-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = dir.appendingPathComponent("token")
        try "0123456789abcdef0123\n".write(to: token, atomically: true, encoding: .utf8)
        let conf = dir.appendingPathComponent("body.conf")
        try "[body]\ntls = no\nlisten = 127.0.0.1:0\ntoken-file = \(token.path)\n[board]\nfile = sim\n".write(to: conf, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: conf.path)

        // Root reads every file: then the check runs as nobody, as a person would.
        var command = [Repository.studioBody, "check", "--config", conf.path]
        if getuid() == 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token.path)
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o200], ofItemAtPath: token.path)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: command[0])
        p.arguments = Array(command.dropFirst())
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")
        let owner = getuid() == 0 ? "root" : String(cString: getpwuid(getuid())!.pointee.pw_name)
        #expect(text.contains("token \(token.path): not checked: it is the service's (readable by \(owner) only); to check it too: sudo -u \(owner) \(Repository.studioBody) check --config \(conf.path)"), "\(text)")
        #expect(text.contains("board sim"), "the rest is checked: \(text)")
    }
}
