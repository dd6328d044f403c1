import Testing
@testable import BodyCore

@Suite("JSON in, values out: the lenient JSON value and the one encoder")
struct JSONTests {
    @Test("parses every kind of value")
    func parses() throws {
        #expect(try json(#"{"a":[1,true,null,"x",{"b":2.5}]}"#) == .object([
            "a": .array([.number(1), .bool(true), .null, .string("x"), .object(["b": .number(2.5)])]),
        ]))
    }

    @Test("a number is never a bool, and a bool never a number")
    func numbersAndBools() throws {
        #expect(try json("1") == .number(1))
        #expect(try json("0") == .number(0))
        #expect(try json("true") == .bool(true))
        #expect(try json("1").bool == nil)
        #expect(try json("false").number == nil)
    }

    /// Bad pushes and the exact words (JSONParser's): each said once, with the byte
    /// where it is, never a decoder's type names.
    static let malformedRows: [(String, String)] = [
        ("", "it is empty"),
        (" \r\n\t", "it is empty"),
        ("{", "expected a key, found the end at byte 1"),
        (#"{"a":}"#, "unexpected '}' where a value should be at byte 5"),
        ("nul", "expected null, found the end at byte 3"),
        ("[1 2]", "expected ',' or ']', found '2' at byte 3"),
        (#"{"onair":{"on":true}}{}"#, "unexpected '{' after the value at byte 21"),
        ("{'onair':1}", "expected a key, found ''' at byte 1"),
        ("1e999", "the number 1e999 does not fit at byte 0"),
        (#"{"onair":{"since":1e400}}"#, "the number 1e400 does not fit at byte 18"),
        (#"{"b":[1,{"a":01}]}"#, "expected ',' or '}', found '1' at byte 14"),
        (#"{"onair":{"asking":"\ud800"}}"#, "a lone high surrogate at byte 26"),
        ("\"\u{0}\"", "a control character inside a string at byte 1"),
        (#"{"onair":{"on":true,}}"#, "a trailing comma before '}' at byte 19"),
        (#"{"eyes":{"names":["a",]}}"#, "a trailing comma before ']' at byte 21"),
        (#"[""],"#, "unexpected ',' after the value at byte 4"),
    ]

    @Test("malformed bytes say what is wrong in plain words, once", arguments: malformedRows)
    func malformed(text: String, words: String) {
        #expect {
            _ = try JSON.parse(Array(text.utf8))
        } throws: { error in
            (error as? JSONParseError)?.reason == words
        }
    }

    @Test("bytes that are not UTF-8 are said so")
    func notText() {
        #expect(throws: JSONParseError(reason: "it is not UTF-8 text")) {
            _ = try JSON.parse([0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D])
        }
    }

    @Test("no reason names a decoder type or repeats \"not valid JSON\"", arguments: malformedRows.map(\.0))
    func plain(text: String) {
        do {
            _ = try JSON.parse(Array(text.utf8))
            Issue.record("parsed \(text)")
        } catch {
            for word in ["DecodingError", "Dictionary", "Any>", "typeMismatch", "not valid JSON", "Debug description"] {
                #expect(!error.reason.contains(word), "\(error.reason)")
            }
        }
    }

    @Test("a malformed number deep inside an object says its byte")
    func deepNumber() throws {
        #expect(throws: JSONParseError(reason: "a number without digits at byte 11")) {
            _ = try JSON.parse(Array(#"{"1":{"x":-}}"#.utf8))
        }
    }

    @Test("a wrong type counts as absent, for every accessor")
    func lenient() {
        let values: [JSON] = [.null, .bool(true), .number(1), .string("s"), .array([]), .object([:])]
        #expect(values.filter { $0.bool != nil } == [.bool(true)])
        #expect(values.filter { $0.number != nil } == [.number(1)])
        #expect(values.filter { $0.string != nil } == [.string("s")])
        #expect(values.filter { $0.array != nil } == [.array([])])
        #expect(values.filter { $0.object != nil } == [.object([:])])
        #expect(values.filter { $0["key"] != nil } == [])
        #expect(JSON.object(["key": .null])["key"] == .null)
    }

    @Test("a number that is not finite counts as absent")
    func nonFinite() {
        #expect(JSON.number(.infinity).number == nil)
        #expect(JSON.number(.nan).number == nil)
    }

    @Test("words: a non-empty string cut to its limit; empty or not a string is absent")
    func words() throws {
        #expect(try jsonBytes(#""studio camera""#).words(limit: 6) == "studio")
        #expect(try jsonBytes(#""dad""#).words(limit: 24) == "dad")
        #expect(try jsonBytes(#""""#).words(limit: 24) == nil)
        #expect(try jsonBytes("3").words(limit: 24) == nil)
        #expect(try jsonBytes(#""Dad’s tap 🎙️""#).words(limit: 11) == "Dad’s tap 🎙️")
    }

    @Test("BodyJSON encodes compactly with sorted keys and plain slashes")
    func encode() {
        #expect(String(decoding: BodyJSON.encode(["b": 1, "a": 2]), as: UTF8.self) == #"{"a":2,"b":1}"#)
        #expect(String(decoding: BodyJSON.encode(["url": "http://oriel.local:8787/api"]), as: UTF8.self)
            == #"{"url":"http://oriel.local:8787/api"}"#)
    }

    @Test("every error is {\"error\": words}")
    func error() throws {
        let bytes = BodyJSON.error("gpio: cannot request line \"GPIO17\" on gpiochip0: Device or resource busy")
        #expect(try JSON.parse(bytes) == .object([
            "error": .string("gpio: cannot request line \"GPIO17\" on gpiochip0: Device or resource busy"),
        ]))
    }

    @Test("a value that cannot be encoded gives an error body, not a crash")
    func unencodable() {
        #expect(String(decoding: BodyJSON.encode(JSON.number(.nan)), as: UTF8.self)
            == #"{"error":"the body could not encode its answer"}"#)
    }

    @Test("a JSON value survives encoding and parsing")
    func roundTrip() throws {
        let value = try json(#"{"items":[{"seq":1764500100001,"kind":"onair","on":false,"note":null}],"next":1764500100001}"#)
        #expect(try JSON.parse(BodyJSON.encode(value)) == value)
    }
}
