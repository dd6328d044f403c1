import FoundationEssentials
import Testing
@testable import BodyCore

/// The push's reader must take what JSONDecoder took and refuse what it
/// refused, but for trailing commas: JSONDecoder takes them, RFC 8259 does not.
private func decoder(_ text: String) -> JSON? {
    try? JSONDecoder().decode(JSON.self, from: Data(text.utf8))
}

@Suite("JSONParser reads what JSONDecoder read, without its trailing commas")
struct JSONParserTests {
    @Test("valid documents give the same value", arguments: [
        #"{"onair":{"on":true}}"#,
        #" {"eyes":{"open":true,"red":false,"why":"Dad's tap","until":1796131442.5,"names":["a","b"]}} "#,
        #"{"a":[1,-0.5,2e3,1E-2,0,-0,true,false,null,"",{}],"b":{"c":[[],[{}]]}}"#,
        #"{"s":"quote \" back \\ slash \/ \b\f\n\r\t \u00e9 \u2713 \ud83c\udf99 raw é ✓"}"#,
        #"{"dup":1,"dup":2}"#,
        "1", "\"text\"", "null", "[ 1 , 2 ]\n", "123456789012345678",
    ])
    func same(text: String) throws {
        #expect(try JSON.parse(Array(text.utf8)) == decoder(text))
    }

    @Test("malformed documents are refused in words", arguments: [
        "", " ", "{", "}", "[,]", "[1,,]", #"{,}"#, #"{"a" 1}"#, #"{a:1}"#, "01", "1.", ".5", "-", "1e", "+1",
        "tru", "nulll", "[1 2]", #""\x""#, #""\u12""#, #""\ud800""#, #""\udc00x""#, "\"a\u{1}b\"",
        "\"unterminated", "{\"a\":1} x", "1e999", "[\"\\",
    ])
    func refused(text: String) {
        #expect(decoder(text) == nil, "JSONDecoder took \(text)")
        #expect {
            _ = try JSON.parse(Array(text.utf8))
        } throws: { error in
            // Words of their own: the caller says "… is not valid JSON: " before them.
            guard let reason = (error as? JSONParseError)?.reason else { return false }
            return !reason.isEmpty && !reason.hasPrefix("not valid JSON")
        }
    }

    @Test("a trailing comma JSONDecoder took is refused, at the comma's byte", arguments: [
        ("[1,]", "a trailing comma before ']' at byte 2"),
        (#"{"a":1,}"#, "a trailing comma before '}' at byte 6"),
        ("[ 1 , ]", "a trailing comma before ']' at byte 4"),
        ("{\"a\":1,\n}", "a trailing comma before '}' at byte 6"),
        (#"{"a":[1,],"b":2}"#, "a trailing comma before ']' at byte 7"),
        (#"{"onair":{"on":true,},"eyes":{}}"#, "a trailing comma before '}' at byte 19"),
    ])
    func trailingComma(text: String, words: String) {
        #expect(decoder(text) != nil, "JSONDecoder refused \(text) too")
        #expect(throws: JSONParseError(reason: words)) { try JSON.parse(Array(text.utf8)) }
    }

    @Test("bytes that are not UTF-8 are refused")
    func notUTF8() {
        #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSON.parse(Array(#"{"a":"\"#.utf8) + [0xC3] + Array(#""}"#.utf8)) }
    }

    @Test("nesting deeper than 512 is refused, not a stack overflow")
    func deep() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSON.parse(Array(text.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? JSON.parse(Array(fine.utf8))) != nil)
    }
}
