import Foundation
import Testing
import BodyTestSupport

/// Runs `command` (its program first) to its end: its exit status and what it
/// wrote, standard output and error together.
func runCommand(_ command: [String]) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: command[0])
    p.arguments = Array(command.dropFirst())
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let end = p.waitForExit()
    return (end.code, text)
}

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
        let (status, text) = try runCommand(command)
        #expect(status == 0, "\(text)")
        let owner = getuid() == 0 ? "root" : String(cString: getpwuid(getuid())!.pointee.pw_name)
        #expect(text.contains("token \(token.path): not checked: it is the service's (readable by \(owner) only); to check it too: sudo -u \(owner) \(Repository.studioBody) check --config \(conf.path)"), "\(text)")
        #expect(text.contains("board sim"), "the rest is checked: \(text)")
        #expect(text.contains("buttons onair, wrapup, kill, camera), drives an LED (the lamp blinks while unread)"), "\(text)")
    }
}

// `studio-body check` says what the lamp's line drives, as the board file says
// it, and refuses a relay that would blink (issue 35).
@Suite("check and the lamp's part")
struct CheckLampTests {
    /// `studio-body check` on a simulated board file with this `[lamp]`; its status and words.
    func check(lamp: String) throws -> (Int32, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-body-check-lamp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = dir.appendingPathComponent("token")
        try "0123456789abcdef0123\n".write(to: token, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token.path)
        let board = dir.appendingPathComponent("board.conf")
        try "[board]\nkind = sim\n[lamp]\nline = L\n\(lamp)[armed-led]\nline = A\n[button onair]\nline = B\n"
            .write(to: board, atomically: true, encoding: .utf8)
        let conf = dir.appendingPathComponent("body.conf")
        try "[body]\ntls = no\nlisten = 127.0.0.1:0\ntoken-file = \(token.path)\n[board]\nfile = \(board.path)\n"
            .write(to: conf, atomically: true, encoding: .utf8)
        let (status, text) = try runCommand([Repository.studioBody, "check", "--config", conf.path])
        return (status, text.replacingOccurrences(of: board.path, with: "BOARD"))
    }

    @Test("a relay: check says the lamp is dark while unread and the armed LED blinks", arguments: [
        ("drives = relay\n", "drives a relay (the lamp is dark while unread, the armed LED blinks)"),
        ("drives = contactor\nunread = lit\n", "drives a contactor (the lamp is lit while unread, the armed LED blinks)"),
        ("drives = mosfet\n", "drives a MOSFET (the lamp blinks while unread)"),
    ])
    func says(lamp: String, words: String) throws {
        let (status, text) = try check(lamp: lamp)
        #expect(status == 0, "\(text)")
        #expect(text.contains(words), "\(text)")
    }

    @Test("a relay told to blink, or a part the body does not know, stops the check with the line and the words")
    func refuses() throws {
        var (status, text) = try check(lamp: "drives = relay\nunread = blink\n")
        #expect(status != 0)
        #expect(text.contains("BOARD:6: [lamp] unread: blink is refused for a lamp that drives a relay"), "\(text)")
        (status, text) = try check(lamp: "drives = bulb\n")
        #expect(status != 0)
        #expect(text.contains("BOARD:5: [lamp] drives: expected what the lamp's line drives: led, mosfet, ssr, relay, contactor, found bulb"), "\(text)")
    }
}
