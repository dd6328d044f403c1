import Testing
@testable import BodyCore

@Suite("the page's document (issue 20)")
struct PageDocumentTests {
    func page(_ body: Body, at t: Double, lines: [OutputRole: Bool?] = [.lamp: false, .armedLED: false, .eyeLED: false],
              log: LogLines = LogLines(capacity: 3)) -> PageDocument {
        var extras = quietExtras
        extras.lines = RoleTable(lines)
        let indicators = body.indicators(at: Moment(t))
        return PageDocument(status: statusBytes(body, at: Moment(t), extras), name: "studio", version: "1.2.3", sim: true,
                            patterns: Dictionary(uniqueKeysWithValues: OutputRole.allCases.map { ($0, indicators.driving($0)) }),
                            presses: body.lastPress, hello: "no hello: oriel.url is not set", whereSaid: nil, log: log)
    }

    @Test("each button's last press and what it became: refused while unread, then armed, then asked")
    func lastPress() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        body.tapLine(.onair, at: 101)
        #expect(body.lastPress[.onair]?.became == "refused")
        #expect(body.lastPress[.onair]?.words == "Oriel has not said whether On Air is on")
        try body.face(#"{"onair":{"on":false}}"#, at: 102)
        body.tapLine(.onair, at: 103)
        #expect(body.lastPress[.onair]?.became == "armed")
        #expect(body.lastPress[.onair]?.words == PressOutcome.armed.words)
        #expect(abs((body.lastPress[.onair]?.at ?? 0) - 1_764_500_103) < 0.001, "the edge's time, on the wall clock")
        body.tapLine(.onair, at: 104, id: "q1")
        let press = try #require(body.lastPress[.onair])
        #expect(press.became == "asked")
        #expect(abs(press.at - 1_764_500_104) < 0.001)
        #expect(press.words.contains("id q1"))
        #expect(body.lastPress[.kill] == nil)
    }

    @Test("the unread flash is sent as its pattern and age, so the page draws it as it runs")
    func unreadPattern() {
        let doc = page(studio(at: 100), at: 103.5)
        let text = String(decoding: doc.json(at: 103.5), as: UTF8.self)
        #expect(text.contains(#""lamp":{"age":3.5,"lit":[[0,0.2]],"period":2}"#), "\(text)")
        #expect(text.contains(#""armed-led":{"age":103.5,"lit":[],"period":1}"#))
    }

    @Test("asking: the armed LED's 4 Hz blink")
    func askingPattern() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        body.tapLine(.onair, at: 101)
        body.tapLine(.onair, at: 102)
        let doc = page(body, at: 102.5)
        #expect(doc.patterns[.armedLED]?.pattern == .asking)
        #expect(try JSON.parse(doc.status)["onair"]?["value"] == .string("asking"))
        let text = String(decoding: doc.json(at: 102.5), as: UTF8.self)
        #expect(text.contains(#""armed-led":{"age":"#))
        #expect(text.contains(#""lit":[[0,0.125]],"period":0.25}"#))
        #expect(text.contains(#""became":"asked","#))
    }

    @Test("the status document goes in as GET /status writes it")
    func statusAsWritten() {
        let body = studio(at: 100)
        let text = String(decoding: page(body, at: 100).json(at: 100), as: UTF8.self)
        let status = String(decoding: statusBytes(body, at: Moment(100)), as: UTF8.self)
        #expect(text.contains(#""sim":true,"status":\#(status),"version":"#), "\(text)")
    }

    @Test("a blinking line's level is no change of facts; its pattern, the state or a log line is")
    func sameFacts() throws {
        var body = studio(at: 100)
        let a = page(body, at: 100, lines: [.lamp: true])
        #expect(a.sameFacts(as: page(body, at: 101, lines: [.lamp: false])))
        try body.face(#"{"onair":{"on":true}}"#, at: 102)
        #expect(!a.sameFacts(as: page(body, at: 102)))
        var log = LogLines(capacity: 3)
        log.add("a line", level: "info", at: 1)
        #expect(!page(body, at: 103).sameFacts(as: page(body, at: 103, log: log)))
    }

    @Test("the lines' object is found as the key, not in a word that quotes it; what lies around it must match byte for byte")
    func sameFactsAroundTheLines() throws {
        var body = studio(at: 100)
        // A reason that carries the key's text, quotes and braces included.
        try body.face(#"{"eyes":{"open":true,"why":"\"lines\":{ } a tap","until":1764500400}}"#, at: 100)
        let lit = page(body, at: 101, lines: [.lamp: true, .armedLED: false])
        #expect(lit.sameFacts(as: page(body, at: 101, lines: [.lamp: false, .armedLED: nil])))
        #expect(lit.sameFacts(as: page(body, at: 101, lines: [:])), "a line gone is a level, not a fact")
        var other = body
        try other.face(#"{"eyes":{"open":true,"why":"\"lines\":{ } a tap!","until":1764500400}}"#, at: 100)
        #expect(!lit.sameFacts(as: page(other, at: 101, lines: [.lamp: false])), "the reason before the lines differs")
        var later = body
        try later.face(#"{"onair":{"on":true}}"#, at: 100)
        #expect(!lit.sameFacts(as: page(later, at: 101, lines: [.lamp: false])), "onair, after the lines, differs")
    }

    @Test("the log lines go out oldest first, with their times and levels")
    func logLines() {
        var log = LogLines(capacity: 3)
        log.add("first", level: "info", at: 1_764_500_000.25)
        log.add("a \"quoted\" warning", level: "warning", at: 1_764_500_001)
        let text = String(decoding: page(studio(at: 100), at: 100, log: log).json(at: 100), as: UTF8.self)
        #expect(text.contains(#""log":[{"at":1764500000.25,"level":"info","n":1,"words":"first"},{"at":1764500001,"level":"warning","n":2,"words":"a \"quoted\" warning"}]"#))
        #expect(text.hasPrefix(#"{"hello":"no hello: oriel.url is not set","log":["#))
        #expect(text.hasSuffix(#""version":"1.2.3","where_said":null}"#))
        #expect((try? JSON.parse(page(studio(at: 100), at: 100, log: log).json(at: 100))) != nil, "valid JSON")
    }
}
