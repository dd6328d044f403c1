/// A JSON value read where it lies in the bytes it came in: the push on
/// every `POST /face` is checked whole (`parse`, the same errors as
/// `JSON.parse`), and then each field the house reads is found by walking
/// the bytes, so no dictionary or array of values is built for a push
/// (that would be two dictionaries and a String a push). A string is made only
/// for a field read as one.
public struct JSONBytes: Sendable {
    private let b: [UInt8]
    /// The value's first byte.
    private let at: Int

    /// Checks the bytes as `JSON.parse` does, building nothing: refused with
    /// the same words, taken as the document's top value.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONBytes {
        try JSON.checkText(bytes)
        var parser = JSONParser(bytes, keep: false)
        _ = try parser.document()
        var first = 0
        while isSpace(bytes[first]) { first += 1 }
        return JSONBytes(b: bytes, at: first)
    }

    private init(b: [UInt8], at: Int) {
        self.b = b
        self.at = at
    }

    /// The value as `JSON.parse` would have made it (for a test, or a reader that needs it whole).
    public var json: JSON {
        var parser = JSONParser(b, at: at)
        return (try? parser.value()) ?? .null
    }

    // The walk: the bytes were checked, so it trusts the grammar.

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private func skipSpace(_ i: inout Int) {
        while i < b.count, Self.isSpace(b[i]) { i += 1 }
    }

    /// From a string's opening quote to just past its closing one.
    private func skipString(_ i: inout Int) {
        i += 1
        while b[i] != UInt8(ascii: "\"") { i += b[i] == UInt8(ascii: "\\") ? 2 : 1 }
        i += 1
    }

    /// From a value's first byte to just past its last.
    private func skipValue(_ i: inout Int) {
        switch b[i] {
        case UInt8(ascii: "\""):
            skipString(&i)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            repeat {
                switch b[i] {
                case UInt8(ascii: "\""): skipString(&i); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                i += 1
            } while depth > 0
        default:
            // A number or a word: up to the next delimiter.
            while i < b.count, !Self.isSpace(b[i]), b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "}"),
                  b[i] != UInt8(ascii: "]") { i += 1 }
        }
    }

    /// Whether the bytes from `start` up to `end` are exactly `key`'s.
    private func bytes(from start: Int, to end: Int, are key: StaticString) -> Bool {
        key.withUTF8Buffer { k in
            guard k.count == end - start else { return false }
            for j in 0..<k.count where b[start + j] != k[j] { return false }
            return true
        }
    }

    /// Whether the key whose opening quote is at `start` (closing quote at `end`) is `key`,
    /// by String equality as a dictionary's lookup: a plain ASCII key compares byte by byte.
    private func key(from start: Int, to end: Int, is key: String) -> Bool {
        // Byte by byte against the key's own bytes (a house key is plain ASCII):
        // the generic elementsEqual over a slice and a UTF8View cost more than the walk.
        var j = start + 1, same = true
        for c in key.utf8 {
            guard j < end, b[j] == c else { same = false; break }
            j += 1
        }
        if same && j == end { return true }
        var plain = true
        for k in (start + 1)..<end where b[k] >= 0x80 || b[k] == UInt8(ascii: "\\") { plain = false; break }
        if plain { return false }
        var parser = JSONParser(b, at: start)
        return (try? parser.string()) == key
    }
}

// A pushed value as the house's lenient rules read it: a field of the wrong
// type counts as absent.
extension JSONBytes {
    public var isObject: Bool { b[at] == UInt8(ascii: "{") }

    /// An object's member (the first, when a key repeats); nil when absent or not an object.
    public subscript(key: String) -> JSONBytes? {
        var value: JSONBytes?
        eachMember { keyStart, keyEnd, at in
            guard self.key(from: keyStart, to: keyEnd, is: key) else { return true }
            value = JSONBytes(b: b, at: at)
            return false
        }
        return value
    }

