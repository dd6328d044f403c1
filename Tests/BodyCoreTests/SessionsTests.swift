import Testing
@testable import BodyCore

@Suite("the page's sessions (issue 20), at literal times")
struct SessionsTests {
    let id = String(repeating: "a1", count: 32)
    let other = String(repeating: "b2", count: 32)

    @Test("a session opens the page from its sign-in until 12 h after it, not a moment longer")
    func lasts12Hours() throws {
        var s = Sessions()
        let begun = s.begin(id: id, at: 1000)
        let session = try #require(begun)
        #expect(session.ends == 1000 + 43_200)
        #expect(s.allows(id, at: 1000))
        #expect(s.allows(id, at: 1000 + 43_200 - 0.001))
        #expect(!s.allows(id, at: 1000 + 43_200))
        #expect(!s.allows(id, at: 999), "before its sign-in: a clock gone back is no session")
    }

    @Test("only the whole id opens it", arguments: ["", "a1", String(repeating: "a1", count: 31) + "a2",
                                                   String(repeating: "a1", count: 33), String(repeating: "A1", count: 32)])
    func wholeID(given: String) {
        var s = Sessions()
        _ = s.begin(id: id, at: 0)
        #expect(!s.allows(given, at: 1))
        #expect(!s.allows(nil, at: 1))
    }

    @Test("an id too short to be a secret is refused")
    func shortID() {
        var s = Sessions()
        let begun = s.begin(id: "abc", at: 0)
        #expect(begun == nil)
        #expect(s.open.isEmpty)
        #expect(!s.allows("abc", at: 1))
    }

    @Test("signing out ends that session only")
    func signOut() {
        var s = Sessions()
        _ = s.begin(id: id, at: 0)
        _ = s.begin(id: other, at: 5)
        let ended = s.end(id)
        #expect(ended)
        #expect(!s.allows(id, at: 10))
        #expect(s.allows(other, at: 10))
        let again = s.end(id), none = s.end(nil)
        #expect(!again, "a second sign-out finds nothing")
        #expect(!none)
    }

    @Test("a new body has none: a restart ends every session")
    func restart() {
        var before = Sessions()
        _ = before.begin(id: id, at: 0)
        let after = Sessions()
        #expect(!after.allows(id, at: 1))
    }

    @Test("at most 16 at once: the 17th sign-in ends the oldest")
    func most() throws {
        var s = Sessions()
        let ids = (0..<17).map { String(format: "%064d", $0) }
        for (i, id) in ids.enumerated() {
            let begun = s.begin(id: id, at: Double(i))
            #expect(begun != nil)
        }
        #expect(s.open.count == 16)
        #expect(!s.allows(ids[0], at: 20))
        #expect(s.allows(ids[1], at: 20))
        #expect(s.allows(ids[16], at: 20))
    }

    @Test("ended sessions are forgotten at the next sign-in, and by forget")
    func forget() {
        var s = Sessions()
        _ = s.begin(id: id, at: 0)
        _ = s.begin(id: other, at: 43_200)
        #expect(s.open.map(\.id) == [other])
        s.forget(at: 2 * 43_200)
        #expect(s.open.isEmpty)
    }
}

@Suite("the last log lines (issue 20)")
struct LogLinesTests {
    @Test("keeps the last 100, oldest first, each with its time and a number that only grows")
    func ring() {
        var log = LogLines(capacity: 100)
        for i in 1...250 { log.add("line \(i)", level: i % 2 == 0 ? "info" : "warning", at: 1_700_000_000 + Double(i)) }
        #expect(log.lines.count == 100)
        #expect(log.lines.first?.words == "line 151")
        #expect(log.lines.first?.number == 151)
        #expect(log.lines.first?.at == 1_700_000_151)
        #expect(log.lines.last?.words == "line 250")
        #expect(log.lines.last?.level == "info")
        #expect(log.newest == 250)
        #expect(log.lines.map(\.number) == Array(151...250))
    }

    @Test("fewer than the capacity: every line, in order")
    func few() {
        var log = LogLines(capacity: 3)
        #expect(log.lines.isEmpty)
        #expect(log.newest == 0)
        log.add("a", level: "info", at: 1)
        log.add("b", level: "info", at: 2)
        #expect(log.lines.map(\.words) == ["a", "b"])
        log.add("c", level: "info", at: 3)
        log.add("d", level: "info", at: 4)
        #expect(log.lines.map(\.words) == ["b", "c", "d"])
    }
}
