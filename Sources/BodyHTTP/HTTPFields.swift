import BodySystem

/// A request's header lines or query arguments: names and values, each name
/// once, in the order first read. `fields["name"]` is the value, or nil.
///
/// One array of bytes, not a dictionary of strings: every request reads two
/// of these, and the server reuses the array from one request to
/// the next, so reading a head allocates nothing. A pair is its name's and
/// its value's lengths (4 bytes each, little-endian), then the name and the
/// value: a lookup passes over a pair of another length without reading
/// it. Bytes, not a string: appending to a string without allocating takes
/// 15 bytes at a time, each piece checked as UTF-8, a third of reading a
/// head. What is kept is always valid UTF-8, as
/// `String(decoding:as:)` reads the bytes MHD hands over (bad UTF-8 becomes
/// U+FFFD). A NUL ends a name or a value, as it ends the C strings
/// libmicrohttpd hands over.
public struct HTTPFields: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    private var bytes: [UInt8] = []

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

    /// The value named exactly `name`. A value longer than 15 bytes is a
    /// string of its own (an allocation): a lookup made at every request
    /// reads the bytes instead (`withValue`).
    public subscript(name: String) -> Substring? {
        withValue(name) { value in value.map { String(decoding: $0, as: UTF8.self)[...] } }
    }

    /// `body` given the bytes of the value named exactly `name` (valid
    /// UTF-8), or nil; they are good only during the call.
    func withValue<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        bytes.withUnsafeBufferPointer { all in
            guard let found = Self.find(name, in: all) else { return body(nil) }
            return body(UnsafeBufferPointer(rebasing: all[found.value]))
        }
    }

    public var isEmpty: Bool { bytes.isEmpty }

    /// Empty, keeping the array's room for the next request's.
    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// A pair from Swift strings (each up to a NUL), kept as `reading` says.
    mutating func add(_ name: String, _ value: String, _ reading: Reading) {
        name.withCString { n in value.withCString { v in add(n, v, reading) } }
    }

    /// A pair as MHD read it (a nil value is an argument without `=`: "").
    mutating func add(_ name: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>?, _ reading: Reading) {
        let nameBytes = UnsafeRawBufferPointer(start: name, count: Self.length(name))
        let valueBytes = UnsafeRawBufferPointer(start: value, count: value.map(Self.length) ?? 0)
        guard Self.isASCII(nameBytes), Self.isASCII(valueBytes) else { return addRepaired(name, value, reading) }
        // Every header the body reads: the pair made on the stack, looked for,
        // and appended in one piece (three appends and two stores
        // would be most of a header's cost).
        let (n, v) = (nameBytes.count, valueBytes.count)
        let found = withUnsafeTemporaryAllocation(byteCount: 8 + n + v, alignment: 4) { pair -> (pair: Int, value: Range<Int>)? in
            pair.storeBytes(of: UInt32(n).littleEndian, toByteOffset: 0, as: UInt32.self)
            pair.storeBytes(of: UInt32(v).littleEndian, toByteOffset: 4, as: UInt32.self)
            UnsafeMutableRawBufferPointer(rebasing: pair[8..<(8 + n)]).copyMemory(from: nameBytes)
            UnsafeMutableRawBufferPointer(rebasing: pair[(8 + n)...]).copyMemory(from: valueBytes)
            if reading == .header {
                for i in 8..<(8 + n) where pair[i] >= 0x41 && pair[i] <= 0x5A { pair[i] |= 0x20 }
            }
            let name = UnsafeBufferPointer(rebasing: UnsafeRawBufferPointer(pair).bindMemory(to: UInt8.self)[8..<(8 + n)])
            let found = bytes.withUnsafeBufferPointer { all in Self.find(name, in: all) }
            if found == nil { bytes.append(contentsOf: UnsafeRawBufferPointer(pair)) }
            return found
        }
        guard let found else { return }
        joinRepeated(found, value, reading)
    }

    /// The same for a name or value that is not ASCII: read as a Swift string would read it.
    private mutating func addRepaired(_ name: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>?, _ reading: Reading) {
        let start = bytes.count
        withUnsafeBytes(of: UInt64(0)) { bytes.append(contentsOf: $0) }  // the lengths, written below
        let nameBytes = UnsafeRawBufferPointer(start: name, count: Self.length(name))
        if Self.isASCII(nameBytes) {
            bytes.append(contentsOf: nameBytes)
            if reading == .header {
                // Lower-cased in place: an append a byte was a check of the array's room and sharing each.
                bytes.withUnsafeMutableBufferPointer { all in
                    for i in (start + 8)..<all.count where all[i] >= 0x41 && all[i] <= 0x5A { all[i] |= 0x20 }
                }
            }
        } else {
            // Not ASCII (never a name looked up): read and lower-cased as a Swift string would be.
            let text = String(decoding: nameBytes, as: UTF8.self)
            bytes.append(contentsOf: (reading == .header ? text.lowercased() : text).utf8)
        }
        // The name just written, compared in place with those before it.
        let found = bytes.withUnsafeBufferPointer { all in
            Self.find(UnsafeBufferPointer(rebasing: all[(start + 8)...]), in: UnsafeBufferPointer(rebasing: all[..<start]))
        }
        guard let found else {
            let nameEnd = bytes.count
            Self.append(value, to: &bytes)
            Self.store(nameEnd - start - 8, at: start, in: &bytes)
            Self.store(bytes.count - nameEnd, at: start + 4, in: &bytes)
            return
        }
        bytes.removeSubrange(start...)
        joinRepeated(found, value, reading)
    }

    /// A name already here: a header's value is joined to the first's, a query argument's dropped.
    private mutating func joinRepeated(_ found: (pair: Int, value: Range<Int>), _ value: UnsafePointer<CChar>?, _ reading: Reading) {
        guard reading == .header else { return }
        // A repeated header, which is rare: joined where the first one's value ends.
        var joined: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: " ")]
        Self.append(value, to: &joined)
        bytes.insert(contentsOf: joined, at: found.value.upperBound)
        Self.store(found.value.count + joined.count, at: found.pair + 4, in: &bytes)
    }

    /// A value's bytes as `String(decoding:as:)` reads them: copied as they
    /// are when ASCII (every header the body reads), else repaired.
    private static func append(_ value: UnsafePointer<CChar>?, to bytes: inout [UInt8]) {
        guard let value else { return }
        let raw = UnsafeRawBufferPointer(start: value, count: length(value))
        if isASCII(raw) {
            bytes.append(contentsOf: raw)
        } else {
            bytes.append(contentsOf: String(decoding: raw, as: UTF8.self).utf8)
        }
    }

    private static func isASCII(_ raw: UnsafeRawBufferPointer) -> Bool {
        var any: UInt8 = 0
        for b in raw { any |= b }
        return any < 0x80
    }

    /// A length, 4 bytes little-endian (a longer name or value than 4 GiB stops the program).
    private static func store(_ count: Int, at offset: Int, in bytes: inout [UInt8]) {
        let n = UInt32(count).littleEndian
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: n, toByteOffset: offset, as: UInt32.self) }
    }

    private static func load(_ all: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        Int(UInt32(littleEndian: UnsafeRawBufferPointer(all).loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    /// The pair named `name` in `all`: where it begins, and where its value is.
    private static func find(_ name: String, in all: UnsafeBufferPointer<UInt8>) -> (pair: Int, value: Range<Int>)? {
        if let found = name.utf8.withContiguousStorageIfAvailable({ find($0, in: all) }) { return found }
        var name = name
        return name.withUTF8 { find($0, in: all) }
    }

    /// The same for `name`'s bytes: only a name of the same length is
    /// compared, a byte at a time (names are short; the generic
    /// `elementsEqual` was a quarter of a lookup).
    private static func find(_ name: UnsafeBufferPointer<UInt8>, in all: UnsafeBufferPointer<UInt8>) -> (pair: Int, value: Range<Int>)? {
        let count = name.count
        var i = 0
        while i + 8 <= all.count {
            let nameStart = i + 8
            let valueStart = nameStart + load(all, at: i)
            let valueEnd = valueStart + load(all, at: i + 4)
            if valueStart - nameStart == count {
                var k = 0
                while k < count, all[nameStart + k] == name[k] { k += 1 }
                if k == count { return (i, valueStart..<valueEnd) }
            }
            i = valueEnd
        }
        return nil
    }

    private static func length(_ cString: UnsafePointer<CChar>) -> Int {
        ByteSearch.length(ofCString: cString)
    }

    // MARK: the pairs, in order

    public struct Iterator: IteratorProtocol {
        let bytes: [UInt8]
        var offset = 0

        public mutating func next() -> (name: Substring, value: Substring)? {
            guard offset + 8 <= bytes.count else { return nil }
            let (nameStart, valueStart, valueEnd) = bytes.withUnsafeBufferPointer { all in
                let valueStart = offset + 8 + HTTPFields.load(all, at: offset)
                return (offset + 8, valueStart, valueStart + HTTPFields.load(all, at: offset + 4))
            }
            offset = valueEnd
            return (String(decoding: bytes[nameStart..<valueStart], as: UTF8.self)[...],
                    String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)[...])
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    /// The same pairs, in any order.
    public static func == (a: HTTPFields, b: HTTPFields) -> Bool {
        a.count == b.count && a.allSatisfy { b[String($0.name)] == $0.value }
    }

    /// How many pairs.
    public var count: Int {
        bytes.withUnsafeBufferPointer { all in
            var (n, i) = (0, 0)
            while i + 8 <= all.count { i += 8 + Self.load(all, at: i) + Self.load(all, at: i + 4); n += 1 }
            return n
        }
    }

    public var description: String {
        isEmpty ? "[:]" : "[" + map { "\(String($0.name).debugDescription): \(String($0.value).debugDescription)" }
            .joined(separator: ", ") + "]"
    }
}
