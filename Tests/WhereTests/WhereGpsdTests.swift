import BodyAgent
import BodyCore
import Foundation
import Testing

/// GET /where against a real gpsd fed by gpsfake on loopback (issue 5), through
/// WhereService and the event loop. The tests run concurrently: the 15 s ones
/// overlap, so the suite takes about 20 s. Tests/gps/run runs them (with
/// STUDIO_BODY_GPS=1); a plain `swift test` skips them.
@Suite("GET /where from a real gpsd",
       .enabled(if: ProcessInfo.processInfo.environment["STUDIO_BODY_GPS"] == "1", "needs gpsd and gpsfake: Tests/gps/run"))
struct WhereGpsdTests {
    static let lat = 52.520008, lon = 13.404954

    func body(_ gpsd: GpsdFixture) throws -> WhereHarness { try WhereHarness(port: gpsd.port) }

    @Test("a good 3D fix answers 200 with the log's values, and the watch closes after")
    func good3D() async throws {
        let gpsd = try await GpsdFixture.fake([])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 200, "\(r.json)")
        #expect(abs((r.json["lat"]?.number ?? 0) - Self.lat) < 1e-6)
        #expect(abs((r.json["lon"]?.number ?? 0) - Self.lon) < 1e-6)
        #expect(r.json["altitude"]?.number == 34.5)
        #expect(r.json["heading"]?.number == 87.5)
        #expect(abs((r.json["speed"]?.number ?? 0) - 0.54 * 1852 / 3600) < 0.001)
        // gpsd's own estimate from the log's HDOP 1.2.
        #expect((r.json["accuracy_m"]?.number ?? 0) > 0)
        let sampled = try #require(r.json["sampled_at"]?.number)
        #expect(abs(Date().timeIntervalSince1970 - sampled) <= 30)
        #expect(gpsd.logHasFix(at: sampled), "sampled_at \(sampled) is no fix time in the log")
        #expect(r.json["source"]?.string?.hasPrefix("/dev/pts/") == true)
        #expect(r.after < 5)
        #expect(await body.watching == false)
        try await settles { gpsd.clientsDetached == 1 }
        #expect(gpsd.watchesStarted == 1)
        #expect(try gpsd.connections() == 0)
    }

    @Test("a 2D fix answers without altitude")
    func twoD() async throws {
        let gpsd = try await GpsdFixture.fake(["--fix", "2d"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 200, "\(r.json)")
        #expect(r.json["altitude"] == nil)
        #expect(abs((r.json["lat"]?.number ?? 0) - Self.lat) < 1e-6)
        #expect(r.json["accuracy_m"] != nil)
    }

    @Test("a receiver with no error estimate: one more cycle is waited for, then accuracy_m is null")
    func noEstimate() async throws {
        let gpsd = try await GpsdFixture.fake(["--fix", "rmc"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 200, "\(r.json)")
        #expect(r.json["accuracy_m"] == .null)
        #expect(abs((r.json["lat"]?.number ?? 0) - Self.lat) < 1e-6)
        // gpsd says the receiver's cycle is 1 s: the hold is that, not the 15 s deadline.
        #expect(r.after < 5, "answered after \(r.after) s")
    }

    @Test("indoors with satellites in view but no fix: 504 after 15 s, in words")
    func noFix() async throws {
        let gpsd = try await GpsdFixture.fake(["--fix", "none", "--cycles", "40"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 504)
        #expect(r.error == "no fresh fix within 15 s (the receiver has no fix: indoors, or no sky)")
        #expect(r.after >= 14.9 && r.after < 16.5, "answered after \(r.after) s")
        #expect(await body.watching == false)
    }

    @Test("the last waiting request withdrawn (its client left) closes the watch at once, not at 15 s")
    func withdrawnLast() async throws {
        let gpsd = try await GpsdFixture.fake(["--fix", "none", "--cycles", "40"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let first = try #require(await body.askAndHold())
        let second = try #require(await body.askAndHold())
        try await settles { gpsd.watchesStarted == 1 }
        // One of two leaves: the other still holds the watch.
        await body.withdraw(first)
        #expect(await body.watching)
        let left = EventLoop.monotonic()
        await body.withdraw(second)
        #expect(await body.watching == false)
        try await settles { gpsd.clientsDetached == 1 }
        #expect(EventLoop.monotonic() - left < 2)
        #expect(try gpsd.connections() == 0)
        // Neither is answered later, at the deadline or otherwise.
        try await Task.sleep(for: .seconds(16))
        #expect(body.heldAnswered == 0)
        #expect(gpsd.watchesStarted == 1)
    }

    @Test("a fix that appears after 8 s answers 200 then")
    func fixAfter8() async throws {
        let gpsd = try await GpsdFixture.fake(["--nofix", "8", "--cycles", "30"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 200, "\(r.json)")
        #expect(r.after > 6 && r.after < 12, "answered after \(r.after) s")
    }

    @Test("a fix that appears after 20 s is too late: 504 at 15 s")
    func fixAfter20() async throws {
        let gpsd = try await GpsdFixture.fake(["--nofix", "20", "--cycles", "30"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 504)
        #expect(r.error == "no fresh fix within 15 s (the receiver has no fix: indoors, or no sky)")
        #expect(r.after >= 14.9 && r.after < 16.5, "answered after \(r.after) s")
    }

    @Test("bad checksums and noise never give the bogus position")
    func noise() async throws {
        let gpsd = try await GpsdFixture.fake(["--noise"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        for _ in 0..<3 {
            let r = await body.ask()
            #expect(r.status == 200, "\(r.json)")
            #expect(abs((r.json["lat"]?.number ?? 0) - Self.lat) < 1e-6)
            #expect(abs((r.json["lon"]?.number ?? 0) - Self.lon) < 1e-6)
        }
        // Nor did gpsd ever report it to anyone (the bogus one is 1°01' S, 1°01' W).
        #expect(!gpsd.log.contains(#""lat":-1.01"#))
    }

    @Test("only old timestamps: 504 stale, in words")
    func stale() async throws {
        let gpsd = try await GpsdFixture.fake(["--age", "3600"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 504)
        #expect(r.error == "no fresh fix within 15 s (the receiver gave only stale fixes: is its clock or this computer's clock wrong?)")
        #expect(r.after >= 14.9 && r.after < 16.5, "answered after \(r.after) s")
    }

    @Test("gpsd not running: 503 at once")
    func notRunning() async throws {
        let port = try GpsdFixture.freePort()
        let body = try WhereHarness(port: port)
        defer { body.stop() }
        let r = await body.ask()
        #expect(r.status == 503)
        #expect(r.error == "gpsd is not running at 127.0.0.1:\(port)")
        #expect(r.after < 0.5)
        #expect(await body.watching == false)
        #expect(body.log.count == 1 && body.log[0].hasPrefix("where: gpsd: cannot connect to 127.0.0.1:\(port): "))
        _ = await body.ask()
        #expect(body.log.count == 1, "a repeated problem is logged once")
    }

    @Test("location not allowed: 403 without touching gpsd")
    func notAllowed() async throws {
        let gpsd = try await GpsdFixture.bare()
        let body = try WhereHarness(port: gpsd.port, allowed: false)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 403)
        #expect(r.error == "location is not allowed for this body; a person allows it in the configuration")
        #expect(gpsd.watchesStarted == 0)
    }

    @Test("gpsd with no receiver: 504 says none is attached")
    func noReceiver() async throws {
        let gpsd = try await GpsdFixture.bare()
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        let r = await body.ask()
        #expect(r.status == 504)
        #expect(r.error == "no fresh fix within 15 s (no receiver is attached to gpsd)")
        #expect(r.after >= 14.9 && r.after < 16.5, "answered after \(r.after) s")
    }

    @Test("gpsd killed during a request: answered at once, in words")
    func killed() async throws {
        let gpsd = try await GpsdFixture.fake(["--fix", "none", "--cycles", "40"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        async let reply = body.ask()
        try await Task.sleep(for: .seconds(3))
        #expect(await body.watching == true)
        let killedAt = EventLoop.monotonic()
        try gpsd.killGpsd()
        let r = await reply
        #expect(r.status == 504)
        #expect(r.error == "no fresh fix within 15 s (gpsd stopped answering)")
        let late = EventLoop.monotonic() - killedAt
        #expect(late < 1, "answered \(late) s after gpsd died")
        #expect(await body.watching == false)
        #expect(body.log.contains { $0.contains("gpsd: lost the watch at 127.0.0.1:\(gpsd.port): ") })
    }

    @Test("three concurrent requests share one watch, each answered; the watch closes after")
    func shared() async throws {
        let gpsd = try await GpsdFixture.fake(["--nofix", "3"])
        let body = try body(gpsd)
        defer { body.stop(); gpsd.stop() }
        async let a = body.ask()
        async let b = body.ask()
        async let c = body.ask()
        let replies = await [a, b, c]
        #expect(replies.map(\.status) == [200, 200, 200])
        #expect(gpsd.watchesStarted == 1)
        #expect(await body.watching == false)
        try await settles { gpsd.clientsDetached == 1 }
        #expect(try gpsd.connections() == 0)
        // Nothing measures between requests: the next one opens a new watch.
        #expect(await body.ask().status == 200)
        #expect(gpsd.watchesStarted == 2)
        try await settles { gpsd.clientsDetached == 2 }
    }

    /// gpsd logs a detach a moment after the socket closes.
    func settles(within seconds: Double = 2, _ condition: () throws -> Bool) async throws {
        let end = EventLoop.monotonic() + seconds
        while EventLoop.monotonic() < end {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try condition())
    }
}
