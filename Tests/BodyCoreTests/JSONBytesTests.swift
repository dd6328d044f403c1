import Foundation
import Testing
@testable import BodyCore
import BodyTestSupport

/// `POST /face` reads the push where it lies (`JSONBytes`): it must refuse
/// what `JSON.parse` refuses, in the same words, read the same value, and
/// leave the body as a push of that value written plainly (`JSONOut`) does.
@Suite("JSONBytes reads a push as JSON.parse does")
struct JSONBytesTests {
    /// Both readings of the bytes: the error's words, or the body each push
    /// left (and its error), the bytes' own and the parsed value's written plainly.
    static func bothWays(_ bytes: [UInt8], into body: Body = studio(at: 100)) -> (parsed: Result<Body, PushError>?, read: Result<Body, PushError>?, same: Bool) {
        let parsed: Result<JSON, JSONParseError> = Result { () throws(JSONParseError) in try JSON.parse(bytes) }
        let read: Result<JSONBytes, JSONParseError> = Result { () throws(JSONParseError) in try JSONBytes.parse(bytes) }
        switch (parsed, read) {
        case (.failure(let a), .failure(let b)):
            return (nil, nil, a == b)
        case (.success(let json), .success(let view)):
            var out = JSONOut()
            out.value(json)
            guard let plain = try? JSONBytes.parse(out.bytes) else { return (nil, nil, false) }
            var one = body, two = body
            let a = Result { () throws(PushError) in _ = try one.push(plain, at: Moment(101)); return one }
            let b = Result { () throws(PushError) in _ = try two.push(view, at: Moment(101)); return two }
            return (a, b, a == b && view.json == json)
        default:
            return (nil, nil, false)
        }
    }

    @Test("pushes, odd ones among them, leave the same body", arguments: [
        #"{"onair":{"on":true}}"#,
        #"{"onair":{"on":false}}"#,
        #" { "onair" : { "on" : true , "phase" : "LIVE" , "since" : "2026-11-04T17:50:00Z" , "by" : "dad" } } "#,
        #"{"onair":{"unread":"Oriel lost the mixer","by":"oriel"},"eyes":{"open":true,"red":true,"until":1764500200.5,"why":"Dad's tap","mode":"broadcast","names":["studio camera",3,"",null,"front door"],"killing":false}}"#,
        #"{"onair":{"on_air":true,"phase":"solo_play"},"eyes":{"answered":{"id":"k1","error":"no"}}}"#,
        #"{"onair":{"answered":{"id":"r1","error":null},"on":true}}"#,
        #"{"onair":{"on":true},"onair":{"on":false}}"#,
        #"{"onair":{"on":"yes","on_air":1,"phase":7},"eyes":[]}"#,
        #"{"\u006fnair":{"on":true}}"#,
        #"{"on\u0061ir":{"o\u006e":true,"by":"d\u00e9\ud83c\udf99"}}"#,
        #"{"x":{"onair":{"on":false}},"y":[{"onair":1},"}",["]"]],"onair":{"on":true,"since":"a \"quoted\" \\ time"}}"#,
        #"{"é":1,"onair":{"on":true,"by":"é ✓ 🎙"}}"#,
        #"{"eyes":{"until":-1.5e-3,"red":true,"names":[]},"onair":{}}"#,
        #"{"eyes":{"until":123456789012345678901234567890,"open":true,"names":["a"]}}"#,
        #"{"onair":{"on":true,"on":false,"phase":"Wrap\u0055p","phase":"live","by":"a","by":"b"}}"#,
        #"{"eyes":{"red":true},"onair":{"phase":"SOLO-PLAY","on_air":true,"on":"no"},"eyes":{"red":false}}"#,
        #"{}"#,
        "[1,2]", "1", "\"onair\"", "null",
        "", "   ", "{", #"{"onair":{"on":fals"#, #"{"onair":{"on":false,}}"#, #"{"onair":{"on":false,"since":1e999}}"#,
        "{\"a\":\"\u{1}\"}", #"{"a":"\ud800"}"#, "{\"a\":1} x",
    ])
    func sameBody(text: String) {
        #expect(Self.bothWays(Array(text.utf8)).same, "\(text)")
    }

    @Test("bytes that are not UTF-8 are refused in the same words")
    func notUTF8() {
        for bytes: [UInt8] in [[0x7B, 0xFF, 0x7D], Array(#"{"a":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
                               Array(#"{"a":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), [0x22, 0xE2, 0x9C, 0x22]] {
            #expect(Self.bothWays(bytes).same, "\(bytes)")
            #expect(throws: JSONParseError(reason: "it is not UTF-8 text")) { try JSONBytes.parse(bytes) }
        }
    }

    @Test("a body already pushed to moves the same way")
    func fromAState() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"live"},"eyes":{"open":true,"red":true,"names":["a"]}}"#, at: 100)
        _ = body.tap(.onair, at: 100.5)
        for text in [#"{"onair":{"on":false}}"#, #"{"eyes":{"red":false}}"#, #"{"onair":{"answered":{"id":"r1","error":"busy"}}}"#] {
            #expect(Self.bothWays(Array(text.utf8), into: body).same, "\(text)")
        }
    }

    @Test("members finds in one walk what the subscript finds key by key", arguments: [
        #"{"on":true,"phase":"live"}"#,
        #"{"phase":1,"on":false,"on":true,"\u006fn_air":2,"é":[{"on":3}],"x":{"phase":4}}"#,
        #"{}"#, "[1]", "\"on\"",
    ])
    func members(text: String) throws {
        let read = try JSONBytes.parse(Array(text.utf8))
        let keys: InlineArray<5, StaticString> = ["on", "phase", "on_air", "é", "absent"]
        let found = read.members(keys)
        for k in keys.indices {
            #expect(found[k]?.json == read[keys[k].description]?.json, "\(text) \(keys[k])")
        }
    }

    @Test("every file of nst/JSONTestSuite, alone and inside a push, the same both ways")
    func suite() throws {
        let directory = "Tests/Vectors/JSONTestSuite/test_parsing"
        let names = try FileManager.default.contentsOfDirectory(atPath: Repository.url(directory).path)
            .filter { $0.hasSuffix(".json") }
        #expect(names.count > 300)
        for name in names {
            let bytes = Array(try Data(contentsOf: Repository.url("\(directory)/\(name)")))
            #expect(Self.bothWays(bytes).same, "\(name)")
            let inside = Array(#"{"onair":"#.utf8) + bytes + Array("}".utf8)
            #expect(Self.bothWays(inside).same, "\(name) inside a push")
            let eyes = Array(#"{"eyes":{"names":"#.utf8) + bytes + Array(#","red":true}}"#.utf8)
            #expect(Self.bothWays(eyes).same, "\(name) as the eyes' names")
        }
    }
}