    /// The member under each key (the first, as the subscript), nil where absent:
    /// the push's bytes are walked once for all the keys, not once a key.
    public func members<let n: Int>(_ keys: InlineArray<n, StaticString>) -> InlineArray<n, JSONBytes?> {
        // Where each key's value starts (-1: absent), the values made once at the end:
        // an optional value looked at during the walk would be copied and let go
        // through its type's witnesses, key by key and member by member.
        var found = InlineArray<n, Int>(repeating: -1)
        eachMember { start, end, at in
            // A key with no escape and no byte above ASCII is its bytes (the common case);
            // any other is decoded and compared as a String, as the subscript does.
            var plain = true
            for k in (start + 1)..<end where b[k] >= 0x80 || b[k] == UInt8(ascii: "\\") { plain = false; break }
            for k in keys.indices where found[k] < 0 {
                let same = plain ? bytes(from: start + 1, to: end, are: keys[k])
                    : key(from: start, to: end, is: keys[k].description)
                if same { found[k] = at }
            }
            return true
        }
        return InlineArray { found[$0] < 0 ? nil : JSONBytes(b: b, at: found[$0]) }
    }

    /// The one walk of an object's members (the parse pass checked its shape):
    /// `visit` gets each key's quotes' places and where its value starts, and
    /// returns false to stop. Inlined: no closure called a member.
    @inline(__always)
    private func eachMember(_ visit: (_ keyStart: Int, _ keyEnd: Int, _ value: Int) -> Bool) {
        guard isObject else { return }
        var i = at + 1
        skipSpace(&i)
        guard b[i] != UInt8(ascii: "}") else { return }
        while true {
            let start = i
            skipString(&i)
            let end = i - 1
            skipSpace(&i)
            i += 1  // the colon
            skipSpace(&i)
            guard visit(start, end, i) else { return }
            skipValue(&i)
            skipSpace(&i)
            guard b[i] == UInt8(ascii: ",") else { return }
            i += 1
            skipSpace(&i)
        }
    }

    public var bool: Bool? {
        switch b[at] {
        case UInt8(ascii: "t"): true
        case UInt8(ascii: "f"): false
        default: nil
        }
    }

    /// A finite number.
    public var number: Double? {
        guard b[at] == UInt8(ascii: "-") || (b[at] >= 0x30 && b[at] <= 0x39) else { return nil }
        var end = at
        skipValue(&end)
        // As the parser read it (a short number is a String kept inline, no allocation).
        guard let d = Double(String(decoding: b[at..<end], as: UTF8.self)), d.isFinite else { return nil }
        return d
    }

    public var string: String? {
        guard b[at] == UInt8(ascii: "\"") else { return nil }
        // No escape: the bytes are the string, and `parse` found the whole text
        // UTF-8 already, so it is decoded without being checked again.
        var end = at + 1
        while b[end] != UInt8(ascii: "\""), b[end] != UInt8(ascii: "\\") { end += 1 }
        if b[end] == UInt8(ascii: "\"") { return String(decoding: b[(at + 1)..<end], as: UTF8.self) }
        var parser = JSONParser(b, at: at)
        return try? parser.string()
    }

    /// A non-empty string, cut to `limit` characters; empty counts as absent.
    public func words(limit: Int) -> String? {
        guard let s = string, !s.isEmpty else { return nil }
        return String(s.prefix(limit))
    }

    /// An array's elements, each made into a value or left out; nil when not an array.
    public func elements<T>(_ each: (JSONBytes) -> T?) -> [T]? {
        guard b[at] == UInt8(ascii: "[") else { return nil }
        var out: [T] = []
        var i = at + 1
        skipSpace(&i)
        guard b[i] != UInt8(ascii: "]") else { return out }
        while true {
            if let v = each(JSONBytes(b: b, at: i)) { out.append(v) }
            skipValue(&i)
            skipSpace(&i)
            guard b[i] == UInt8(ascii: ",") else { return out }
            i += 1
            skipSpace(&i)
        }
    }
}
