internal import FoundationEssentials

/// A parsed JSON value: what the tests, the demo hub and a request's fields
/// are made of. A push is not read through it but where it lies (`JSONBytes`).
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Parses bytes (by `JSONParser`: RFC 8259, no trailing commas); the error says what is
    /// wrong in plain words, once, with the byte where it is, and never in a
    /// decoder's type names.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        try checkText(bytes)
        var parser = JSONParser(bytes)
        return try parser.document()
    }

    /// What is refused before the grammar: nothing but spaces, or bytes that are not UTF-8.
    static func checkText(_ bytes: [UInt8]) throws(JSONParseError) {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw JSONParseError(reason: "it is empty")
        }
        guard isUTF8(bytes) else {
            throw JSONParseError(reason: "it is not UTF-8 text")
        }
    }

    /// Whether the bytes are well-formed UTF-8 (as `String(validating:)`
    /// judges), scalar by scalar: no String is made for it at every push.
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        if !bytes.contains(where: { $0 >= 0x80 }) { return true }
        var rest = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &rest) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var object: [String: JSON]? { if case .object(let o) = self { return o }; return nil }
    public var array: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var number: Double? { if case .number(let n) = self, n.isFinite { return n }; return nil }
    public var string: String? { if case .string(let s) = self { return s }; return nil }
}

/// Why bytes are not JSON, in words that follow "… is not valid JSON: ".
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }

    /// " at onair.items[1]", or "" at the top.
    static func place(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "" }
        var text = ""
        for key in path {
            if let i = key.intValue, key.stringValue.hasPrefix("Index") { text += "[\(i)]" }
            else { text += text.isEmpty ? key.stringValue : "." + key.stringValue }
        }
        return " at " + text
    }
}

extension JSON: Codable {
    /// Each kind is tried in turn; a number or string that is there but
    /// malformed is said with its place, rather than falling through to the
    /// object attempt, whose type mismatch would hide the real fault.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let place = JSONParseError.place(decoder.codingPath)
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        do {
            self = .number(try c.decode(Double.self))
            return
        } catch DecodingError.typeMismatch {
        } catch {
            throw JSONParseError(reason: "the number\(place) is malformed or too big for a double")
        }
        do {
            self = .string(try c.decode(String.self))
            return
        } catch DecodingError.typeMismatch {
        } catch {
            throw JSONParseError(reason: "the string\(place) is not valid text (a lone surrogate, a bad escape or a raw control character)")
        }
        do {
            self = .array(try c.decode([JSON].self))
            return
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == decoder.codingPath.count {
            // Not an array: an object, the one kind left.
        }
        self = .object(try c.decode([String: JSON].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

/// A field a document encoded by `BodyJSON` always carries, as `null` when there is no
/// value (synthesized Codable would leave it out, and Oriel reads the field names).
@propertyWrapper
public struct Null<T: Encodable & Equatable & Sendable>: Encodable, Equatable, Sendable {
    public var wrappedValue: T?

    public init(wrappedValue: T?) {
        self.wrappedValue = wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let v = wrappedValue { try c.encode(v) } else { try c.encodeNil() }
    }
}

/// The one encoder every JSON answer of the body goes through.
public enum BodyJSON {
    /// Encodes a value as compact JSON with sorted keys (stable for tests and diffs).
    public static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            // Only non-finite numbers can fail here; the body never builds them.
            return Array(#"{"error":"the body could not encode its answer"}"#.utf8)
        }
    }

    /// `{"error": "<words>"}`, the shape of every error the body answers.
    public static func error(_ words: String) -> [UInt8] {
        encode(["error": words])
    }
}
