import FoundationEssentials
import Testing
@testable import BodyCore

/// JSONOut must write byte for byte what JSONEncoder (sorted keys, slashes
/// unescaped) wrote before it: Oriel and the tests read these bytes.
private func encoder<T: Encodable>(_ value: T) throws -> [UInt8] {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return Array(try e.encode(value))
}

private let awkward = "Dad's \"tap\" on C:\\studio/a\u{1}b\tc\nd\re\u{8}f\u{c}g\u{1f} é ✓ 🎙"

@Suite("JSONOut writes what JSONEncoder wrote")
struct JSONOutTests {
    /// Bodies in several states, each with extras that vary what the adapters say.
    static func states() throws -> [(String, Body, Moment, StatusExtras)] {
        var out: [(String, Body, Moment, StatusExtras)] = []
        var full = quietExtras
        full.lines = [.lamp: true, .armedLED: nil, .eyeLED: false]
        full.held = [.onair: (held: true, stuck: false), .wrapup: (held: false, stuck: false),
                     .kill: (held: false, stuck: true), .camera: (held: false, stuck: false)]
        full.previewRunning = true
        full.previewWords = "running: YUYV 640x480 @15 (encoded)"
        full.location = .init(allowed: true, watching: true, clockSynchronised: false, clockBehindReceiver: 7200.25)
        full.board = .init(kind: "/usr/local/share/studio-body/board/raspberrypi.conf", ok: false, problem: awkward)
        var none = quietExtras
        none.lines = [:]
        none.held = [:]

        let start = studio(at: 100)
        out.append(("at start", start, Moment(100), quietExtras))
        out.append(("at start, every line and button", start, Moment(100), full))
        out.append(("at start, no lines nor buttons", start, Moment(100), none))

        var live = studio(at: 100)
        try live.face(#"{"onair":{"on":true,"phase":"solo-play","since":"2026-11-04T17:50:00Z","by":"dad"},"eyes":{"open":true,"until":1764500400.123456,"why":"Dad's \"tap\"","mode":"broadcast","red":true,"names":["studio camera","front door"]}}"#, at: 100.125)
        out.append(("live, eyes open", live, Moment(mono: 101.5, wall: 1_764_500_101.987654, synchronised: false), full))
        var armed = live
        armed.wire(.onair, down: false, at: 100)
        _ = armed.tapLine(.onair, at: 102)
        out.append(("on air armed", armed, Moment(102.5), full))
        var asking = armed
        _ = asking.tapLine(.onair, at: 103)
        _ = asking.tap(.kill, at: 103.2)
        _ = asking.tap(.kill, at: 103.4, id: "k1")
        out.append(("asking, the kill asking", asking, Moment(103.5), full))
        var refused = asking
        try refused.face(#"{"onair":{"answered":{"id":"r1","error":"the mixer said no"}}}"#, at: 104)
        out.append(("a request refused", refused, Moment(104.5), quietExtras))
        var silent = studio(at: 100)
        try silent.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = silent.poll(after: 0, at: Moment(100.5))
        _ = silent.tick(at: Moment(170))
        out.append(("Oriel silent", silent, Moment(170), none))
        // Words that need escaping everywhere the document carries text, and a blip counted.
        var awkwardBody = studio(at: 100)
        let push = JSON.object([
            "onair": .object(["unread": .string(awkward), "since": .string("2026-12-01T13:00:00Z\u{1}"), "by": .string("Dad \"D\" 🎙")]),
            "eyes": .object(["open": .bool(true), "why": .string(awkward), "names": .array([.string(awkward), .string("")]),
                             "until": .number(1_796_135_000.5), "mode": .string("tap")]),
        ])
        _ = try awkwardBody.push(JSONBytes.parse(BodyJSON.encode(push)), at: Moment(100.5))
        awkwardBody.wire(.onair, down: false, at: 100)
        _ = awkwardBody.edge(.onair, down: true, at: 101)
        _ = awkwardBody.edge(.onair, down: false, at: 101.0002)
        _ = awkwardBody.tick(at: Moment(101.01))
        _ = awkwardBody.read(.onair, down: false, at: 101.01)
        var words = full
        words.previewWords = awkward
        out.append(("awkward words", awkwardBody, Moment(mono: 101.5, wall: -0.25, synchronised: true), words))
        // Every field that can be said, said: a wrap-up and a kill asked, a gate
        // counting down (6.75 s), a late window counted; then the kill refused
        // within its 12 s while the house closes every eye.
        var said = studio(at: 100)
        try said.face(#"{"onair":{"on":true,"phase":"live","since":"2026-11-04T17:50:00Z","by":"dad"},"eyes":{"open":false}}"#, at: 100)
        try said.face(#"{"eyes":{"open":true,"until":1764500110.25,"why":"Dad's tap on the studio body","mode":"manual","red":true,"names":["studio camera"]}}"#, at: 100.5)
        _ = said.tap(.wrapup, at: 101)
        _ = said.tap(.wrapup, at: 101.6, id: "w1")
        _ = said.tap(.kill, at: 102)
        _ = said.tap(.kill, at: 102.6, id: "k1")
        said.wire(.onair, down: false, at: 100)
        _ = said.edge(.onair, down: true, at: 103)
        _ = said.edge(.onair, down: false, at: 103.2)
        _ = said.tick(at: Moment(103.3))
        out.append(("asked, the gate counting down", said, Moment(103.5), full))
        var killRefused = said
        try killRefused.face(#"{"eyes":{"open":true,"until":1764500110.25,"why":"Dad's tap on the studio body","mode":"manual","red":true,"killing":true,"names":["studio camera"],"answered":{"id":"k1","error":"the camera's switch did not answer"}}}"#, at: 104)
        out.append(("the kill refused, every eye closing", killRefused, Moment(104.5), full))
        return out
    }

    @Test("the status document is the pinned bytes, state by state")
    func statusDocument() throws {
        #expect(try Self.states().map(\.0).sorted() == statusDocuments.keys.sorted(), "a pinned document for each state")
        var buffer: [UInt8] = []
        for (name, body, now, extras) in try Self.states() {
            JSONOut.write(into: &buffer) { body.writeStatus(at: now, extras, to: &$0) }
            #expect(String(decoding: buffer, as: UTF8.self) == statusDocuments[name], "\(name)")
        }
    }

    @Test("a buffer written into again is emptied first and keeps its storage")
    func reused() {
        var buffer: [UInt8] = []
        JSONOut.write(into: &buffer) { $0.array { a in for i in 0..<100 { a.number(UInt64(i)) } } }
        let first = buffer.withUnsafeBufferPointer { $0.baseAddress }
        JSONOut.write(into: &buffer) { $0.object { o in o.field("a"); o.bool(true) } }
        #expect(String(decoding: buffer, as: UTF8.self) == #"{"a":true}"#)
        #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == first)
        // Still shared (an answer not let go yet): the other holder keeps its bytes.
        let held = buffer
        JSONOut.write(into: &buffer) { $0.null() }
        #expect(held == Array(#"{"a":true}"#.utf8))
        #expect(buffer == Array("null".utf8))
    }

    @Test("a number with a fraction is written as description writes it", arguments: [0, 1, 2, 3])
    func shortestDigits(seed: UInt64) throws {
        var values: [Double] = [0.1, 1e-5, 1e-4, 1e300, 4.9e-324, -0.25, 1e16, 123456.789, 2.5e-7, .greatestFiniteMagnitude,
                                1_796_131_442.123456, 1_764_500_101.987654, -1_764_500_101.5]
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Double(bitPattern: state))
            values.append(Double(state >> 11) / Double(1 << 53) * 2e9)
        }
        for d in values where d.isFinite {
            var out = JSONOut()
            out.number(d)
            let text = String(decoding: out.bytes, as: UTF8.self)
            if d == d.rounded(.towardZero), abs(d) < 9.007_199_254_740_992e15 { continue }
            #expect(text == d.description)
        }
        #expect(String(decoding: try encoder([1_796_131_442.123456, -2.5e-7]), as: UTF8.self) == {
            var out = JSONOut()
            out.array { a in a.number(1_796_131_442.123456); a.number(-2.5e-7) }
            return String(decoding: out.bytes, as: UTF8.self)
        }())
    }

    @Test("JSON values: nested objects in byte order, arrays, numbers")
    func values() throws {
        let v: JSON = .object(["seq": .number(1_796_131_442_924), "kind": .string("onair"), "on": .bool(true),
                               "id": .string(awkward), "b_a": .null, "ba": .array([.number(0.1), .number(-3), .object([:])]),
                               "Z": .object(["y": .number(2.5e-7), "x": .array([])])])
        var out = JSONOut()
        out.value(v)
        #expect(String(decoding: out.bytes, as: UTF8.self) == String(decoding: try encoder(v), as: UTF8.self))
    }

    @Test("strings and literals that fill the pending bytes, cross their end or are longer than them", arguments: [1, 200, 1000, 1017, 1019, 1020, 1021, 1022, 1023, 1024, 1100, 2100])
    func pendingEnds(length: Int) throws {
        // Each string is copied in with its quotes at one check for room (issue 21): at every offset near 1024 bytes.
        for lead in 0..<8 {
            let strings = [String(repeating: "a", count: lead), String(repeating: "x", count: length), "é✓", "", "q\"", "tail"]
            var out = JSONOut()
            out.array { a in
                for s in strings { a.string(s) }
                a.bool(true); a.bool(false); a.null()
            }
            let expected = try encoder(strings).dropLast() + Array(",true,false,null]".utf8)
            #expect(out.bytes == Array(expected), "lead \(lead)")
        }
    }

    @Test("a value written as its bytes (in the source or an array) takes its comma, and fits or not", arguments: [0, 1000, 1020, 1030])
    func raw(lead: Int) {
        var out = JSONOut()
        out.array { a in
            a.string(String(repeating: "x", count: lead))
            a.raw(#"{"held":false,"noise":0,"stuck":false}"#)
            a.object { o in o.field("b"); o.raw("[1,2]"); o.field("c"); o.raw("null"); o.field("d"); o.raw(Array("[3]".utf8)) }
            a.raw(#"{"long":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}"#)
            a.raw(Array(#"{"z":"\#(String(repeating: "z", count: lead + 30))"}"#.utf8))
        }
        let expected = #"["\#(String(repeating: "x", count: lead))",{"held":false,"noise":0,"stuck":false},{"b":[1,2],"c":null,"d":[3]},"#
            + #"{"long":"\#(String(repeating: "y", count: 1100))"},{"z":"\#(String(repeating: "z", count: lead + 30))"}]"#
        #expect(String(decoding: out.bytes, as: UTF8.self) == expected)
    }

    @Test("commas after empty containers, nested containers and field names, none after a key")
    func commas() {
        var out = JSONOut()
        out.array { a in
            a.array { _ in }
            a.object { o in
                o.field("a"); o.object { _ in }
                o.field("b"); o.array { x in x.null(); x.array { _ in } }
                o.key("c\n"); o.bool(false)
            }
            a.number(1 as UInt64)
        }
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"[[],{"a":{},"b":[null,[]],"c\n":false},1]"#)
    }
}

