import Testing
@testable import BodyCore

@Suite("The DNS-SD announcement follows Avahi's rules, and says each change once (issue 14)")
struct AnnouncementTests {
    let notRunning = Announcement.Action.log(
        "announce: avahi-daemon is not running or not reachable on the system bus; the body runs unannounced and announces itself when avahi-daemon starts", .warning)

    @Test("the TXT records: name, version, the protocol versions in DESIGN's order, boot, path")
    func records() {
        #expect(Announcement.records(name: "booth", version: "0.1.0",
                                     protocols: ["ears": 1, "where": 1, "onair": 2, "eyes": 1], boot: "b00t")
            == ["name=booth", "version=0.1.0", "protocol=onair=2,eyes=1,where=1,ears=1", "boot=b00t", "path=/hello"])
    }

    @Test("a body serving HTTPS adds tls= and its pin, last")
    func tlsRecord() {
        let txt = Announcement.records(name: "s", version: "1", protocols: [:], boot: "b", tls: "sha256:1UGLuMakto4FBCfxwyHB/GCdtgxhuU7izOXipSg8zuo=")
        #expect(txt.last == "tls=sha256:1UGLuMakto4FBCfxwyHB/GCdtgxhuU7izOXipSg8zuo=")
        #expect(!Announcement.records(name: "s", version: "1", protocols: [:], boot: "b").contains { $0.hasPrefix("tls=") })
    }

    @Test("a protocol DESIGN does not list yet comes after the known ones, by name")
    func unknownProtocol() {
        let txt = Announcement.records(name: "s", version: "1", protocols: ["zoom": 3, "onair": 2, "bell": 1], boot: "b")
        #expect(txt[2] == "protocol=onair=2,bell=1,zoom=3")
    }

    @Test("a name too long for one TXT string is cut on a character")
    func longName() {
        let txt = Announcement.records(name: String(repeating: "é", count: 200), version: "1", protocols: [:], boot: "b")
        #expect(txt[0].utf8.count <= 255)
        #expect(txt[0] == "name=" + String(repeating: "é", count: 125))
    }

    @Test("a body listening on loopback is not announced; any other address is", arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("::1", true), ("localhost", true), ("LocalHost", true),
        ("0.0.0.0", false), ("::", false), ("192.168.1.40", false), ("studio.local", false), ("fe80::1", false),
    ])
    func loopback(host: String, refused: Bool) {
        let why = Announcement.unreachable(listenHost: host)
        #expect((why != nil) == refused)
        if refused { #expect(why == "announce: not announced: [body] listen is on \(host), which only this machine can reach") }
    }

    @Test("running publishes under the body's name; established says so once")
    func publish() {
        var a = Announcement(name: "studio", port: 8790)
        #expect(a.running() == [.publish(name: "studio")])
        #expect(!a.announced)
        #expect(a.established() == [.log("announce: announced as \"studio\" (_studio-body._tcp on port 8790)", .info)])
        #expect(a.announced)
        #expect(a.established().isEmpty, "a repeat is not said again")
    }

    @Test("a collision takes Avahi's alternative, says so, and publishes again under it")
    func collision() {
        var a = Announcement(name: "studio", port: 8790)
        _ = a.running()
        #expect(a.collision(alternative: "studio #2") == [
            .log("announce: the name \"studio\" is taken by another _studio-body._tcp service; renamed to \"studio #2\"", .warning),
            .publish(name: "studio #2"),
        ])
        #expect(a.name == "studio #2")
        #expect(a.established() == [.log("announce: announced as \"studio #2\" (_studio-body._tcp on port 8790)", .info)])
        #expect(a.running() == [.publish(name: "studio #2")], "a daemon come back gets the name in use, not the first")
    }

    @Test("a host name being registered withdraws the service until running")
    func registering() {
        var a = Announcement(name: "studio", port: 8790)
        _ = a.running(); _ = a.established()
        #expect(a.registering() == [.withdraw])
        #expect(!a.announced)
        #expect(a.running() == [.publish(name: "studio")])
    }

    @Test("a daemon gone away is said, and a fresh client waits for it; waiting is said once")
    func disconnected() {
        var a = Announcement(name: "studio", port: 8790)
        _ = a.running(); _ = a.established()
        #expect(a.failed(disconnected: true, words: "Daemon connection failed", at: 100) == [
            .log("announce: avahi-daemon went away (Daemon connection failed); announcing again when it is back", .warning),
            .reconnect,
        ])
        #expect(!a.announced)
        #expect(a.connecting() == [notRunning])
        #expect(a.connecting().isEmpty)
        #expect(a.running() == [.publish(name: "studio")])
        #expect(a.established() == [.log("announce: announced as \"studio\" (_studio-body._tcp on port 8790)", .info)],
                "announced again is news after the daemon went away")
    }

    @Test("no system bus: tried again 1 s doubling to a minute, said once, and the wait starts over once running",
          arguments: [true, false])
    func cannotConnect(throughFailure: Bool) {
        var a = Announcement(name: "studio", port: 8790)
        func fail(_ now: Double) -> [Announcement.Action] {
            throughFailure ? a.failed(disconnected: false, words: "Daemon not running", at: now)
                : a.cannotConnect(words: "Daemon not running", at: now)
        }
        let said = Announcement.Action.log(
            "announce: cannot reach avahi-daemon over the system bus: Daemon not running; the body runs unannounced and tries again, backing off from 1 s to 60 s", .warning)
        #expect(fail(100) == [said, .retry(at: 101)])
        #expect(fail(101) == [.retry(at: 103)])
        #expect(fail(103) == [.retry(at: 107)])
        for _ in 0..<6 { _ = fail(200) }
        #expect(fail(300) == [.retry(at: 360)], "never more than a minute")
        _ = a.running()
        #expect(fail(400) == [.retry(at: 401)])
    }

    @Test("a refused service is said once")
    func groupFailed() {
        var a = Announcement(name: "studio", port: 8790)
        _ = a.running()
        let said = Announcement.Action.log("announce: avahi-daemon refused the service \"studio\": Bad state", .warning)
        #expect(a.groupFailed(words: "Bad state") == [said])
        #expect(a.groupFailed(words: "Bad state").isEmpty)
    }

    @Test("a stop says withdrawn only if it was announced, and then nothing more happens")
    func stop() {
        var a = Announcement(name: "studio", port: 8790)
        _ = a.running(); _ = a.established()
        #expect(a.stop() == [.log("announce: withdrawn \"studio\"", .info)])
        #expect(a.stop().isEmpty)
        #expect(a.running().isEmpty && a.registering().isEmpty && a.connecting().isEmpty && a.established().isEmpty)
        #expect(a.failed(disconnected: true, words: "x", at: 1).isEmpty && a.cannotConnect(words: "x", at: 1).isEmpty)
        #expect(a.collision(alternative: "s #2").isEmpty && a.groupFailed(words: "x").isEmpty)
        var never = Announcement(name: "studio", port: 8790)
        #expect(never.stop().isEmpty)
    }
}
