import Testing
@testable import BodyCore

/// Whether `a` is `b` to within a nanosecond (the sums behind next-change times are not exact).
func near(_ a: Double?, _ b: Double) -> Bool {
    guard let a else { return false }
    return abs(a - b) < 1e-9
}

@Suite("Output patterns as pure functions of time (DESIGN 2)")
struct PatternTests {
    @Test("unread: a 0.2 s flash every 2 s, exactly at its edges", arguments: [
        (0.0, true), (0.1, true), (0.2.nextDown, true), (0.2, false), (1.0, false), (2.0.nextDown, false),
        (2.0, true), (2.1, true), (2.2, false), (4.0, true), (101.0, false), (100.0, true),
    ])
    func unread(t: Double, lit: Bool) {
        #expect(Pattern.unread.level(at: t, since: 0) == lit)
    }

    @Test("unread measured from when it began", arguments: [
        (100.0, true), (100.1, true), (100.25, false), (101.9, false), (102.0, true), (102.15, true), (102.3, false),
    ])
    func unreadSince(t: Double, lit: Bool) {
        #expect(Pattern.unread.level(at: t, since: 100) == lit)
    }

    @Test("asking: blinking 4 Hz", arguments: [
        (0.0, true), (0.1, true), (0.125, false), (0.2, false), (0.25, true), (0.375, false),
        (0.5, true), (0.625, false), (0.75, true), (0.875, false), (1.0, true),
    ])
    func asking(t: Double, lit: Bool) {
        #expect(Pattern.asking.level(at: 102 + t, since: 102) == lit)
    }

    @Test("asking lights four times a second")
    func fourHertz() {
        var rises = 0
        var last = false
        for ms in 0..<1000 {
            let lit = Pattern.asking.level(at: 50 + Double(ms) / 1000, since: 50)
            if lit && !last { rises += 1 }
            last = lit
        }
        #expect(rises == 4)
    }

    @Test("a problem: a double flash every 1 s, exactly at its edges", arguments: [
        (0.0, true), (0.05, true), (0.1, false), (0.15, false), (0.2, true), (0.25, true), (0.3, false),
        (0.5, false), (0.999, false), (1.0, true), (1.25, true), (1.5, false),
    ])
    func problem(t: Double, lit: Bool) {
        #expect(Pattern.problem.level(at: t, since: 0) == lit)
    }

    @Test("a problem measured from when it began", arguments: [
        (103.0, true), (103.05, true), (103.125, false), (103.25, true), (103.3125, false), (104.0625, true),
    ])
    func problemSince(t: Double, lit: Bool) {
        #expect(Pattern.problem.level(at: t, since: 103) == lit)
    }

    @Test("closing: the eye LED blinks 2 Hz", arguments: [
        (0.0, true), (0.125, true), (0.25, false), (0.5, true), (0.75, false),
    ])
    func closing(t: Double, lit: Bool) {
        #expect(Pattern.closing.level(at: t, since: 0) == lit)
    }

    @Test("steady is always lit, dark never")
    func steady() {
        for t in [0, 0.3, 1.7, 1_000.5] {
            #expect(Pattern.steady.level(at: t, since: 0))
            #expect(!Pattern.dark.level(at: t, since: 0))
        }
        #expect(Pattern.steady.isSteady && Pattern.dark.isSteady)
        #expect(!Pattern.unread.isSteady && !Pattern.asking.isSteady && !Pattern.problem.isSteady)
        #expect(Pattern.steady.nextChange(after: 5, since: 0) == nil)
        #expect(Pattern.dark.nextChange(after: 5, since: 0) == nil)
    }

    @Test("the next change of the unread pattern")
    func unreadNext() {
        #expect(near(Pattern.unread.nextChange(after: 100, since: 100), 100.2))
        #expect(near(Pattern.unread.nextChange(after: 100.1, since: 100), 100.2))
        #expect(near(Pattern.unread.nextChange(after: 100.2, since: 100), 102))
        #expect(near(Pattern.unread.nextChange(after: 101, since: 100), 102))
        #expect(near(Pattern.unread.nextChange(after: 102, since: 100), 102.2))
        #expect(Pattern.unread.nextChange(after: 99, since: 100) == 100)
    }

    @Test("the next change of the asking and problem patterns")
    func otherNext() {
        #expect(near(Pattern.asking.nextChange(after: 102, since: 102), 102.125))
        #expect(near(Pattern.asking.nextChange(after: 102.125, since: 102), 102.25))
        #expect(near(Pattern.problem.nextChange(after: 0.05, since: 0), 0.1))
        #expect(near(Pattern.problem.nextChange(after: 0.1, since: 0), 0.2))
        #expect(near(Pattern.problem.nextChange(after: 0.25, since: 0), 0.3))
        #expect(near(Pattern.problem.nextChange(after: 0.3, since: 0), 1))
    }

