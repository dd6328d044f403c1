import Foundation
import Testing
import BodyTestSupport

/// Oriel's silence, the hello, the stop, and the command line.
@Suite("lifecycle")
struct LifecycleTests {
    @Test("after oriel.silence with neither push nor poll, On Air becomes unread in words")
    func silence() async throws {
        try await untilJudged("2-5 s after the poll") { _ in
            let body = try await BodyProcess.start(silence: "5s")
            let pushSent = Date()
            try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
            await pause(1.5)
            let pollSent = Date()
            _ = try await body.ears()          // a poll is a heartbeat
            // A stall of 5 s between the push and the poll let the silence come
            // first (the body rightly dropped the state): that try is spoiled.
            if Date().timeIntervalSince(pushSent) >= 4.5 { return false }
            // Heard after `pollSent`: still reading until 5 s after it.
            let seen = try await readings(every: 0.5, within: 20, until: { $0.object("onair").string("value") != "on" }) {
                try await body.status()
            }
            let readingTo = pollSent.addingTimeInterval(5)
            for r in seen where r.answered(before: readingTo) {
                #expect(r.value.object("onair").string("value") == "on", "at \(r.answered.timeIntervalSince(pollSent)) s")
            }
            let status = try #require(seen.last).value
            #expect(status.object("onair").string("value") == "unknown")
            #expect(status.object("onair").string("unread") == "Oriel has not been heard from in 5 s")
            #expect(status.object("oriel").bool("silent") == true)
            return seen.contains { $0.answered(before: readingTo) && !$0.answered(before: readingTo.addingTimeInterval(-3)) }
        }
    }

