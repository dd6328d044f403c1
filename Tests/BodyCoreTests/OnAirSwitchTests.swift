import Testing
@testable import BodyCore

@Suite("The On Air control: guards, asking and the words it says (DESIGN 1, 3)")
struct OnAirSwitchTests {
    var sw = OnAirSwitch()
    var group = TwoPressGroup<ButtonRole>()

    mutating func tap(_ state: OnAirState, at t: Double, id: String = "r1") -> PressOutcome {
        sw.tap(state: state, group: &group, at: Moment(t), id: id, by: "studio")
    }

    func value(_ state: OnAirState, at t: Double) -> String {
        sw.word(state: state, armed: group.isArmed(.onair, at: t)).description
    }

    @Test("while off, two presses ask for on; the control shows armed, then asking")
    mutating func asksForOn() {
        #expect(value(Said.off, at: 100) == "off")
        #expect(tap(Said.off, at: 100) == .armed)
        #expect(value(Said.off, at: 100) == "armed")
        #expect(tap(Said.off, at: 101, id: "r1")
            == .asked(request("onair", "r1", ["on": .bool(true), "by": .string("studio")])))
        #expect(value(Said.off, at: 101) == "asking")
        #expect(sw.askedOn == true)
        #expect(sw.asking.out?.id == "r1")
        #expect(sw.asking.out?.due == 116)
        #expect(group.armed(at: 101) == nil)
    }

    @Test("while on, two presses ask for off: the opposite of what it read")
    mutating func asksForOff() {
        _ = tap(Said.live, at: 100)
        #expect(tap(Said.live, at: 100.5, id: "r2")
            == .asked(request("onair", "r2", ["on": .bool(false), "by": .string("studio")])))
        #expect(sw.askedOn == false)
    }

    @Test("a press while a request is out answers with what it waits for, and does not arm")
    mutating func waiting() {
        _ = tap(Said.off, at: 100)
        _ = tap(Said.off, at: 101)
        #expect(tap(Said.off, at: 102) == .waiting("already asking Oriel to start On Air"))
        #expect(group.armed(at: 102) == nil)
        var ending = OnAirSwitch()
        _ = ending.tap(state: Said.live, group: &group, at: Moment(110), id: "a", by: "s")
        _ = ending.tap(state: Said.live, group: &group, at: Moment(111), id: "a", by: "s")
        #expect(ending.tap(state: Said.live, group: &group, at: Moment(112), id: "b", by: "s")
            == .waiting("already asking Oriel to end On Air"))
    }

    @Test("the next push showing the asked-for state settles the request")
    mutating func settlesOnEvidence() {
        _ = tap(Said.off, at: 100)
        _ = tap(Said.off, at: 101)
        sw.adopt(Said.off, answered: nil, at: Moment(102))
        #expect(sw.asking.out != nil)
        sw.adopt(Said.live, answered: nil, at: Moment(103))
        #expect(sw.asking.out == nil)
        #expect(value(Said.live, at: 103) == "on")
        #expect(sw.asking.problemWords(at: Moment(103)) == nil)
    }

    @Test("an unread push does not settle a request for on or off")
    mutating func unreadDoesNotSettle() {
        _ = tap(Said.off, at: 100)
        _ = tap(Said.off, at: 101)
        sw.adopt(Said.unread, answered: nil, at: Moment(102))
        #expect(sw.asking.out?.id == "r1")
    }

    @Test("an answered with the same id and an error settles it and shows the error for [t, t+12)")
    mutating func answeredError() {
        _ = tap(Said.off, at: 100)
        _ = tap(Said.off, at: 101, id: "r1")
        sw.adopt(Said.off, answered: Answered(id: "other", error: "refused"), at: Moment(102))
        #expect(sw.asking.out != nil)
        sw.adopt(Said.off, answered: Answered(id: "r1", error: nil), at: Moment(102))
        #expect(sw.asking.out != nil)
        sw.adopt(Said.off, answered: Answered(id: "r1", error: "cwkPippa refused: no show today"), at: Moment(103))
        #expect(sw.asking.out == nil)
        #expect(value(Said.off, at: 103) == "off")
        #expect(sw.asking.problemWords(at: Moment(103)) == "cwkPippa refused: no show today")
        #expect(sw.asking.problemWords(at: Moment(114.999)) == "cwkPippa refused: no show today")
        #expect(sw.asking.problemWords(at: Moment(115)) == nil)
        #expect(House.problemShownFor == 12)
    }

    @Test("the wait runs out at exactly 15 s and the silence is said in words")
    mutating func waitRunsOut() {
        _ = tap(Said.off, at: 100)
        _ = tap(Said.off, at: 101, id: "r1")
        #expect(sw.expire(at: Moment(115.999)) == nil)
        #expect(sw.asking.out != nil)
        #expect(sw.expire(at: Moment(116)) == "r1")
        #expect(sw.asking.out == nil)
        #expect(sw.asking.problemWords(at: Moment(116)) == "Oriel did not start On Air within 15 s")
        #expect(sw.expire(at: Moment(117)) == nil)
        #expect(House.onAirWait == 15)
    }

    @Test("ending On Air says its own silence")
    mutating func endSilence() {
        _ = tap(Said.live, at: 100)
        _ = tap(Said.live, at: 101)
        _ = sw.expire(at: Moment(116))
        #expect(sw.asking.problemWords(at: Moment(116)) == "Oriel did not end On Air within 15 s")
    }

    @Test("the silence shows for 12 s and is dropped at exactly 12 s")
    mutating func silenceShown() {
        _ = tap(Said.off, at: 100)
        _ = tap(Said.off, at: 101)
        _ = sw.expire(at: Moment(116))
        #expect(sw.asking.problem?.until == 128)
        #expect(sw.asking.nextDue == 128)
        _ = sw.expire(at: Moment(127.999))
        #expect(sw.asking.problem != nil)
        _ = sw.expire(at: Moment(128))
        #expect(sw.asking.problem == nil)
        #expect(sw.asking.nextDue == nil)
    }

    @Test("guard 1: an arming that ran out is dropped before anything else is decided")
    mutating func guardRanOutFirst() {
        _ = tap(Said.off, at: 100)
        #expect(tap(Said.off, at: 105) == .armed)
        #expect(group.expiresAt == 110)
        // A neighbour's stale arming is dropped even when the press only waits.
        _ = tap(Said.off, at: 106)
        _ = group.press(.kill, at: 107)
        #expect(tap(Said.off, at: 112) == .waiting("already asking Oriel to start On Air"))
        #expect(group.control == nil)
    }

    @Test("guard 2 before 3: a request out answers with what it waits for even when unread")
    mutating func waitingBeforeUnread() {
        _ = tap(Said.off, at: 100)
        _ = tap(Said.off, at: 101)
        #expect(tap(Said.unread, at: 102) == .waiting("already asking Oriel to start On Air"))
    }

    @Test("guard 3: an unread state answers with its reason and disarms")
    mutating func unreadAnswersAndDisarms() {
        #expect(tap(Said.off, at: 100) == .armed)
        #expect(tap(Said.unread, at: 101) == .refused("Oriel cannot read cwkPippa"))
        #expect(group.armed(at: 101) == nil)
        #expect(value(Said.unread, at: 101) == "unknown")
        #expect(tap(OnAirState.atStart, at: 102) == .refused("Oriel has not said whether On Air is on"))
    }

    @Test("guard 3 disarms only this control; a neighbour's arming stays")
    mutating func unreadLeavesNeighbour() {
        _ = group.press(.kill, at: 100)
        _ = tap(Said.unread, at: 101)
        #expect(group.armed(at: 101) == .kill)
    }

    @Test("end-only: a press while off does nothing, says why and disarms")
    func endOnlyOff() {
        var sw = OnAirSwitch(action: .endOnly)
        var group = TwoPressGroup<ButtonRole>()
        _ = group.press(.onair, at: 99)
        #expect(sw.tap(state: Said.off, group: &group, at: Moment(100), id: "r", by: "s")
            == .refused("this On Air button only ends On Air, and On Air is off"))
        #expect(group.armed(at: 100) == nil)
        #expect(sw.asking.out == nil)
    }

    @Test("end-only: while on it ends On Air like toggle")
    func endOnlyOn() {
        var sw = OnAirSwitch(action: .endOnly)
        var group = TwoPressGroup<ButtonRole>()
        #expect(sw.tap(state: Said.live, group: &group, at: Moment(100), id: "r", by: "s") == .armed)
        #expect(sw.tap(state: Said.live, group: &group, at: Moment(101), id: "r", by: "s")
            == .asked(request("onair", "r", ["on": .bool(false), "by": .string("s")])))
    }

    @Test("end-only: unread answers with its reason before the end-only words")
    func endOnlyUnread() {
        var sw = OnAirSwitch(action: .endOnly)
        var group = TwoPressGroup<ButtonRole>()
        #expect(sw.tap(state: Said.unread, group: &group, at: Moment(100), id: "r", by: "s")
            == .refused("Oriel cannot read cwkPippa"))
        #expect(OnAirSwitch.Action(rawValue: "end-only") == .endOnly)
        #expect(OnAirSwitch.Action(rawValue: "toggle") == .toggle)
    }

    @Test("value words: on, off, unknown, and armed and asking win over the state")
    mutating func valueWords() {
        #expect(sw.word(state: Said.live, armed: false).description == "on")
        #expect(sw.word(state: Said.onNoStage, armed: false).description == "on")
        #expect(sw.word(state: Said.off, armed: false).description == "off")
        #expect(sw.word(state: Said.unread, armed: false).description == "unknown")
        #expect(sw.word(state: Said.live, armed: true).description == "armed")
        _ = tap(Said.live, at: 100)
        _ = tap(Said.live, at: 101)
        #expect(sw.word(state: Said.live, armed: false).description == "asking")
        #expect(sw.word(state: Said.unread, armed: false).description == "asking")
    }

    @Test("a request that could not be queued leaves nothing out and shows why")
    mutating func fail() {
        _ = tap(Said.off, at: 100)
        _ = tap(Said.off, at: 101)
        sw.fail("the outbox is full", at: Moment(101))
        #expect(sw.asking.out == nil)
        #expect(sw.asking.problemWords(at: Moment(101)) == "the outbox is full")
    }

    @Test("press outcomes say themselves in words")
    func outcomeWords() {
        #expect(PressOutcome.armed.words == "armed: press again within 5 s to confirm")
        #expect(PressOutcome.asked(request("onair", "r9", [:])).words == "asked Oriel (onair, id r9)")
        #expect(PressOutcome.waiting("already asking").words == "already asking")
        #expect(PressOutcome.refused("unread").words == "unread")
    }
}