    @Test("patterns compare by period and windows")
    func equality() {
        #expect(Pattern.unread == Pattern(period: 2, lit: [(0, 0.2)]))
        #expect(Pattern.unread != Pattern(period: 2, lit: [(0, 0.3)]))
        #expect(Pattern.unread != Pattern(period: 3, lit: [(0, 0.2)]))
        #expect(Pattern.problem != Pattern(period: 1, lit: [(0, 0.1)]))
        #expect(Pattern.dark != Pattern.steady)
    }

    @Test("the windows held in place read back as given, in order")
    func windows() {
        #expect(Pattern.problem.lit.elementsEqual([(0, 0.1), (0.2, 0.3)]) { $0 == $1 })
        #expect(Pattern.dark.lit.isEmpty)
        var walked: [(Double, Double)] = []
        Pattern.problem.forEachLit { walked.append(($0, $1)) }
        #expect(walked.elementsEqual(Pattern.problem.lit) { $0 == $1 })
        var p = Pattern.unread
        p.lit = [(0, 0.5)]
        #expect(p.level(at: 0.4, since: 0) && !Pattern.unread.level(at: 0.4, since: 0))
        #expect(p == Pattern(period: 2, lit: [(0, 0.5)]))
    }
}

@Suite("Every line's level at literal times (DESIGN 2)")
struct IndicatorsTests {
    @Test("at start the lamp shows unread from the start: a 0.2 s flash every 2 s")
    func startUnread() {
        let body = studio(at: 100)
        #expect(body.lines(at: 100) == [.lamp: true, .armedLED: false, .eyeLED: false])
        #expect(body.lines(at: 100.1)[.lamp] == true)
        #expect(body.lines(at: 100.25)[.lamp] == false)
        #expect(body.lines(at: 101.9)[.lamp] == false)
        #expect(body.lines(at: 102)[.lamp] == true)
        #expect(near(body.indicators(at: Moment(100)).nextChange(after: 100), 100.2))
        #expect(near(body.indicators(at: Moment(100.5)).nextChange(after: 100.5), 102))
    }

    @Test("unread = dark keeps the lamp dark, unread = lit keeps it lit, and the armed LED says unread",
          arguments: [(UnreadLamp.dark, false), (.lit, true)])
    func unreadOptions(option: UnreadLamp, lit: Bool) {
        let body = studio(BodySettings(name: "studio", unreadLamp: option), at: 100)
        for t in [100, 100.1, 100.5, 102, 102.1] {
            #expect(body.lines(at: t)[.lamp] == lit)
        }
        #expect(body.lines(at: 100.1)[.armedLED] == true && body.lines(at: 100.5)[.armedLED] == false)
        // Only the armed LED's flash changes a level now.
        #expect(near(body.indicators(at: Moment(100)).nextChange(after: 100), 100.2))
        #expect(UnreadLamp(rawValue: "blink") == .blink)
    }

    @Test("on lights the lamp, off darkens it, whatever the stage", arguments: [
        (#"{"onair":{"on":true,"phase":"live"}}"#, true), (#"{"onair":{"on":true}}"#, true),
        (#"{"onair":{"on":false}}"#, false), (#"{"onair":{"on_air":false}}"#, false),
    ])
    func onOff(push: String, lit: Bool) throws {
        var body = studio(at: 100)
        try body.face(push, at: 100)
        for t in [100, 100.1, 100.25, 101, 102.1] {
            #expect(body.lines(at: t)[.lamp] == lit)
        }
        #expect(body.indicators(at: Moment(100)).nextChange(after: 100) == nil)
    }

    @Test("after a silence the unread flash starts at the silence")
    func unreadAfterSilence() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        _ = body.tick(at: Moment(160))
        #expect(body.lines(at: 160)[.lamp] == true)
        #expect(body.lines(at: 160.25)[.lamp] == false)
        #expect(body.lines(at: 162)[.lamp] == true)
    }

    @Test("armed: the armed LED lit steady for [t, t+5), the lamp unchanged")
    func armed() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        for t in [101, 101.125, 103, 105.999] {
            #expect(body.lines(at: t) == [.lamp: false, .armedLED: true, .eyeLED: false])
        }
        #expect(body.lines(at: 106)[.armedLED] == false)
    }

