/// Compact JSON with sorted keys written straight into bytes, for the documents
/// the body answers on every request (`/status`, the push's answer, `/ears`).
/// JSONEncoder spends half of a `/status` answer's CPU in its generic machinery;
/// this writes the same bytes (Tests/BodyCoreTests/JSONOutTests
/// compares them with JSONEncoder's). A type's `write` puts its keys in byte
/// order by hand, as `.sortedKeys` would.
public protocol JSONWritable {
    func write(to out: inout JSONOut)
}

public struct JSONOut {
    /// Everything written, once a whole value is (`pending` is empty then).
    public private(set) var bytes: [UInt8] = []
    /// A value was just written, so the next value or key takes a comma (no
    /// stack of "first"s: only an opening bracket or a key clears it).
    private var afterValue = false
    /// The bytes not yet in `bytes`: each piece (a comma, a name, a word) is
    /// written here, in place, and they go into `bytes` with one append a
    /// kilobyte and at the end of each whole value (a status document, ~930
    /// bytes, is then one append, not four). An append to the
    /// array checks its sharing and room through the runtime; an append a piece
    /// would be hundreds of them a status document, a quarter of a `/status` answer's CPU.
    private var pending = InlineArray<1024, UInt8>(repeating: 0)
    private var pendingCount = 0
    /// Objects and arrays open: at 0 a value is whole, and `pending` goes into `bytes`.
    private var depth = 0

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    /// Writes a document into the caller's buffer, emptied first and kept at
    /// its capacity: an answer written at every request reuses one buffer
    /// rather than allocating its own. A buffer still shared (an
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
        put(UInt8(ascii: "{"))
        afterValue = false
        depth += 1
        body(&self)
        depth -= 1
        put(UInt8(ascii: "}"))
        afterValue = true
        settle()
    }

    public mutating func array(_ body: (inout JSONOut) -> Void) {
        separate()
        put(UInt8(ascii: "["))
        afterValue = false
        depth += 1
        body(&self)
        depth -= 1
        put(UInt8(ascii: "]"))
        afterValue = true
        settle()
    }

    /// A key inside an object; the value written next belongs to it.
    public mutating func key(_ name: String) {
        separate()
        quoted(name)
        put(UInt8(ascii: ":"))
        afterValue = false  // the value after a key takes no comma
    }

    /// A field name written in the source: the contract's names need no
    /// escape, so they are copied as they are. Inlined: the name's length is
    /// then known where it is written, and its copy is a few moves, not a
    /// call to `memmove` (a status document has dozens).
    @inline(__always)
    public mutating func field(_ name: StaticString) {
        separate()
        // `"name":` copied in with one check for room, not four (a status document has dozens).
        let count = name.utf8CodeUnitCount + 3
        if count > pending.count - pendingCount { flush() }
        guard count <= pending.count else {
            put(UInt8(ascii: "\""))
            name.withUTF8Buffer { put($0) }
            put(UInt8(ascii: "\""))
            put(UInt8(ascii: ":"))
            afterValue = false
            return
        }
        let at = pendingCount
        withUnsafeMutableBytes(of: &pending) { room in
            room[at] = UInt8(ascii: "\"")
            name.withUTF8Buffer { room.baseAddress!.advanced(by: at + 1).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            room[at + count - 2] = UInt8(ascii: "\"")
            room[at + count - 1] = UInt8(ascii: ":")
        }
        pendingCount = at + count
        afterValue = false
    }

    // MARK: values

    /// A whole value written in the source as its JSON bytes (compact, keys in
    /// byte order, as the writer would make it): copied in as it is.
    @inline(__always)
    public mutating func raw(_ json: StaticString) {
        separate()
        if json.utf8CodeUnitCount <= pending.count {
            literal(json)
        } else {
            flush()
            json.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        settle()
    }

    /// A whole value this writer wrote before, as its bytes (the page's
    /// status document): copied in as it is.
    public mutating func raw(_ json: [UInt8]) {
        separate()
        json.withUnsafeBufferPointer { put($0) }
        settle()
    }

    @inline(__always)
    public mutating func null() { separate(); literal("null"); settle() }

    @inline(__always)
    public mutating func bool(_ b: Bool) {
        separate()
        if b { literal("true") } else { literal("false") }  // each a constant: its copy is inlined
        settle()
    }

    public mutating func string(_ s: String) { separate(); quoted(s); settle() }

    /// A word written in the source, quoted: the contract's value words, which
    /// need no escape, copied in without a String or a check.
    public mutating func word(_ w: StaticString) {
        separate()
        put(UInt8(ascii: "\""))
        w.withUTF8Buffer { put($0) }
        put(UInt8(ascii: "\""))
        settle()
    }

    public mutating func word(_ w: StaticString?) { if let w { word(w) } else { null() } }

    /// As JSONEncoder writes a Double: integral values without a fraction. A value
    /// that is not finite (the body never builds one) is written as null, never as bad JSON.
    public mutating func number(_ d: Double) {
        separate()
        if !d.isFinite {
            literal("null")
        } else if d == d.rounded(.towardZero), abs(d) < 9.007_199_254_740_992e15 {
            if d < 0 { put(UInt8(ascii: "-")) }
            digits(UInt64(abs(d)))
        } else {
            // The shortest digits that read back the same, as JSONEncoder
            // writes them (`description`'s), with no String made.
            flush()
            ShortestDigits.append(d, to: &bytes)
        }
        settle()
    }

    public mutating func number(_ n: UInt64) { separate(); digits(n); settle() }

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

    /// Bytes written in the source (a literal word, at most a few bytes):
    /// copied, no array made, with one check for room.
    @inline(__always)
    private mutating func literal(_ word: StaticString) {
        let count = word.utf8CodeUnitCount
        if count > pending.count - pendingCount { flush() }
        let at = pendingCount
        withUnsafeMutableBytes(of: &pending) { room in
            word.withUTF8Buffer { room.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        pendingCount = at + count
    }

    /// A whole number's decimal digits, written straight in (no String).
    private mutating func digits(_ n: UInt64) {
        guard n >= 10 else {
            put(UInt8(ascii: "0") + UInt8(n))
            return
        }
        var width = 1
        var rest = n / 10
        while rest > 0 { width += 1; rest /= 10 }
        if width > pending.count - pendingCount { flush() }  // at most 20 digits: they fit then
        var v = n
        for i in stride(from: pendingCount + width - 1, through: pendingCount, by: -1) {
            pending[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
        }
        pendingCount += width
    }

    /// Every value and key begins here: a comma after a value, and what
    /// follows is a value until a bracket opens or a key is written.
    @inline(__always)
    private mutating func separate() {
        if afterValue { put(UInt8(ascii: ",")) }
        afterValue = true
    }

    /// A value ended: a whole one goes into `bytes` with what is pending.
    @inline(__always)
    private mutating func settle() {
        if depth == 0 { flush() }
    }

    @inline(__always)
    private mutating func put(_ b: UInt8) {
        if pendingCount == pending.count { flush() }
        pending[pendingCount] = b
        pendingCount += 1
    }

    private mutating func put(_ piece: UnsafeBufferPointer<UInt8>) {
        let at = pendingCount
        guard piece.count <= pending.count - at else {
            flush()
            if piece.count > pending.count { bytes.append(contentsOf: piece) } else { put(piece) }
            return
        }
        if let from = piece.baseAddress {
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.advanced(by: at).copyMemory(from: from, byteCount: piece.count) }
        }
        pendingCount = at + piece.count
    }

    /// What is pending into `bytes`, with one append (out of line: `put` stays small).
    @inline(never)
    private mutating func flush() {
        guard pendingCount > 0 else { return }
        let count = pendingCount
        // `bytes` is taken out to be written while `pending` is read: a copy of `pending` was its whole kilobyte a flush.
        var out: [UInt8] = []
        swap(&out, &bytes)
        withUnsafeMutableBytes(of: &pending) { raw in
            out.append(contentsOf: UnsafeBufferPointer(start: raw.bindMemory(to: UInt8.self).baseAddress, count: count))
        }
        swap(&out, &bytes)
        pendingCount = 0
    }

    /// JSONEncoder's escaping with `.withoutEscapingSlashes`: quote, backslash,
    /// \b \f \n \r \t, other control characters as \u00XX; the rest as UTF-8.
    private mutating func quoted(_ s: String) {
        // Most strings need no escape: one copy between the quotes, not a byte at a time.
        let copied = s.utf8.withContiguousStorageIfAvailable { utf8 in
            for c in utf8 where c < 0x20 || c == 0x22 || c == 0x5C { return false }
            let count = utf8.count + 2
            if count > pending.count - pendingCount { flush() }
            guard count <= pending.count, let from = utf8.baseAddress else {
                put(UInt8(ascii: "\"")); put(utf8); put(UInt8(ascii: "\""))
                return true
            }
            let at = pendingCount
            withUnsafeMutableBytes(of: &pending) { room in
                room[at] = UInt8(ascii: "\"")
                room.baseAddress!.advanced(by: at + 1).copyMemory(from: from, byteCount: count - 2)
                room[at + count - 1] = UInt8(ascii: "\"")
            }
            pendingCount = at + count
            return true
        }
        if copied == true { return }
        put(UInt8(ascii: "\""))
        let hex: StaticString = "0123456789abcdef"
        for c in s.utf8 {
            switch c {
            case 0x22: put(0x5C); put(0x22)
            case 0x5C: put(0x5C); put(0x5C)
            case 0x08: put(0x5C); put(UInt8(ascii: "b"))
            case 0x0C: put(0x5C); put(UInt8(ascii: "f"))
            case 0x0A: put(0x5C); put(UInt8(ascii: "n"))
            case 0x0D: put(0x5C); put(UInt8(ascii: "r"))
            case 0x09: put(0x5C); put(UInt8(ascii: "t"))
            case 0x00..<0x20:
                put(0x5C); put(UInt8(ascii: "u")); put(0x30); put(0x30)
                put(hex.utf8Start[Int(c >> 4)]); put(hex.utf8Start[Int(c & 0xF)])
            default: put(c)
            }
        }
        put(UInt8(ascii: "\""))
    }
}

/// A Double's `description` written into bytes: `Double.write(to:)` hands
/// its digits from a buffer of its own to `_writeASCII`, so a time with a
/// fraction (`last_push`, every push) makes no String. Should the
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
