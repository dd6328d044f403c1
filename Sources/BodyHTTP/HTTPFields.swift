import BodySystem

/// A request's header lines or query arguments: names and values, each name
/// once, in the order first read. `fields["name"]` is the value, a view into
/// the one string they are kept in, or nil.
///
/// One string (`name NUL value NUL` a pair), not a dictionary of strings:
/// every request reads two of these (issue 21), and the server reuses the
/// string from one request to the next, so reading a head allocates nothing;
/// a lookup is a scan of a few hundred bytes. A NUL ends a name or a value,
/// as it ends the C strings libmicrohttpd hands over.
public struct HTTPFields: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    private var text = ""

    /// How a line read from MHD is kept.
    enum Reading {
        /// A header: its name lower-cased, a repeated one's value joined to the first's with ", ".
        case header
        /// A query argument: its name as sent; the first of a repeated name wins.
        case query
    }

    public init() {}

    /// The pairs as given, names as they are (a test's request, already lower-cased).
    public init(_ dictionary: [String: String]) {
        for (name, value) in dictionary { add(name, value, .query) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value, .query) }
    }

    /// The value named exactly `name`.
    public subscript(name: String) -> Substring? {
        guard let range = find(name) else { return nil }
        let utf8 = text.utf8
        return text[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)]
    }

    public var isEmpty: Bool { text.isEmpty }

    /// Empty, keeping the string's room for the next request's.
    mutating func removeAll() { text.removeAll(keepingCapacity: true) }

    /// A pair from Swift strings (each up to a NUL), kept as `reading` says.
    mutating func add(_ name: String, _ value: String, _ reading: Reading) {
        name.withCString { n in value.withCString { v in add(n, v, reading) } }
    }

    /// A pair as MHD read it (a nil value is an argument without `=`: "").
    mutating func add(_ name: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>?, _ reading: Reading) {
        let start = text.utf8.count
        let nameBytes = UnsafeRawBufferPointer(start: name, count: Self.length(name))
        if reading == .header && nameBytes.contains(where: { $0 >= 0x80 }) {
            // Not ASCII (never a name looked up): lower-cased as a Swift string would be.
            text += String(decoding: nameBytes, as: UTF8.self).lowercased() + "\0"
        } else {
            Self.append(nameBytes, to: &text, lowercased: reading == .header, nul: true)
        }
        // The name just written (without its NUL), compared in place with those before it.
        let end = text.utf8.count - 1
        let found = text.utf8.withContiguousStorageIfAvailable {
            find(UnsafeBufferPointer(rebasing: $0[start..<end]), before: start)
        } ?? find(text.utf8.dropFirst(start).dropLast(), before: start)
        guard let found else {
            let bytes = value.map { UnsafeRawBufferPointer(start: $0, count: Self.length($0)) }
            Self.append(bytes ?? UnsafeRawBufferPointer(start: nil, count: 0), to: &text, lowercased: false, nul: true)
            return
        }
        text.removeSubrange(text.utf8.index(text.utf8.startIndex, offsetBy: start)...)
        guard reading == .header else { return }
        // A repeated header, which is rare: joined where the first one's value ends.
        let joined = ", " + (value.map { String(cString: $0) } ?? "")
        text.insert(contentsOf: joined, at: text.utf8.index(text.utf8.startIndex, offsetBy: found.upperBound))
    }

    /// Where the value of the pair named `name` is in `text` (UTF-8 offsets),
    /// looking only at the pairs that begin before `limit`.
    private func find(_ name: some Collection<UInt8>, before limit: Int = .max) -> Range<Int>? {
        // The bytes read in place (a copy of `text` to call `withUTF8` on was a
        // retain and release a lookup), and only a name of the same length compared.
        let count = name.count
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? in
            var i = 0
            while i < Swift.min(bytes.count, limit) {
                let nameEnd = Self.nul(bytes, from: i)
                let valueEnd = Self.nul(bytes, from: nameEnd + 1)
                if nameEnd - i == count, UnsafeBufferPointer(rebasing: bytes[i..<nameEnd]).elementsEqual(name) {
                    return nameEnd + 1..<valueEnd
                }
                i = valueEnd + 1
            }
            return nil
        }
        if let found = text.utf8.withContiguousStorageIfAvailable(scan) { return found }
        var text = text
        return text.withUTF8(scan)
    }

    private func find(_ name: String) -> Range<Int>? {
        if let found = name.utf8.withContiguousStorageIfAvailable({ find($0) }) { return found }
        var name = name
        return name.withUTF8 { find($0) }
    }

    private static func length(_ cString: UnsafePointer<CChar>) -> Int {
        var n = 0
        while cString[n] != 0 { n += 1 }
        return n
    }

    /// The next NUL from `start`, or the end (`start` when past it): found by
    /// `memchr`, as a token's forty bytes are passed over at every lookup.
    private static func nul(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        ByteSearch.first(0, in: UnsafeRawBufferPointer(bytes), from: start) ?? Swift.max(start, bytes.count)
    }

    /// Appends `bytes` to `text` as `String(decoding:as:)` would read them
    /// (bad UTF-8 becomes U+FFFD), ASCII letters lower-cased if asked, in
    /// pieces of at most 15 bytes: each piece is a small string, kept inline,
    /// so appending to a string with room allocates nothing. A piece ends
    /// before a byte that begins a character, so none is cut in two. With
    /// `nul`, a NUL follows, in the last piece when it has room (one append
    /// fewer: a NUL cannot continue a character, so it reads the same).
    private static func append(_ bytes: UnsafeRawBufferPointer, to text: inout String, lowercased: Bool, nul: Bool) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15) { piece in
            var start = 0
            var ended = !nul
            while start < bytes.count {
                var end = Swift.min(start + 15, bytes.count)
                var cut = end
                while cut > start, cut < bytes.count, bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
                if cut > start { end = cut }
                for i in start..<end {
                    let b = bytes[i]
                    piece[i - start] = lowercased && b >= 0x41 && b <= 0x5A ? b | 0x20 : b
                }
                var count = end - start
                if !ended, end == bytes.count, count < 15 {
                    piece[count] = 0
                    count += 1
                    ended = true
                }
                text += String(decoding: UnsafeBufferPointer(rebasing: piece[0..<count]), as: UTF8.self)
                start = end
            }
            if !ended { text += "\0" }
        }
    }

    // MARK: the pairs, in order

    public struct Iterator: IteratorProtocol {
        let text: String
        var offset = 0

        public mutating func next() -> (name: Substring, value: Substring)? {
            let utf8 = text.utf8
            guard offset < utf8.count else { return nil }
            let nameStart = utf8.index(utf8.startIndex, offsetBy: offset)
            let nameEnd = utf8[nameStart...].firstIndex(of: 0)!
            let valueStart = utf8.index(after: nameEnd)
            let valueEnd = utf8[valueStart...].firstIndex(of: 0)!
            offset = utf8.distance(from: utf8.startIndex, to: valueEnd) + 1
            return (text[nameStart..<nameEnd], text[valueStart..<valueEnd])
        }
    }

    public func makeIterator() -> Iterator { Iterator(text: text) }

    /// The same pairs, in any order.
    public static func == (a: HTTPFields, b: HTTPFields) -> Bool {
        a.count == b.count && a.allSatisfy { b[String($0.name)] == $0.value }
    }

    /// How many pairs.
    public var count: Int { text.utf8.reduce(0) { $1 == 0 ? $0 + 1 : $0 } / 2 }

    public var description: String {
        isEmpty ? "[:]" : "[" + map { "\(String($0.name).debugDescription): \(String($0.value).debugDescription)" }
            .joined(separator: ", ") + "]"
    }
}
