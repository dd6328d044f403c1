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

    @Test("malformed bytes give the parser's reason in words",
          arguments: ["{", "", #"{"a":}"#, "nul", "[1 2]"])
    func malformed(text: String) {
        #expect {
            _ = try JSON.parse(Array(text.utf8))
        } throws: { error in
            guard let e = error as? JSONParseError else { return false }
            return e.reason.hasPrefix("not valid JSON") && e.description == e.reason
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
    func words() {
        #expect(JSON.string("studio camera").words(limit: 6) == "studio")
        #expect(JSON.string("dad").words(limit: 24) == "dad")
        #expect(JSON.string("").words(limit: 24) == nil)
        #expect(JSON.number(3).words(limit: 24) == nil)
        #expect(JSON.string("Dad’s tap 🎙️").words(limit: 11) == "Dad’s tap 🎙️")
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
