import Testing
import BodyCore

@Suite("one gpsd watch shared by the waiting GET /where requests")
struct WhereWatchTests {
    static let wall = 1_764_500_000.0
    static let receiver = GpsDevice(path: "/dev/ttyACM0", driver: "u-blox", cycle: 1)

    func tpv(mode: Int = 3, time: Double = wall, eph: Double? = 4.5, alt: Double? = 34.5) -> GpsReport {
        .fix(GpsFix(mode: mode, time: time, latitude: 52.520008, longitude: 13.404954,
                    altitudeMSL: alt, altitudeHAE: alt.map { $0 + 47 }, eph: eph,
                    track: 87.5, speed: 0.278, device: "/dev/ttyACM0"))
    }

    func place(_ outcomes: [WhereWatch.Outcome]) -> WherePlace? {
        guard outcomes.count == 1, case .place(let p) = outcomes[0].answer else { return nil }
        return p
    }

    @Test("a fresh 3D fix answers 200 with the receiver's numbers")
    func good3D() throws {
        var w = WhereWatch()
        let t = w.ask(at: 100)
        #expect(w.take(.devices([Self.receiver]), arrivedAt: Self.wall, at: 100.01).isEmpty)
        let out = w.take(tpv(time: Self.wall - 0.4), arrivedAt: Self.wall, at: 100.5)
        let p = try #require(place(out))
        #expect(out[0].ticket == t)
        #expect(p.lat == 52.520008 && p.lon == 13.404954)
        #expect(p.accuracyM == 4.5 && p.sampledAt == Self.wall - 0.4)
        #expect(p.altitude == 34.5 && p.heading == 87.5 && p.speed == 0.278)
        #expect(p.source == "/dev/ttyACM0 (u-blox)")
        #expect(w.isEmpty && w.nextWake == nil)
    }

    @Test("a 2D fix waits one cycle for a 3D one, then answers without altitude, even if one was reported")
    func twoD() throws {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        #expect(w.take(tpv(mode: 2, alt: 99), arrivedAt: Self.wall, at: 101).isEmpty)
        #expect(w.nextWake == 102)
        let p = try #require(place(w.expire(at: 102)))
        #expect(p.altitude == nil)
        let json = String(decoding: WhereAnswer.place(p).json, as: UTF8.self)
        #expect(!json.contains("altitude"))
        #expect(json.contains(#""accuracy_m":4.5"#))
    }

