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

private func written<T: JSONWritable>(_ value: T) -> [UInt8] {
    var out = JSONOut()
    value.write(to: &out)
    return out.bytes
}

private let awkward = "Dad's \"tap\" on C:\\studio/a\u{1}b\tc\nd\re\u{8}f\u{c}g\u{1f} é ✓ 🎙"

private func fullDocument() -> StatusDocument {
    let asked = StatusDocument.Asked(id: "e8b43341b0ff0737", on: true, at: 1_796_131_442.123456)
    return StatusDocument(
        onair: .init(value: "asking", on: false, phase: "live", stage: awkward, since: "2026-12-01T13:00:00Z",
                     by: "oriel/pippa", unread: "", asked: asked, problem: "Oriel said \"no\""),
        wrapup: .init(value: "shown", asked: .init(id: "w1", on: nil, at: 12), problem: nil),
        eyes: .init(mode: "tap", red: true, names: ["Dad", awkward, ""], killing: false, open: true,
                    until: 1_796_135_000.5, why: awkward, preview: "running", preview_why: "running: YUYV 640x480 @15 (encoded)",
                    preview_stops_in: 42.25,
                    kill: "armed", kill_asked: asked, kill_problem: "x"),
        lines: ["lamp": Null(wrappedValue: true), "armed-led": Null(wrappedValue: nil), "eye-led": Null(wrappedValue: false)],
        buttons: ["onair": .init(held: true, stuck: false, noise: 3), "kill": .init(held: false, stuck: true, noise: 0),
                  "wrapup": .init(held: false, stuck: false, noise: 18_446_744_073_709_551_615), "camera": .init(held: false, stuck: false, noise: 0)],
        where: .init(allowed: true, watching: false, clockSynchronised: false, clockBehindReceiver: 7200.25),
        oriel: .init(last_push: -0.25, last_poll: 1e300, silent: false),
        board: .init(kind: "/usr/local/share/studio-body/board/raspberrypi.conf", ok: false, problem: awkward))
}

@Suite("JSONOut writes what JSONEncoder wrote")
struct JSONOutTests {
    @Test("a status document with every field set, awkward strings and numbers")
    func full() throws {
        let doc = fullDocument()
        #expect(String(decoding: written(doc), as: UTF8.self) == String(decoding: try encoder(doc), as: UTF8.self))
    }

    @Test("the status document at start, nulls written out")
    func atStart() throws {
        let doc = studio(at: 100).status(at: Moment(100), quietExtras)
        #expect(written(doc) == (try encoder(doc)))
        #expect(BodyJSON.encode(doc) == (try encoder(doc)))
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
