/// A JSON reader (RFC 8259) straight into `JSON` (`JSON.parse`; JSONDecoder
/// into the generic enum tries every type in turn for every value), and the
/// check-only pass (`keep: false`) that `JSONBytes.parse` makes of the push on
/// every `POST /face`, in the same words. Strict on syntax: a trailing comma, which
/// JSONDecoder takes, is refused (nst/JSONTestSuite in
/// Tests/Vectors/JSONTestSuite). Where RFC 8259 leaves it open it takes
/// top-level scalars and the first of duplicate keys. Errors say what and
/// where, in words.
struct JSONParser {
    static let maxDepth = 512

    private let b: [UInt8]
    private var i = 0
    private var depth = 0
    /// False when the bytes are only checked (`JSONBytes.parse`): the same
    /// walk and the same errors, with no value, dictionary or string built.
    private let keep: Bool

    init(_ bytes: [UInt8], keep: Bool = true) {
        b = bytes
        self.keep = keep
    }

    /// A reader at `at` in bytes already checked, for one value's decoding (`JSONBytes`).
    init(_ bytes: [UInt8], at: Int) {
        b = bytes
        i = at
        keep = true
    }

    mutating func document() throws(JSONParseError) -> JSON {
        space()
        guard i < b.count else { throw fail("the body is empty") }
        let v = try value()
        space()
        guard i == b.count else { throw fail("unexpected \(shown()) after the value") }
        return v
    }

    private func fail(_ words: String) -> JSONParseError {
        JSONParseError(reason: "\(words) at byte \(i)")
    }

    private func shown() -> String {
        guard i < b.count else { return "the end" }
        let c = b[i]
        return c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
    }

    @inline(__always)
    private mutating func space() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    mutating func value() throws(JSONParseError) -> JSON {
        guard i < b.count else { throw fail("the body ends where a value should be") }
        switch b[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try word("true"); return .bool(true)
        case UInt8(ascii: "f"): try word("false"); return .bool(false)
        case UInt8(ascii: "n"): try word("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected \(shown()) where a value should be")
        }
    }

    /// A literal's bytes, from the source's (a String's UTF-8 view walked costs
    /// more than the rest of a push's check).
    private mutating func word(_ w: StaticString) throws(JSONParseError) {
        for k in 0..<w.utf8CodeUnitCount {
            guard i < b.count, b[i] == w.utf8Start[k] else { throw fail("expected \(w), found \(shown())") }
            i += 1
        }
    }

    private mutating func nest() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth)") }
    }

    private mutating func object() throws(JSONParseError) -> JSON {
        try nest()
        i += 1
        var o: [String: JSON] = [:]
        space()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(o) }
        while true {
            space()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a key, found \(shown())") }
            let k = try string()
            space()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':', found \(shown())") }
            i += 1
            space()
            let v = try value()
            if keep, o[k] == nil { o[k] = v }
            space()
            guard i < b.count else { throw fail("the body ends inside an object") }
            if b[i] == UInt8(ascii: ",") {
                try comma(before: "}")
                continue
            }
            if b[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(o) }
            throw fail("expected ',' or '}', found \(shown())")
        }
    }

    /// Steps over a comma between members; one that ends its object or array
    /// is refused at its own byte (RFC 8259 has no trailing commas).
    private mutating func comma(before close: Unicode.Scalar) throws(JSONParseError) {
        let at = i
        i += 1
        space()
        guard i < b.count, b[i] == UInt8(ascii: close) else { return }
        i = at
        throw fail("a trailing comma before '\(close)'")
    }

    private mutating func array() throws(JSONParseError) -> JSON {
        try nest()
        i += 1
        var a: [JSON] = []
        space()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(a) }
        while true {
            space()
            let v = try value()
            if keep { a.append(v) }
            space()
            guard i < b.count else { throw fail("the body ends inside an array") }
            if b[i] == UInt8(ascii: ",") {
                try comma(before: "]")
                continue
            }
            if b[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(a) }
            throw fail("expected ',' or ']', found \(shown())")
        }
    }

    private mutating func number() throws(JSONParseError) -> Double {
        let start = i
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count, isDigit(b[i]) else { throw fail("a number without digits") }
        if b[i] == UInt8(ascii: "0") { i += 1 } else { digits() }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard i < b.count, isDigit(b[i]) else { throw fail("a number with no digits after '.'") }
            digits()
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, isDigit(b[i]) else { throw fail("a number with no digits in its exponent") }
            digits()
        }
        let text = String(decoding: b[start..<i], as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            i = start
            throw fail("the number \(text) does not fit")
        }
        return d
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    private mutating func digits() { while i < b.count, isDigit(b[i]) { i += 1 } }

    mutating func string() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // The common case: no escapes, so the bytes are the string.
        while i < b.count, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\"), b[i] >= 0x20 { i += 1 }
        if !keep, i < b.count, b[i] == UInt8(ascii: "\"") {
            // Only checked: the whole text is UTF-8 already (`JSON.checkText`).
            i += 1
            return ""
        }
        if i < b.count, b[i] == UInt8(ascii: "\"") {
            guard let s = String(validating: b[start..<i], as: UTF8.self) else { throw fail("a string that is not UTF-8") }
            i += 1
            return s
        }
        var out = Array(b[start..<i])
        while true {
            guard i < b.count else { throw fail("the body ends inside a string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("a control character inside a string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { throw fail("the body ends inside an escape") }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                        throw fail("a lone high surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("a high surrogate without its low half") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw fail("a lone low surrogate")
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("an escape that is no character") }
                out += Array(String(Character(u)).utf8)
            default:
                i -= 1
                throw fail("an unknown escape \\\(shown())")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("a string that is not UTF-8") }
        return s
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= b.count else { throw fail("the body ends inside a \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw fail("a \\u escape with \(shown())")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }
}
