/// Compact JSON with sorted keys written straight into bytes, for the documents
/// the body answers on every request (`/status`, the push's answer, `/ears`).
/// JSONEncoder spent half of a `/status` answer's CPU in its generic machinery
/// (perf, issue 13); this writes the same bytes (Tests/BodyCoreTests/JSONOutTests
/// compares them with JSONEncoder's). A type's `write` puts its keys in byte
/// order by hand, as `.sortedKeys` would.
public protocol JSONWritable {
    func write(to out: inout JSONOut)
}

public struct JSONOut {
    public private(set) var bytes: [UInt8] = []
    /// A value was just written, so the next value or key takes a comma (no
    /// stack of "first"s: only an opening bracket or a key clears it).
    private var afterValue = false

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    /// Writes a document into the caller's buffer, emptied first and kept at
    /// its capacity: an answer written at every request reuses one buffer
    /// rather than allocating its own (issue 21). A buffer still shared (an
    /// answer not yet let go) is copied on the first write, as any array is.
    public static func write(into buffer: inout [UInt8], _ body: (inout JSONOut) -> Void) {
        var out = JSONOut(capacity: 0)
        swap(&out.bytes, &buffer)
        out.bytes.removeAll(keepingCapacity: true)
        body(&out)
        swap(&out.bytes, &buffer)
    }

    // MARK: containers

    public mutating func object(_ body: (inout JSONOut) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        afterValue = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        afterValue = true
    }

    public mutating func array(_ body: (inout JSONOut) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        afterValue = false
        body(&self)
        bytes.append(UInt8(ascii: "]"))
        afterValue = true
    }

    /// A key inside an object; the value written next belongs to it.
    public mutating func key(_ name: String) {
        separate()
        quoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterValue = false  // the value after a key takes no comma
    }

    /// A field name written in the source: the contract's names need no
    /// escape, so they are copied as they are, `,"name":` in one append.
    public mutating func field(_ name: StaticString) {
        let comma = afterValue
        afterValue = false
        name.withUTF8Buffer { append(comma ? UInt8(ascii: ",") : nil, quoted: $0, then: UInt8(ascii: ":")) }
    }

    // MARK: values

    public mutating func null() { separate(); literal("null") }

    public mutating func bool(_ b: Bool) {
        separate()
        literal(b ? "true" : "false")
    }

    public mutating func string(_ s: String) { separate(); quoted(s) }

    /// As JSONEncoder writes a Double: integral values without a fraction. A value
    /// that is not finite (the body never builds one) is written as null, never as bad JSON.
    public mutating func number(_ d: Double) {
        separate()
        if !d.isFinite {
            literal("null")
        } else if d == d.rounded(.towardZero), abs(d) < 9.007_199_254_740_992e15 {
            if d < 0 { bytes.append(UInt8(ascii: "-")) }
            digits(UInt64(abs(d)))
        } else {
            // The shortest digits that read back the same, as JSONEncoder
            // writes them (`description`'s), with no String made.
            ShortestDigits.append(d, to: &bytes)
        }
    }

    public mutating func number(_ n: UInt64) { separate(); digits(n) }

    public mutating func string(_ s: String?) { if let s { string(s) } else { null() } }
    public mutating func bool(_ b: Bool?) { if let b { bool(b) } else { null() } }
    public mutating func number(_ d: Double?) { if let d { number(d) } else { null() } }

    /// A `JSON` value; object keys in byte order, as `.sortedKeys`.
    public mutating func value(_ v: JSON) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let a): array { out in for e in a { out.value(e) } }
        case .object(let o):
            object { out in
                for k in o.keys.sorted(by: JSONOut.byteOrder) {
                    out.key(k)
                    out.value(o[k]!)
                }
            }
        }
    }

    public static func byteOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    // MARK: pieces

    /// Bytes written in the source (a literal word): copied, no array made.
    private mutating func literal(_ word: StaticString) {
        word.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `before`, then `text` in quotes, then `after`, as one append through a
    /// copy on the stack when short: each append checks the array's sharing
    /// and room, and the status document's sixty-odd fields and values were
    /// hundreds of appends, a quarter of a `/status` answer's CPU (perf, issue 21).
    private mutating func append(_ before: UInt8?, quoted text: UnsafeBufferPointer<UInt8>, then after: UInt8?) {
        let room = 64
        guard text.count <= room - 4 else {
            if let before { bytes.append(before) }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: text)
            bytes.append(UInt8(ascii: "\""))
            if let after { bytes.append(after) }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { piece in
            var n = 0
            if let before { piece[n] = before; n += 1 }
            piece[n] = UInt8(ascii: "\"")
            n += 1
            for b in text { piece[n] = b; n += 1 }
            piece[n] = UInt8(ascii: "\"")
            n += 1
            if let after { piece[n] = after; n += 1 }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: piece[..<n]))
        }
    }

    /// A whole number's decimal digits, written straight in (no String).
    private mutating func digits(_ n: UInt64) {
        guard n >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(n))
            return
        }
        var width = 1
        var rest = n / 10
        while rest > 0 { width += 1; rest /= 10 }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var v = n
        for i in stride(from: start + width - 1, through: start, by: -1) {
            bytes[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
        }
    }

    /// Every value and key begins here: a comma after a value, and what
    /// follows is a value until a bracket opens or a key is written.
    private mutating func separate() {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        afterValue = true
    }

    /// JSONEncoder's escaping with `.withoutEscapingSlashes`: quote, backslash,
    /// \b \f \n \r \t, other control characters as \u00XX; the rest as UTF-8.
    private mutating func quoted(_ s: String) {
        // Most strings need no escape: one copy, not a byte at a time.
        let copied = s.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            append(nil, quoted: utf8, then: nil)
            return true
        }
        if copied == true { return }
        bytes.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case 0x22: bytes += [0x5C, 0x22]
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x08: bytes += [0x5C, UInt8(ascii: "b")]
            case 0x0C: bytes += [0x5C, UInt8(ascii: "f")]
            case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
            case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
            case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 0xF)]]
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A Double's `description` written into bytes: `Double.write(to:)` hands
/// its digits from a buffer of its own to `_writeASCII`, so a time with a
/// fraction (`last_push`, every push) makes no String (issue 21). Should the
/// standard library stop doing so, `write` gets a String: the same bytes, one
/// allocation (JSONOutTests compares them with `description`).
struct ShortestDigits: TextOutputStream {
    var bytes: [UInt8]

    static func append(_ d: Double, to out: inout [UInt8]) {
        var sink = ShortestDigits(bytes: [])
        swap(&sink.bytes, &out)
        d.write(to: &sink)
        swap(&sink.bytes, &out)
    }

    mutating func write(_ s: String) { bytes.append(contentsOf: s.utf8) }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
}
