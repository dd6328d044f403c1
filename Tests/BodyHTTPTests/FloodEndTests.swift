import Testing
@testable import BodyHTTP

@Suite("the end of a flood of connections")
struct FloodEndTests {
    /// The counts of open connections after each run, and what the rule says.
    func ends(_ counts: [Int], limit: Int = 128) -> [Int] {
        var rule = FloodEnd(limit: limit)
        return counts.indices.filter { rule.ended(open: counts[$0]) }
    }

    @Test("with the limit of 128: a flood is 16 open, calm is 8 or fewer")
    func numbers() {
        let rule = FloodEnd(limit: 128)
        #expect(rule.flood == 16 && rule.calm == 8)
    }

    @Test("ordinary traffic never counts as a flood")
    func ordinary() {
        #expect(ends([1, 2, 3, 15, 12, 2, 0, 1]).isEmpty)
    }

    @Test("a flood ends once, at the first calm count after it")
    func once() {
        #expect(ends([2, 16, 128, 100, 20, 9, 8, 3, 0, 1, 0]) == [6])
    }

    @Test("a flood that falls back but not to calm has not ended; the next one ends again")
    func notCalm() {
        #expect(ends([70, 20, 90, 9, 9]).isEmpty)
        #expect(ends([16, 0, 0, 80, 12, 5]) == [1, 5])
    }

    @Test("a tiny limit still has a flood and a calm")
    func tiny() {
        let rule = FloodEnd(limit: 1)
        #expect(rule.flood == 2 && rule.calm == 1)
    }
}
