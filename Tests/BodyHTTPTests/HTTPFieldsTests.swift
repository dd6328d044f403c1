import Testing
@testable import BodyHTTP

/// A request's header lines and query arguments as MHD hands them over, kept
/// in one string (`HTTPFields`).
@Suite("a request's header lines and query arguments")
struct HTTPFieldsTests {
    static func read(_ pairs: [(String, String?)], _ reading: HTTPFields.Reading) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            name.withCString { n in
                if let value { value.withCString { fields.add(n, $0, reading) } } else { fields.add(n, nil, reading) }
            }
        }
        return fields
    }

    @Test("headers: names lower-cased, a repeated one joined with a comma, in order")
    func headers() {
        let fields = Self.read([("Accept", "a"), ("X-Two", "1"), ("accept", "b"), ("Host", ""), ("ACCEPT", "c")], .header)
        #expect(fields == ["accept": "a, b, c", "x-two": "1", "host": ""])
        #expect(fields["accept"] == "a, b, c")
        #expect(fields["x-two"] == "1")
        #expect(fields["host"] == "")
        #expect(fields.count == 3)
        #expect(fields.map { String($0.name) } == ["accept", "x-two", "host"], "in the order first read")
    }

    @Test("a lookup is by the exact lower-cased name; a name that is absent, or only part of one, is nil")
    func lookup() {
        let fields = Self.read([("Authorization", "Bearer t0k"), ("Content-Length", "12")], .header)
        #expect(fields["authorization"] == "Bearer t0k")
        #expect(fields["Authorization"] == nil)
        #expect(fields["authorizatio"] == nil)
        #expect(fields["content-length"] == "12")
        #expect(fields["bearer t0k"] == nil, "a value is never taken for a name")
        #expect(fields["cookie"] == nil)
        #expect(HTTPFields()["host"] == nil)
    }

    @Test("query: names as sent, the first of a repeated name wins, no value is \"\"")
    func query() {
        let fields = Self.read([("wait", "30"), ("Wait", "5"), ("wait", "1"), ("flag", nil), ("after", "3")], .query)
        #expect(fields == ["wait": "30", "Wait": "5", "flag": "", "after": "3"])
        #expect(fields["wait"] == "30")
        #expect(fields["flag"] == "")
    }

    @Test("values as String(cString:) reads them: long ones whole, bad UTF-8 repaired, non-ASCII names lower-cased like Swift's")
    func bytes() {
        let long = String(repeating: "0123456789abcdef", count: 20) + "é" + String(repeating: "x", count: 13) + "ü€😀"
        let fields = Self.read([("X-Long", long), ("Ünïcode-NAME", "v")], .header)
        #expect(fields["x-long"].map(String.init) == long)
        #expect(fields["ünïcode-name"] == "v")
        var bad = HTTPFields()
        let raw: [CChar] = [0x61, -0x3F /* 0xC1 */, 0x62, -0x20 /* 0xE0 */, -0x60 /* 0xA0 */, 0]
        raw.withUnsafeBufferPointer { value in "x".withCString { bad.add($0, value.baseAddress!, .header) } }
        raw.withUnsafeBufferPointer { #expect(bad["x"].map(String.init) == String(cString: $0.baseAddress!)) }
    }

    @Test("a name or value filling its last piece (15 bytes) or one short of it, each ended where it ends")
    func pieceEnds() {
        let pairs: [(String, String?)] = [
            (String(repeating: "N", count: 14), String(repeating: "v", count: 14)),
            (String(repeating: "M", count: 15), String(repeating: "w", count: 15)),
            (String(repeating: "O", count: 16), String(repeating: "x", count: 30)),
            ("A", nil), ("B", ""), ("n" + String(repeating: "n", count: 13), "again"),
        ]
        let fields = Self.read(pairs, .header)
        #expect(fields.map { String($0.name) } == [String(repeating: "n", count: 14), String(repeating: "m", count: 15),
                                                  String(repeating: "o", count: 16), "a", "b"])
        #expect(fields[String(repeating: "n", count: 14)].map(String.init) == String(repeating: "v", count: 14) + ", again")
        #expect(fields[String(repeating: "m", count: 15)].map(String.init) == String(repeating: "w", count: 15))
        #expect(fields[String(repeating: "o", count: 16)].map(String.init) == String(repeating: "x", count: 30))
        #expect(fields["a"] == "" && fields["b"] == "")
        // Bad UTF-8 at the very end of a value, a header after it: repaired, and the next one intact.
        var bad = HTTPFields()
        let raw: [CChar] = Array(repeating: 0x61, count: 12) + [-0x20 /* 0xE0 */, -0x60 /* 0xA0 */, 0]
        raw.withUnsafeBufferPointer { value in "x".withCString { bad.add($0, value.baseAddress!, .header) } }
        "y".withCString { n in "z".withCString { bad.add(n, $0, .header) } }
        raw.withUnsafeBufferPointer { #expect(bad["x"].map(String.init) == String(cString: $0.baseAddress!)) }
        #expect(bad["y"] == "z" && bad.count == 2)
    }

    @Test("a value's bytes read in place: as sent when ASCII, repaired as a string reads them otherwise")
    func valueBytes() {
        var fields = Self.read([("Authorization", "Bearer t0k"), ("X-Word", "café")], .header)
        let raw: [CChar] = [0x61, -0x3F /* 0xC1 */, 0x62, 0]
        raw.withUnsafeBufferPointer { value in "X-Bad".withCString { fields.add($0, value.baseAddress!, .header) } }
        #expect(fields.withValue("authorization") { $0.map(Array.init) } == Array("Bearer t0k".utf8))
        #expect(fields.withValue("x-word") { $0.map(Array.init) } == Array("café".utf8))
        #expect(fields.withValue("x-bad") { $0.map(Array.init) } == Array("a\u{FFFD}b".utf8))
        #expect(fields.withValue("cookie") { $0 == nil })
        #expect(fields.withValue("Authorization") { $0 == nil }, "names are kept lower-cased")
    }

    @Test("emptied for the next request, the same value type: a copy kept elsewhere is untouched")
    func reused() {
        var fields = Self.read([("Host", "a")], .header)
        let kept = fields
        fields.removeAll()
        #expect(fields.isEmpty && fields["host"] == nil)
        "Cookie".withCString { n in "c=1".withCString { fields.add(n, $0, .header) } }
        #expect(fields == ["cookie": "c=1"])
        #expect(kept == ["host": "a"])
    }

    @Test("a request from dictionaries, as tests and the fuzz targets make one")
    func dictionaries() {
        let request = HTTPRequest(method: "GET", path: "/ears", query: ["after": "3"],
                                  headers: ["authorization": "Bearer t0k", "x-cordelia-doing": "checking"])
        #expect(request.query["after"] == "3")
        #expect(request.headers["authorization"] == "Bearer t0k")
        #expect(request.doing == "checking")
        #expect(request.query != ["after": "4"])
        #expect(request.query != ["after": "3", "wait": "1"])
        #expect(HTTPFields(["a": "1", "b": "2"]).description.count == #"["a": "1", "b": "2"]"#.count)
    }
}
