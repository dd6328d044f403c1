import Testing
@testable import BodyCore

@Suite("OnAirState.from decodes Oriel's onair object in DESIGN 4's order")
struct OnAirStateTests {
    @Test("1. not an object: no state, keep what the body had",
          arguments: ["null", "true", "1", "\"on\"", "[true]"])
    func notAnObject(text: String) throws {
        #expect(OnAirState.read(try jsonBytes(text)) == nil)
    }

    @Test("DESIGN 4's own example decodes: on, LIVE, since, by; null unread and error are absent")
    func designExample() throws {
        let pushed = try jsonBytes(#"""
            {"on": true, "phase": "live", "since": "2026-11-04T17:50:00Z", "by": "dad",
             "unread": null, "error": null,
             "answered": {"id": "a1", "error": "cwkPippa refused: not now"}}
            """#)
        #expect(OnAirState.read(pushed) == OnAirState(on: true, stage: .live, since: "2026-11-04T17:50:00Z", by: "dad"))
        #expect(Answered.read(pushed["answered"]) == Answered(id: "a1", error: "cwkPippa refused: not now"))
    }

    @Test("1. an absent object is no state")
    func absent() {
        #expect(OnAirState.read(nil) == nil)
    }

    @Test("2. unread wins over on, whatever on says")
    func unreadWins() throws {
        let s = try #require(OnAirState.read(try jsonBytes(#"{"on":true,"phase":"live","unread":"cwkPippa is not answering"}"#)))
        #expect(s.on == nil)
        #expect(s.reason == "cwkPippa is not answering")
        #expect(s.unreadWords == "cwkPippa is not answering")
        #expect(s.stage == nil)
        #expect(s.isUnread)
    }

    @Test("2. error is the reason when there is no unread")
    func errorIsReason() throws {
        let s = try #require(OnAirState.read(try jsonBytes(#"{"on":false,"error":"cwkPippa refused the read"}"#)))
        #expect(s.on == nil)
        #expect(s.unreadWords == "cwkPippa refused the read")
    }

    @Test("2. unread comes before error")
    func unreadBeforeError() throws {
        let s = OnAirState.read(try jsonBytes(#"{"unread":"first","error":"second"}"#))
        #expect(s?.reason == "first")
    }

    @Test("2. an empty or wrongly typed unread counts as absent, so error or on decides",
          arguments: [
              (#"{"unread":"","error":"second"}"#, "second"),
              (#"{"unread":5,"error":"second"}"#, "second"),
              (#"{"unread":null,"error":"second"}"#, "second"),
          ])
    func emptyUnread(text: String, reason: String) throws {
        #expect(OnAirState.read(try jsonBytes(text))?.reason == reason)
    }

    @Test("2. an empty unread and an empty error leave on to decide")
    func emptyReasons() throws {
        let s = OnAirState.read(try jsonBytes(#"{"unread":"","error":"","on":true}"#))
        #expect(s == Said.onNoStage)
    }

    @Test("2. a reason keeps at most 160 characters")
    func reasonCut() throws {
        let long = String(repeating: "x", count: 200)
        let exact = String(repeating: "y", count: 160)
        #expect(OnAirState.read(try jsonBytes(#"{"unread":"\#(long)"}"#))?.reason == String(repeating: "x", count: 160))
        #expect(OnAirState.read(try jsonBytes(#"{"error":"\#(long)"}"#))?.reason?.count == 160)
        #expect(OnAirState.read(try jsonBytes(#"{"unread":"\#(exact)"}"#))?.reason == exact)
        #expect(Cut.reason == 160)
    }

    @Test("3. on is the bool at on, or else at on_air",
          arguments: [
              (#"{"on":true}"#, true),
              (#"{"on":false}"#, false),
              (#"{"on_air":true}"#, true),
              (#"{"on_air":false}"#, false),
              (#"{"on":false,"on_air":true}"#, false),
              (#"{"on":"yes","on_air":true}"#, true),
              (#"{"on":1,"on_air":false}"#, false),
              (#"{"on":null,"on_air":true}"#, true),
          ])
    func onThenOnAir(text: String, on: Bool) throws {
        let s = try #require(OnAirState.read(try jsonBytes(text)))
        #expect(s.on == on)
        #expect(s.unreadWords == nil)
        #expect(s.reason == nil)
    }

    @Test("4. neither an on nor a reason: no state, keep what the body had",
          arguments: [#"{}"#, #"{"on":null}"#, #"{"on":"true"}"#, #"{"on":1}"#,
                      #"{"phase":"live","since":"2026-11-04T17:50:00Z","by":"dad"}"#,
                      #"{"unread":"","error":""}"#, #"{"answered":{"id":"a","error":"no"}}"#])
    func nothingSaid(text: String) throws {
        #expect(OnAirState.read(try jsonBytes(text)) == nil)
    }

    @Test("5. a known phase gives its stage word, lower-cased first, with every alias",
          arguments: [
              ("prep", Stage.prep, "PREP"), ("PREP", .prep, "PREP"),
              ("live", .live, "LIVE"), ("Live", .live, "LIVE"),
              ("solo-play", .soloPlay, "SOLO PLAY"), ("solo_play", .soloPlay, "SOLO PLAY"),
              ("soloplay", .soloPlay, "SOLO PLAY"), ("SOLO_PLAY", .soloPlay, "SOLO PLAY"),
              ("wrapup", .wrapup, "WRAP-UP"), ("WrapUp", .wrapup, "WRAP-UP"),
          ])
    func knownPhase(phase: String, stage: Stage, word: String) throws {
        let s = try #require(OnAirState.read(try jsonBytes(#"{"on":true,"phase":"\#(phase)"}"#)))
        #expect(s.stage == stage)
        #expect(s.stage?.word == word)
    }

    @Test("5. an unknown stage shows no word, never a guess",
          arguments: ["rehearsal", "wrap-up", "solo play", "lives", " live", "", "pre"])
    func unknownPhase(phase: String) throws {
        let s = OnAirState.read(try jsonBytes(#"{"on":true,"phase":"\#(phase)"}"#))
        #expect(s?.on == true)
        #expect(s?.stage == nil)
    }

    @Test("5. a phase is kept to 16 characters, so a longer word is never a stage")
    func phaseCut() {
        #expect(Cut.phase == 16)
        #expect(Stage.from(phase: "live") == .live)
        #expect(Stage.from(phase: "liveliveliveliveLIVE") == nil)
        #expect(Stage.from(phase: "solo-play" + String(repeating: " ", count: 8)) == nil)
    }

    @Test("5. a phase read on its bytes is the stage its lower-cased word names", arguments: [
        "live", "LIVE", "Live", "prep", "PREP", "solo-play", "Solo_Play", "SOLOPLAY", "WrapUp", "wrap-up",
        "", "liv", "livee", " live", "live ", "solo play", "l\u{130}ve", "\u{212A}", "lIVE\r\n", "wrapup\u{301}",
    ])
    func phaseBytes(phase: String) {
        let lowered: Stage? = switch String(phase.prefix(Cut.phase)).lowercased() {
        case "prep": .prep
        case "live": .live
        case "solo-play", "solo_play", "soloplay": .soloPlay
        case "wrapup": .wrapup
        default: nil
        }
        #expect(Stage.from(phase: phase) == lowered, "\(phase)")
    }

    @Test("5. a phase is kept only while on")
    func phaseOnlyWhileOn() throws {
        #expect(OnAirState.read(try jsonBytes(#"{"on":false,"phase":"live"}"#))?.stage == nil)
        #expect(OnAirState.read(try jsonBytes(#"{"unread":"x","phase":"live"}"#))?.stage == nil)
        #expect(OnAirState.read(try jsonBytes(#"{"on":true,"phase":7}"#))?.stage == nil)
        #expect(OnAirState(on: false, stage: .live).stage == nil)
    }

    @Test("6. since and by are kept as words, cut to 40 and 24")
    func sinceAndBy() throws {
        let since = String(repeating: "s", count: 41)
        let by = String(repeating: "b", count: 25)
        let s = try #require(OnAirState.read(try jsonBytes(#"{"on":true,"since":"\#(since)","by":"\#(by)"}"#)))
        #expect(s.since == String(repeating: "s", count: 40))
        #expect(s.by == String(repeating: "b", count: 24))
        #expect(Cut.since == 40 && Cut.by == 24)
        let exact = try #require(OnAirState.read(try jsonBytes(
            #"{"on":false,"since":"2026-11-04T17:50:00Z","by":"dad"}"#)))
        #expect(exact.since == "2026-11-04T17:50:00Z")
        #expect(exact.by == "dad")
    }

    @Test("6. empty or wrongly typed since and by count as absent")
    func emptySinceBy() throws {
        let s = try #require(OnAirState.read(try jsonBytes(#"{"on":true,"since":"","by":42}"#)))
        #expect(s.since == nil && s.by == nil)
    }

    @Test("6. since and by are kept with an unread reason too")
    func sinceByWhenUnread() throws {
        let s = OnAirState.read(try jsonBytes(#"{"unread":"no read","since":"then","by":"dad"}"#))
        #expect(s?.since == "then" && s?.by == "dad")
    }

    @Test("7. an unread state with no reason says Oriel sent no On Air state")
    func noReason() {
        #expect(OnAirState(on: nil).unreadWords == "Oriel sent no On Air state")
        #expect(OnAirState.noReason == "Oriel sent no On Air state")
    }

    @Test("the start state is unread: Oriel has not said whether On Air is on")
    func atStart() {
        #expect(OnAirState.atStart.on == nil)
        #expect(OnAirState.atStart.unreadWords == "Oriel has not said whether On Air is on")
    }

    @Test("a known state drops any reason; only an on state keeps a stage")
    func initNormalises() {
        let s = OnAirState(on: true, reason: "ignored", stage: .live)
        #expect(s.reason == nil && s.unreadWords == nil && s.stage == .live)
    }

    @Test("a move is a change of on/off/unread or of stage, not of words")
    func moved() {
        #expect(Said.live.moved(from: Said.off))
        #expect(Said.live.moved(from: Said.soloPlay))
        #expect(Said.unread.moved(from: Said.off))
        #expect(!OnAirState.unread("b").moved(from: .unread("a")))
        #expect(!OnAirState(on: true, stage: .live, by: "dad").moved(from: Said.live))
    }

    @Test("every stage has its word")
    func words() {
        #expect(Stage.allCases.map(\.word) == ["PREP", "LIVE", "SOLO PLAY", "WRAP-UP"])
        #expect(Stage.soloPlay.rawValue == "solo-play")
    }
}

@Suite("Answered: Oriel's word on one request")
struct AnsweredTests {
    @Test("an id with an error, or with null")
    func decodes() throws {
        #expect(Answered.read(try jsonBytes(#"{"id":"r1","error":"cwkPippa refused: not on air"}"#))
            == Answered(id: "r1", error: "cwkPippa refused: not on air"))
        #expect(Answered.read(try jsonBytes(#"{"id":"r1","error":null}"#)) == Answered(id: "r1", error: nil))
        #expect(Answered.read(try jsonBytes(#"{"id":"r1","error":""}"#)) == Answered(id: "r1", error: nil))
    }

    @Test("no usable id is no answer", arguments: [#"{}"#, #"{"id":""}"#, #"{"id":7,"error":"x"}"#, #""r1""#])
    func noId(text: String) throws {
        #expect(Answered.read(try jsonBytes(text)) == nil)
        #expect(Answered.read(nil) == nil)
    }

    @Test("the error keeps at most 160 characters")
    func errorCut() throws {
        let long = String(repeating: "e", count: 300)
        #expect(Answered.read(try jsonBytes(#"{"id":"r1","error":"\#(long)"}"#))?.error?.count == 160)
    }
}