    @Test("a fix without an error estimate waits one cycle for one that has it")
    func holdForAccuracy() throws {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([Self.receiver]), arrivedAt: Self.wall, at: 100)
        #expect(w.take(tpv(mode: 2, eph: nil, alt: nil), arrivedAt: Self.wall, at: 102).isEmpty)
        #expect(w.nextWake == 103)
        let p = try #require(place(w.take(tpv(eph: 7), arrivedAt: Self.wall + 0.2, at: 102.2)))
        #expect(p.accuracyM == 7 && p.altitude == 34.5)
    }

    @Test("gpsd's RMC-only 2D fix with an old estimate is passed over for the whole 3D one a moment later")
    func twoDThenThreeD() throws {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        #expect(w.take(tpv(mode: 2, eph: 22.8, alt: nil), arrivedAt: Self.wall, at: 101).isEmpty)
        let p = try #require(place(w.take(tpv(mode: 3, eph: 22.8), arrivedAt: Self.wall + 0.2, at: 101.2)))
        #expect(p.altitude == 34.5)
    }

    @Test("mode 3 before this cycle's altitude came is not whole yet")
    func threeDWithoutAltitude() throws {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        #expect(w.take(tpv(mode: 3, eph: 22.8, alt: nil), arrivedAt: Self.wall, at: 101).isEmpty)
        let p = try #require(place(w.take(tpv(mode: 3, eph: 22.8), arrivedAt: Self.wall + 0.2, at: 101.2)))
        #expect(p.altitude == 34.5)
    }

    @Test("while holding, an estimate counts more than a third dimension")
    func bestOfHeld() throws {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(tpv(mode: 2, eph: 9, alt: nil), arrivedAt: Self.wall, at: 101)
        _ = w.take(tpv(mode: 3, eph: nil), arrivedAt: Self.wall, at: 101.5)
        let p = try #require(place(w.expire(at: 102)))
        #expect(p.accuracyM == 9 && p.altitude == nil)
    }

    @Test("when the cycle passes with no estimate, the best fix answers with accuracy null")
    func holdRunsOut() throws {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(tpv(mode: 2, eph: nil, alt: nil), arrivedAt: Self.wall, at: 102)
        #expect(w.expire(at: 102.9).isEmpty)
        let p = try #require(place(w.expire(at: 103)))
        #expect(p.accuracyM == nil)
        #expect(String(decoding: WhereAnswer.place(p).json, as: UTF8.self).contains(#""accuracy_m":null"#))
    }

    @Test("the hold never runs past the deadline")
    func holdInsideDeadline() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([GpsDevice(path: "/dev/ttyACM0", cycle: 5)]), arrivedAt: Self.wall, at: 100)
        _ = w.take(tpv(eph: nil), arrivedAt: Self.wall, at: 113)
        #expect(w.nextWake == 115)
    }

    @Test("no fix within 15 s: 504 in words, not a moment before")
    func noFix() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([Self.receiver]), arrivedAt: Self.wall, at: 100)
        for s in 1...14 {
            _ = w.take(.fix(GpsFix(mode: 1, device: "/dev/ttyACM0")), arrivedAt: Self.wall + Double(s), at: 100 + Double(s))
        }
        #expect(w.expire(at: 114.99).isEmpty)
        let out = w.expire(at: 115)
        #expect(out.map(\.answer) == [.noFreshFix(.noFix)])
        #expect(out[0].answer.status == 504)
        #expect(out[0].answer.words == "no fresh fix within 15 s (the receiver has no fix: indoors, or no sky)")
    }

    @Test("only stale fixes: 504 says so")
    func stale() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([Self.receiver]), arrivedAt: Self.wall, at: 100)
        #expect(w.take(tpv(time: Self.wall - 3600), arrivedAt: Self.wall, at: 101).isEmpty)
        #expect(w.expire(at: 115).map(\.answer) == [.noFreshFix(.onlyStale)])
    }

    @Test("gpsd with no receiver: 504 says none is attached")
    func noReceiver() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.other, arrivedAt: Self.wall, at: 100)
        _ = w.take(.devices([]), arrivedAt: Self.wall, at: 100)
        #expect(w.expire(at: 115).map(\.answer) == [.noFreshFix(.noReceiver)])
    }

    @Test("a receiver that goes away leaves none attached")
    func receiverGone() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([Self.receiver]), arrivedAt: Self.wall, at: 100)
        _ = w.take(.device(GpsDevice(path: "/dev/ttyACM0", active: false)), arrivedAt: Self.wall, at: 101)
        #expect(w.expire(at: 115).map(\.answer) == [.noFreshFix(.noReceiver)])
    }

    @Test("gpsd that says nothing at all stopped answering")
    func silent() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        #expect(w.expire(at: 115).map(\.answer) == [.noFreshFix(.gpsdSilent)])
    }

    @Test("garbage from gpsd is not gpsd answering: the 504 says so, before any other cause")
    func garbled() {
        var w = WhereWatch()
        let early = w.ask(at: 100)
        _ = w.take(.other, arrivedAt: Self.wall, at: 100)
        _ = w.take(.devices([]), arrivedAt: Self.wall, at: 100)
        #expect(w.take(.garbage("{\"class\":\"TPV\",\"lat\":52"), arrivedAt: Self.wall, at: 101).isEmpty)
        let late = w.ask(at: 102)
        _ = w.take(.other, arrivedAt: Self.wall, at: 103)
        let out = w.expire(at: 117)
        #expect(out.map(\.ticket) == [early, late])
        #expect(out.map(\.answer) == [.noFreshFix(.garbled), .noFreshFix(.noReceiver)],
                "only the request that was waiting when the garbage came says so")
        #expect(out[0].answer.words == "no fresh fix within 15 s (gpsd sent lines that are not gpsd's JSON)")
    }

    @Test("a fix after garbage still answers: garbage delays nothing")
    func garbageThenFix() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([Self.receiver]), arrivedAt: Self.wall, at: 100)
        _ = w.take(.garbage("\\x00"), arrivedAt: Self.wall, at: 100.5)
        #expect(w.take(tpv(), arrivedAt: Self.wall, at: 101).count == 1)
    }

    @Test("gpsd gone: everyone is answered at once, in words")
    func lost() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.ask(at: 103)
        let out = w.lost()
        #expect(out.map(\.answer) == [.noFreshFix(.gpsdSilent), .noFreshFix(.gpsdSilent)])
        #expect(out[0].answer.words == "no fresh fix within 15 s (gpsd stopped answering)")
        #expect(w.isEmpty)
    }

    @Test("three requests share one fix; each keeps its own deadline")
    func shared() {
        var w = WhereWatch()
        let a = w.ask(at: 100), b = w.ask(at: 101), c = w.ask(at: 110)
        #expect(w.nextWake == 115)
        #expect(w.expire(at: 115).map(\.ticket) == [a])
        #expect(w.nextWake == 116)
        let out = w.take(tpv(), arrivedAt: Self.wall, at: 116.5)
        #expect(out.map(\.ticket) == [b, c])
        #expect(w.isEmpty)
    }

    @Test("a request that asks after the fix has its own wait")
    func laterAsk() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        #expect(w.take(tpv(), arrivedAt: Self.wall, at: 101).count == 1)
        let t = w.ask(at: 102)
        #expect(w.nextWake == 117)
        w.withdraw(t)
        #expect(w.isEmpty)
    }

    @Test("a DEVICE keeps the cycle DEVICES gave and adds the driver")
    func deviceMerge() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([GpsDevice(path: "/dev/ttyACM0", cycle: 2)]), arrivedAt: Self.wall, at: 100)
        _ = w.take(.device(GpsDevice(path: "/dev/ttyACM0", driver: "u-blox")), arrivedAt: Self.wall, at: 100.5)
        _ = w.take(tpv(eph: nil), arrivedAt: Self.wall, at: 101)
        #expect(w.nextWake == 103)
        guard case .place(let p) = w.expire(at: 103).first?.answer else { Issue.record("no place"); return }
        #expect(p.source == "/dev/ttyACM0 (u-blox)")
    }

    @Test("a receiver gpsd only now attaches counts once it reports")
    func lateReceiver() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([]), arrivedAt: Self.wall, at: 100)
        _ = w.take(.fix(GpsFix(mode: 1, device: "/dev/pts/3")), arrivedAt: Self.wall, at: 101)
        #expect(w.expire(at: 115).map(\.answer) == [.noFreshFix(.noFix)])
    }

    @Test("gpsd gone while a fix without an estimate is held: that fix answers")
    func lostWhileHolding() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(tpv(eph: nil), arrivedAt: Self.wall, at: 101)
        guard case .place(let p) = w.lost().first?.answer else { Issue.record("no place"); return }
        #expect(p.accuracyM == nil && p.lat == 52.520008)
    }

    @Test("a place needs a position and a time; the source falls back to gpsd's receiver")
    func placeFromFix() {
        #expect(WherePlace(fix: GpsFix(mode: 3, time: Self.wall, latitude: 1), receiver: nil) == nil)
        let bare = GpsFix(mode: 2, time: Self.wall, latitude: 1, longitude: 2, altitudeHAE: 50)
        #expect(WherePlace(fix: bare, receiver: nil)?.source == "gpsd")
        #expect(WherePlace(fix: bare, receiver: GpsDevice(path: "/dev/ttyUSB0"))?.source == "/dev/ttyUSB0")
        var threeD = bare
        threeD.mode = 3
        #expect(WherePlace(fix: threeD, receiver: nil)?.altitude == 50)
        #expect(GpsDevice(path: "x", driver: "", cycle: 0).driver == nil)
        #expect(GpsDevice(path: "x", driver: "", cycle: -1).cycle == nil)
    }

    @Test("refusal words and statuses")
    func refusals() {
        #expect(WhereAnswer.notAllowed.status == 403)
        #expect(WhereAnswer.notAllowed.words == "location is not allowed for this body; a person allows it in the configuration")
        let down = WhereAnswer.gpsdNotRunning(host: "127.0.0.1", port: 2947)
        #expect(down.status == 503)
        #expect(String(decoding: down.json, as: UTF8.self) == #"{"error":"gpsd is not running at 127.0.0.1:2947"}"#)
        #expect(WhereAnswer.gpsdNotRunning(host: "::1", port: 2947).words == "gpsd is not running at [::1]:2947")
    }
}

