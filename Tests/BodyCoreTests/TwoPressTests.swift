import Testing
@testable import BodyCore

@Suite("TwoPress: a first press arms for 5 s, a second one fires (DESIGN rule 3)")
struct TwoPressTests {
    @Test("the rule's numbers are the house's rulings")
    func numbers() {
        #expect(TwoPress.armedFor == 5)
        #expect(TwoPress.settle == 0.4)
        #expect(House.armedFor == 5 && House.settle == 0.4)
    }

    @Test("a fresh rule is not armed and has nothing to expire")
    func fresh() {
        var rule = TwoPress()
        #expect(!rule.armed(at: 100))
        #expect(rule.armedAt == nil && rule.expiresAt == nil)
        #expect(rule.expire(at: 100) == false)
    }

    @Test("a first press arms and does nothing else")
    func firstPressArms() {
        var rule = TwoPress()
        #expect(rule.press(at: 100) == .armed)
        #expect(rule.armed(at: 100))
        #expect(rule.armedAt == 100)
        #expect(rule.expiresAt == 105)
    }

    @Test("a second press in the same instant is the same touch")
    func sameInstant() {
        var rule = TwoPress()
        #expect(rule.press(at: 100) == .armed)
        #expect(rule.press(at: 100) == .armed)
        #expect(rule.armedAt == 100)
    }

    @Test("a graze inside the settle is the same touch and leaves the arming where it was")
    func grazeKeepsArming() {
        var rule = TwoPress()
        #expect(rule.press(at: 100) == .armed)
        #expect(rule.press(at: 100.2) == .armed)
        #expect(rule.armedAt == 100)
        // Had the graze moved the arming to 100.2, 105.1 would fire; it arms afresh.
        #expect(rule.press(at: 105.1) == .armed)
        #expect(rule.armedAt == 105.1)
    }

    @Test("a deliberate press after the settle confirms and clears the arming")
    func deliberateConfirms() {
        var rule = TwoPress()
        #expect(rule.press(at: 100) == .armed)
        #expect(rule.press(at: 100.5) == .fired)
        #expect(rule.armedAt == nil)
        #expect(!rule.armed(at: 100.5))
    }

    // 0.4 - 0 and 0.9 - 0.5 are exactly the double 0.4; 100.4 - 100 is not.
    @Test("a press exactly 0.4 s after the arming fires", arguments: [(0.0, 0.4), (0.5, 0.9)])
    func exactlySettle(first: Double, second: Double) {
        #expect(second - first == TwoPress.settle)
        var rule = TwoPress()
        #expect(rule.press(at: first) == .armed)
        #expect(rule.press(at: second) == .fired)
    }

    @Test("a press a hair under 0.4 s after the arming is the same touch")
    func justUnderSettle() {
        var rule = TwoPress()
        #expect(rule.press(at: 0) == .armed)
        #expect(rule.press(at: 0.4.nextDown) == .armed)
        #expect(rule.armedAt == 0)
    }

    @Test("a third press starts over")
    func thirdStartsOver() {
        var rule = TwoPress()
        #expect(rule.press(at: 100) == .armed)
        #expect(rule.press(at: 101) == .fired)
        #expect(rule.press(at: 102) == .armed)
        #expect(rule.press(at: 102.2) == .armed)
        #expect(rule.press(at: 103) == .fired)
    }

    @Test("an arming lasts [t, t+5)")
    func armingWindow() {
        var rule = TwoPress()
        _ = rule.press(at: 100)
        #expect(rule.armed(at: 104.999))
        #expect(!rule.armed(at: 105))
    }

    @Test("a second press a hair under 5 s fires")
    func justInsideFive() {
        var rule = TwoPress()
        _ = rule.press(at: 100)
        #expect(rule.press(at: 105.nextDown) == .fired)
    }

    @Test("a second press at exactly 5 s finds the arming run out and arms afresh")
    func exactlyFive() {
        var rule = TwoPress()
        _ = rule.press(at: 100)
        #expect(rule.press(at: 105) == .armed)
        #expect(rule.armedAt == 105)
        #expect(rule.press(at: 105.4) == .fired)
    }

    @Test("expire drops an arming only once it ran out, and says so once")
    func expire() {
        var rule = TwoPress()
        _ = rule.press(at: 100)
        #expect(rule.expire(at: 104.9) == false)
        #expect(rule.armedAt == 100)
        #expect(rule.expire(at: 105) == true)
        #expect(rule.armedAt == nil)
        #expect(rule.expire(at: 106) == false)
    }

    @Test("disarm clears the arming, so the next press arms again")
    func disarm() {
        var rule = TwoPress()
        _ = rule.press(at: 100)
        rule.disarm()
        #expect(!rule.armed(at: 100.1))
        #expect(rule.press(at: 101) == .armed)
    }
}

@Suite("TwoPressGroup: one arming per body (DESIGN rule 4)")
struct TwoPressGroupTests {
    @Test("pressing a neighbour moves the arming to it instead of firing")
    func neighbourMovesArming() {
        var group = TwoPressGroup<ButtonRole>()
        #expect(group.press(.onair, at: 100) == .armed)
        #expect(group.armed(at: 100) == .onair)
        #expect(group.press(.kill, at: 101) == .armed)
        #expect(group.armed(at: 101) == .kill)
        #expect(!group.isArmed(.onair, at: 101))
        #expect(group.isArmed(.kill, at: 101))
        #expect(group.expiresAt == 106)
        #expect(group.press(.onair, at: 102) == .armed)
        #expect(group.press(.onair, at: 103) == .fired)
        #expect(group.armed(at: 103) == nil)
        #expect(group.control == nil)
    }

    @Test("a neighbour pressed inside the settle still takes the arming")
    func neighbourInsideSettle() {
        var group = TwoPressGroup<ButtonRole>()
        _ = group.press(.onair, at: 100)
        #expect(group.press(.wrapup, at: 100.1) == .armed)
        #expect(group.armed(at: 100.1) == .wrapup)
        #expect(group.expiresAt == 105.1)
    }

    @Test("two controls are never armed at once", arguments: ButtonRole.allCases)
    func neverTwo(first: ButtonRole) {
        var group = TwoPressGroup<ButtonRole>()
        _ = group.press(first, at: 100)
        for other in ButtonRole.allCases where other != first {
            _ = group.press(other, at: 101)
            let armed = ButtonRole.allCases.filter { group.isArmed($0, at: 101) }
            #expect(armed == [other])
            _ = group.press(first, at: 102)
        }
    }

    @Test("the group's arming runs out at exactly 5 s")
    func runsOut() {
        var group = TwoPressGroup<ButtonRole>()
        _ = group.press(.kill, at: 100)
        #expect(group.armed(at: 104.999) == .kill)
        #expect(group.armed(at: 105) == nil)
        #expect(group.expire(at: 104.999) == false)
        #expect(group.expire(at: 105) == true)
        #expect(group.control == nil)
        #expect(group.expire(at: 105) == false)
    }

    @Test("disarming a control that does not hold the arming leaves it; nil disarms any")
    func disarm() {
        var group = TwoPressGroup<ButtonRole>()
        _ = group.press(.onair, at: 100)
        group.disarm(.kill)
        #expect(group.armed(at: 100) == .onair)
        group.disarm(.onair)
        #expect(group.armed(at: 100) == nil)
        _ = group.press(.wrapup, at: 101)
        group.disarm()
        #expect(group.armed(at: 101) == nil)
        #expect(group.press(.wrapup, at: 102) == .armed)
    }
}
