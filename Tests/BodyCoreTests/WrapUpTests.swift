import Testing
@testable import BodyCore

@Suite("The Wrap up control: shown only while on in LIVE or SOLO PLAY (DESIGN 3)")
struct WrapUpTests {
    var button = WrapUpButton()
    var group = TwoPressGroup<ButtonRole>()

    mutating func tap(_ state: OnAirState, at t: Double, id: String = "w1") -> PressOutcome {
        button.tap(state: state, group: &group, at: Moment(t), id: id, by: "studio")
    }

    func value(_ state: OnAirState, at t: Double) -> String {
        button.word(state: state, armed: group.isArmed(.wrapup, at: t)).description
    }

    @Test("shown while on in live or solo-play, hidden otherwise",
          arguments: [(Said.live, true), (Said.soloPlay, true), (Said.prep, false), (Said.wrapup, false),
                      (Said.onNoStage, false), (Said.off, false), (Said.unread, false), (OnAirState.atStart, false)])
    func visibility(state: OnAirState, shown: Bool) {
        #expect(WrapUpButton.shows(state) == shown)
        #expect(WrapUpButton().visible(state) == shown)
        #expect(WrapUpButton().word(state: state, armed: false).description == (shown ? "ready" : "hidden"))
    }

    @Test("two presses in LIVE ask for the wrapup stage: ready, armed, asking")
    mutating func asks() {
        #expect(value(Said.live, at: 100) == "ready")
        #expect(tap(Said.live, at: 100) == .armed)
        #expect(value(Said.live, at: 100) == "armed")
        #expect(tap(Said.live, at: 101, id: "w1")
            == .asked(request("stage", "w1", ["stage": .string("wrapup"), "by": .string("studio")])))
        #expect(value(Said.live, at: 101) == "asking")
        #expect(button.asking.out?.due == 121)
    }

    @Test("it stays visible while its own press is out, even when the stage moves on")
    mutating func visibleWhileOut() {
        _ = tap(Said.soloPlay, at: 100)
        _ = tap(Said.soloPlay, at: 101)
        #expect(button.visible(Said.prep))
        #expect(value(Said.prep, at: 102) == "asking")
    }

    @Test("a press while hidden does nothing, says why and disarms")
    mutating func hiddenRefuses() {
        _ = tap(Said.live, at: 100)
        #expect(tap(Said.prep, at: 101) == .refused("Wrap up shows only while On Air is on in LIVE or SOLO PLAY"))
        #expect(group.armed(at: 101) == nil)
    }

    @Test("guards: a request out answers first, then unread with its reason and a disarm")
    mutating func guards() {
        _ = tap(Said.live, at: 100)
        #expect(tap(Said.unread, at: 101) == .refused("Oriel cannot read cwkPippa"))
        #expect(group.armed(at: 101) == nil)
        _ = tap(Said.live, at: 102)
        _ = tap(Said.live, at: 103)
        #expect(tap(Said.unread, at: 104) == .waiting("already asking Oriel to start Wrap up"))
        #expect(tap(Said.off, at: 104) == .waiting("already asking Oriel to start Wrap up"))
    }

    @Test("it settles when the push shows the wrapup stage", arguments: [Said.wrapup, Said.off])
    mutating func settles(shown: OnAirState) {
        _ = tap(Said.live, at: 100)
        _ = tap(Said.live, at: 101)
        button.adopt(Said.live, answered: nil, at: Moment(102))
        button.adopt(Said.unread, answered: nil, at: Moment(102))
        #expect(button.asking.out != nil)
        button.adopt(shown, answered: nil, at: Moment(103))
        #expect(button.asking.out == nil)
        #expect(button.asking.problemWords(at: Moment(103)) == nil)
    }

    @Test("an answered with its id and an error settles it and shows the error for 12 s")
    mutating func answeredError() {
        _ = tap(Said.live, at: 100)
        _ = tap(Said.live, at: 101, id: "w1")
        button.adopt(Said.live, answered: Answered(id: "w1", error: "cwkPippa refused: not live"), at: Moment(102))
        #expect(button.asking.out == nil)
        #expect(value(Said.live, at: 102) == "ready")
        #expect(button.asking.problemWords(at: Moment(113.999)) == "cwkPippa refused: not live")
        #expect(button.asking.problemWords(at: Moment(114)) == nil)
    }

    @Test("the wait runs out at exactly 20 s and says so in words")
    mutating func twentySeconds() {
        #expect(House.wrapUpWait == 20)
        _ = tap(Said.live, at: 100)
        _ = tap(Said.live, at: 101, id: "w1")
        #expect(button.expire(at: Moment(120.999)) == nil)
        #expect(button.expire(at: Moment(121)) == "w1")
        #expect(button.asking.problemWords(at: Moment(121)) == "Oriel did not start Wrap up within 20 s")
        #expect(value(Said.live, at: 121) == "ready")
    }

    @Test("a request that could not be queued shows why")
    mutating func fail() {
        _ = tap(Said.live, at: 100)
        _ = tap(Said.live, at: 101)
        button.fail("the outbox is full", at: Moment(101))
        #expect(button.asking.out == nil)
        #expect(button.asking.problemWords(at: Moment(101)) == "the outbox is full")
    }
}