@Suite("one gpsd watch, with this computer's clock lagging (issue 23)")
struct WhereWatchClockTests {
    static let wall = 1_764_500_000.0
    static let receiver = GpsDevice(path: "/dev/ttyACM0", driver: "u-blox", cycle: 1)

    func tpv(time: Double) -> GpsReport {
        .fix(GpsFix(mode: 3, time: time, latitude: 52.52, longitude: 13.40, altitudeMSL: 34.5, eph: 4.5,
                    device: "/dev/ttyACM0"))
    }

    @Test("2 h behind and unsynchronised: the receiver's true time answers, and the lag is kept")
    func lagging() throws {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        _ = w.take(.devices([Self.receiver]), arrivedAt: Self.wall, synchronised: false, at: 100)
        let out = w.take(tpv(time: Self.wall + 7200.4), arrivedAt: Self.wall, synchronised: false, at: 100.5)
        guard out.count == 1, case .place(let p) = out[0].answer else { Issue.record("no place: \(out)"); return }
        #expect(p.sampledAt == Self.wall + 7200.4)
        let ahead = try #require(w.receiverAhead)
        #expect(abs(ahead - 7200.4) < 1e-6)
    }

    @Test("2 h behind but synchronised: only stale fixes, said so at the deadline")
    func synchronised() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        #expect(w.take(tpv(time: Self.wall + 7200), arrivedAt: Self.wall, synchronised: true, at: 101).isEmpty)
        #expect(w.receiverAhead == nil)
        let out = w.expire(at: 115)
        #expect(out.map(\.answer) == [.noFreshFix(.onlyStale)])
    }

    @Test("2 h ahead, unsynchronised: fixes behind it stay stale")
    func clockAhead() {
        var w = WhereWatch()
        _ = w.ask(at: 100)
        #expect(w.take(tpv(time: Self.wall - 7200), arrivedAt: Self.wall, synchronised: false, at: 101).isEmpty)
        #expect(w.expire(at: 115).map(\.answer) == [.noFreshFix(.onlyStale)])
    }
}
