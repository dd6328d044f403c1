import Testing
@testable import BodyCore

@Suite("House eyes: what Oriel says about every eye (DESIGN 4)")
struct HouseEyesTests {
    @Test("the whole object decodes")
    func decodes() throws {
        let eyes = try #require(HouseEyes.read(try jsonBytes(#"""
            {"open": true, "until": 1764500000.0, "why": "Dad's tap on the studio body",
             "mode": "manual", "red": true, "names": ["studio camera"], "killing": false,
             "answered": {"id": "x", "error": null}}
            """#)))
        #expect(eyes == HouseEyes(mode: .manual, red: true, names: ["studio camera"], killing: false,
                                  open: true, until: 1_764_500_000, why: "Dad's tap on the studio body"))
    }

    @Test("not an object keeps what the body had", arguments: ["null", "true", "[]", "\"open\""])
    func notAnObject(text: String) throws {
        #expect(HouseEyes.read(try jsonBytes(text)) == nil)
        #expect(HouseEyes.read(nil) == nil)
    }

    @Test("an empty object says nothing is red or open, and shows no mode")
    func empty() throws {
        #expect(HouseEyes.read(try jsonBytes("{}")) == .unsaid)
        #expect(HouseEyes.unsaid.mode == nil && !HouseEyes.unsaid.red && HouseEyes.unsaid.names.isEmpty)
    }

    @Test("every mode word, and an unknown one shows none", arguments: [
        ("manual", HouseEyes.Mode.manual), ("auto", .auto), ("broadcast", .broadcast),
    ])
    func modes(word: String, mode: HouseEyes.Mode) throws {
        #expect(HouseEyes.read(try jsonBytes(#"{"mode":"\#(word)"}"#))?.mode == mode)
        #expect(HouseEyes.read(try jsonBytes(#"{"mode":"Manual"}"#))?.mode == nil)
        #expect(HouseEyes.read(try jsonBytes(#"{"mode":3}"#))?.mode == nil)
    }

    @Test("at most 6 names are kept; names that are not words are dropped")
    func names() throws {
        let eyes = try #require(HouseEyes.read(try jsonBytes(
            #"{"names":["a", 2, "", "b", "c", "d", "e", "f", "g", "h"]}"#)))
        #expect(eyes.names == ["a", "b", "c", "d", "e", "f"])
        #expect(Cut.eyeNames == 6)
        #expect(HouseEyes(names: ["1", "2", "3", "4", "5", "6", "7"]).names.count == 6)
        #expect(HouseEyes.read(try jsonBytes(#"{"names":"studio camera"}"#))?.names == [])
    }

    @Test("a field of the wrong type counts as absent")
    func wrongTypes() throws {
        let eyes = try #require(HouseEyes.read(try jsonBytes(
            #"{"open":"yes","until":"soon","why":5,"red":1,"killing":"true"}"#)))
        #expect(eyes == .unsaid)
    }

    @Test("why is kept to 160 characters")
    func whyCut() throws {
        let long = String(repeating: "t", count: 170)
        #expect(HouseEyes.read(try jsonBytes(#"{"why":"\#(long)"}"#))?.why?.count == 160)
    }
}

@Suite("The eyes kill control (DESIGN 3)")
struct EyesKillTests {
    var kill = EyesKill()
    var group = TwoPressGroup<ButtonRole>()
    let red = HouseEyes(red: true)

    mutating func tap(at t: Double, id: String = "k1") -> PressOutcome {
        kill.tap(group: &group, at: Moment(t), id: id, by: "studio")
    }

    @Test("two presses ask to close every eye: ready, armed, asking")
    mutating func asks() {
        #expect(kill.word(armed: false).description == "ready")
        #expect(tap(at: 100) == .armed)
        #expect(kill.word(armed: group.isArmed(.kill, at: 100)).description == "armed")
        #expect(tap(at: 100.2) == .armed)
        #expect(tap(at: 101, id: "k1") == .asked(request("eyes_kill", "k1", ["by": .string("studio")])))
        #expect(kill.word(armed: false).description == "asking")
        #expect(tap(at: 102) == .waiting("already asking Oriel to close every eye"))
    }

    @Test("it asks until a push shows the house closing", arguments: [
        HouseEyes(red: true, killing: true), HouseEyes(red: false), HouseEyes.unsaid,
    ])
    mutating func settles(shown: HouseEyes) {
        _ = tap(at: 100)
        _ = tap(at: 101)
        kill.adopt(red, answered: nil, at: Moment(102))
        #expect(kill.asking.out != nil)
        kill.adopt(shown, answered: nil, at: Moment(103))
        #expect(kill.asking.out == nil)
        #expect(kill.asking.problemWords(at: Moment(103)) == nil)
    }

    @Test("an answered with its id and an error is shown for 12 s")
    mutating func answeredError() {
        _ = tap(at: 100)
        _ = tap(at: 101, id: "k1")
        kill.adopt(red, answered: Answered(id: "k1", error: "the front door camera did not close"), at: Moment(102))
        #expect(kill.asking.out == nil)
        #expect(kill.asking.problemWords(at: Moment(113.999)) == "the front door camera did not close")
        #expect(kill.asking.problemWords(at: Moment(114)) == nil)
    }

    @Test("after exactly 15 s it says the silence in words")
    mutating func silence() {
        #expect(House.killWait == 15)
        _ = tap(at: 100)
        _ = tap(at: 101, id: "k1")
        #expect(kill.expire(at: Moment(115.999)) == nil)
        #expect(kill.expire(at: Moment(116)) == "k1")
        #expect(kill.asking.problemWords(at: Moment(116)) == "Oriel did not close the eyes within 15 s")
    }

    @Test("a request that could not be queued shows why")
    mutating func fail() {
        _ = tap(at: 100)
        _ = tap(at: 101)
        kill.fail("the outbox is full", at: Moment(101))
        #expect(kill.asking.out == nil)
        #expect(kill.asking.problemWords(at: Moment(101)) == "the outbox is full")
    }
}