    @Test("asking: the armed LED blinks 4 Hz from the confirming press, the lamp unchanged")
    func asking() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102)
        #expect(body.indicators(at: Moment(102)).armedLED == (.asking, 102))
        for (t, lit) in [(102, true), (102.1, true), (102.125, false), (102.25, true), (102.375, false), (116.5, true)] {
            #expect(body.lines(at: t) == [.lamp: true, .armedLED: lit, .eyeLED: false])
        }
    }

    @Test("a problem: a double flash every 1 s for [t, t+12)")
    func problem() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102, id: "r1")
        try body.face(#"{"onair":{"on":false,"answered":{"id":"r1","error":"cwkPippa refused"}}}"#, at: 103)
        for (t, lit) in [(103, true), (103.05, true), (103.125, false), (103.25, true), (103.5, false),
                         (104, true), (114.0625, true), (114.5, false), (114.999, false), (115, false), (116, false)] {
            #expect(body.lines(at: t)[.armedLED] == lit, "at \(t)")
        }
        #expect(body.lines(at: 103)[.lamp] == false)
    }

    @Test("armed wins over asking, and asking over a problem, on the armed LED")
    func priority() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"live"}}"#, at: 100)
        _ = body.tap(.wrapup, at: 101)
        _ = body.tap(.wrapup, at: 102, id: "w1")
        try body.face(#"{"onair":{"on":true,"phase":"live","answered":{"id":"w1","error":"no"}}}"#, at: 103)
        #expect(body.indicators(at: Moment(103)).armedLED == (.problem, 103))
        _ = body.tap(.onair, at: 104)
        _ = body.tap(.onair, at: 105, id: "r1")
        #expect(body.indicators(at: Moment(105)).armedLED == (.asking, 105))
        _ = body.tap(.kill, at: 106)
        #expect(body.indicators(at: Moment(106)).armedLED == (.steady, 0))
    }

    @Test("the eye LED: red lit, closing blinks, dark otherwise or without an eyes object", arguments: [
        (#"{"eyes":{"red":true}}"#, Pattern.steady), (#"{"eyes":{"red":true,"killing":true}}"#, .closing),
        (#"{"eyes":{"red":false}}"#, .dark), (#"{"onair":{"on":true}}"#, .dark),
    ])
    func eyeLED(push: String, pattern: Pattern) throws {
        var body = studio(at: 100)
        try body.face(push, at: 100)
        #expect(body.indicators(at: Moment(100)).eyeLED.0 == pattern)
        #expect(body.indicators(at: Moment(100)).pattern(.eyeLED).0 == pattern)
    }

    @Test("the eye LED at literal times while the house closes every eye")
    func closingTimes() throws {
        var body = studio(at: 100)
        try body.face(#"{"eyes":{"red":true,"killing":true}}"#, at: 100)
        #expect(body.lines(at: 100)[.eyeLED] == true)
        #expect(body.lines(at: 100.25)[.eyeLED] == false)
        #expect(body.lines(at: 100.5)[.eyeLED] == true)
        try body.face(#"{"eyes":{"red":true}}"#, at: 101)
        #expect(body.lines(at: 101.25)[.eyeLED] == true)
    }

    @Test("the next change is the soonest of every line's")
    func nextChange() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false},"eyes":{"red":true,"killing":true}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 101.5)
        let ind = body.indicators(at: Moment(101.5))
        #expect(near(ind.nextChange(after: 101.5), 101.625))
        #expect(near(ind.nextChange(after: 101.7), 101.75))
        #expect(ind == body.indicators(at: Moment(101.5)))
        #expect(ind != studio(at: 100).indicators(at: Moment(101.5)))
    }
}

@Suite("The armed LED with more than one control at work")
struct ArmedLEDTests {
    @Test("the asking blink follows the newest request")
    func newestAsk() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false},"eyes":{"red":true}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102, id: "r1")
        _ = body.tap(.kill, at: 103)
        _ = body.tap(.kill, at: 103.5, id: "k1")
        #expect(body.indicators(at: Moment(103.5)).armedLED == (.asking, 103.5))
    }

    @Test("the double flash follows the newest problem")
    func newestProblem() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false},"eyes":{"red":true}}"#, at: 100)
        _ = body.tap(.kill, at: 101)
        _ = body.tap(.kill, at: 102, id: "k1")
        _ = body.tap(.onair, at: 103)
        _ = body.tap(.onair, at: 104, id: "r1")
        try body.face(#"{"eyes":{"red":true,"answered":{"id":"k1","error":"no"}}}"#, at: 105)
        try body.face(#"{"onair":{"on":false,"answered":{"id":"r1","error":"no"}}}"#, at: 106)
        #expect(body.indicators(at: Moment(106)).armedLED == (.problem, 106))
        try body.face(#"{"onair":{"on":false}}"#, at: 107)
        #expect(body.indicators(at: Moment(117.5)).armedLED == (.problem, 106))
        #expect(body.indicators(at: Moment(118)).armedLED == (.dark, 0))
    }
}