    @Test("with the default 60 s silence, the body is still reading the state after 3 s of quiet")
    func defaultSilence() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        await pause(3)
        #expect(try await body.onair().string("value") == "on")
        #expect(try await body.status().object("oriel").bool("silent") == false)
    }

    /// The process's memory map: read to its end (a /proc file says its size is 0,
    /// and a read by size stops after the first page).
    func mapped(_ body: BodyProcess) throws -> String {
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(body.process.processIdentifier)/maps"))
        defer { try? file.close() }
        return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
    }

    @Test("libcurl is loaded only to call Oriel: not mapped without an [oriel] url, mapped once the hello went")
    func curlOnlyForOriel() async throws {
        let alone = try await BodyProcess.start()
        _ = try await alone.status()
        let maps = try mapped(alone)
        #expect(maps.contains("/libmicrohttpd.so"), "the map was not read whole")
        #expect(!maps.contains("libcurl"), "a body that never calls Oriel mapped libcurl")
        let oriel = try FakeOriel()
        let calling = try await BodyProcess.start(oriel: oriel.url)
        #expect(await eventually(within: 5) { !oriel.hellos.isEmpty })
        #expect(try mapped(calling).contains("/libcurl.so.4"))
    }

    @Test("hello at start, with the token and the body's boot id")
    func helloAtStart() async throws {
        let oriel = try FakeOriel()
        let body = try await BodyProcess.start(oriel: oriel.url, tls: true)
        #expect(await eventually(within: 5) { !oriel.hellos.isEmpty })
        let hello = try #require(oriel.hellos.first)
        #expect(hello.path == "/api/bodies/hello")
        #expect(hello.authorization == "Bearer \(body.token)")
        #expect(hello.body["name"] as? String == "studio")
        #expect((hello.body["boot"] as? String)?.isEmpty == false)
        #expect(hello.body["url"] as? String == "https://127.0.0.1:\(body.port)")
        #expect(hello.body["tls"] as? String == body.pin, "the hello carries the pin Oriel checks the body by")
        await pause(2)
        #expect(oriel.hellos.count == 1, "one hello when it is answered")
    }

    @Test("hello backs off while Oriel fails (1, 2, 4 s with jitter) and logs the failure once")
    func helloBackoff() async throws {
        let oriel = try FakeOriel()
        oriel.answer(500)
        let body = try await BodyProcess.start(oriel: oriel.url)
        #expect(await eventually(within: 16) { oriel.hellos.count >= 4 })
        let times = oriel.hellos.map(\.at)
        let gaps = zip(times, times.dropFirst()).map { $1.timeIntervalSince($0) }
        // The exact gaps are Hello's rule's, tested at literal times; a real process on a
        // loaded machine can only be late, so the upper bounds leave room for that and
        // still tell a doubling from the next step of it.
        #expect(gaps[0] >= 0.9 && gaps[0] <= 1.9, "\(gaps)")
        #expect(gaps[1] >= 1.9 && gaps[1] <= 3.8, "\(gaps)")
        #expect(gaps[2] >= 3.9 && gaps[2] <= 7.5, "\(gaps)")
        let failures = body.log.components(separatedBy: "\n").filter { $0.contains("hello") && $0.contains("500") }
        #expect(failures.count == 1, "\(failures)")
    }

    @Test("hello goes at once when Oriel comes back and calls, not at the next retry")
    func helloWhenOrielReturns() async throws {
        let port = try FakeOriel.closedPort()
        let body = try await BodyProcess.start(oriel: "http://127.0.0.1:\(port)")
        await pause(4)   // retries at about 1, 3 and 7 s: the next one is ~3 s away
        #expect(body.log.contains("Couldn't connect") || body.log.contains("connect"), "\(body.log)")
        let oriel = try FakeOriel(port: port)
        let back = Date()
        _ = try await body.ears()        // Oriel polls: it is back
        #expect(await eventually(within: 1.5) { !oriel.hellos.isEmpty })
        #expect(Date().timeIntervalSince(back) < 1.5)
    }

    @Test("hello again after a silence")
    func helloAfterSilence() async throws {
        let oriel = try FakeOriel()
        let body = try await BodyProcess.start(oriel: oriel.url, silence: "5s")
        #expect(await eventually(within: 5) { oriel.hellos.count == 1 })
        try await body.push(#"{"onair":{"on":false}}"#)
        #expect(await eventually(within: 9) { oriel.hellos.count == 2 })
        #expect(try await body.onair().string("unread") == "Oriel has not been heard from in 5 s")
    }

    // The poll waits 30 s: a stop that answered it only when its wait ran out, or
    // hung in the drain, takes far longer than 8 s. The bound is that, not a speed:
    // the stop itself is about 1 s (the drain's grace), longer on a loaded host.
    @Test("SIGTERM answers a waiting poll at once, and the body exits 0 long before the poll's wait")
    func sigterm() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        #expect(try await body.status().object("lines").bool("lamp") == true)
        // A cursor far ahead of every seq: the furthest the outbox takes (Outbox.largestAfter).
        async let waiting = body.get("/ears?after=1000000000000000&wait=30", timeout: 10)
        await pause(0.3)
        let start = Date()
        let code = await body.terminate()
        let poll = try await waiting
        #expect(code == 0)
        #expect(Date().timeIntervalSince(start) < 8)
        #expect(poll.status == 200)
        #expect(body.log.contains("darkening the lamp"))
    }

    @Test("check on a broken configuration prints one line naming file:line")
    func checkBroken() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-body-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let conf = dir.appendingPathComponent("body.conf")
        try "[body]\nname = studio\nlisten = 0.0.0.0:notaport\n[board]\nfile = sim\n".write(to: conf, atomically: true, encoding: .utf8)
        let (code, out, err) = try run(["check", "--config", conf.path])
        #expect(code != 0)
        #expect(out.isEmpty)
        let lines = err.split(separator: "\n")
        #expect(lines.count == 1, "\(err)")
        #expect(lines.first?.contains("body.conf:3:") == true, "\(err)")
    }

    @Test("a token file that others can read is refused in words")
    func tokenMode() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-body-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = dir.appendingPathComponent("token")
        try "0123456789abcdef0123\n".write(to: token, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: token.path)
        let conf = dir.appendingPathComponent("body.conf")
        try "[body]\ntls = no\nlisten = 127.0.0.1:0\ntoken-file = \(token.path)\n[board]\nfile = sim\n".write(to: conf, atomically: true, encoding: .utf8)
        let (code, _, err) = try run(["--config", conf.path])
        #expect(code == 1)
        #expect(err.contains("readable by others"), "\(err)")
    }

    @Test("--version prints the version")
    func version() throws {
        let (code, out, _) = try run(["--version"])
        #expect(code == 0)
        #expect(out.hasPrefix("studio-body "))
    }

    func run(_ args: [String]) throws -> (Int32, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Repository.studioBody)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        let end = p.waitForExit()
        return (end.code, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}
