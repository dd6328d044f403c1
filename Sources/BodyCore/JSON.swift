internal import FoundationEssentials

/// A parsed JSON value. Pushes are read through this with the house's lenient
/// rules: a field of the wrong type counts as absent, never as an error.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Parses bytes (strictly, RFC 8259); the error says the parser's reason in words.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        var parser = JSONParser(bytes)
        return try parser.document()
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

    /// A non-empty string, cut to `limit` characters; empty counts as absent.
    public func words(limit: Int) -> String? {
        guard let s = string, !s.isEmpty else { return nil }
        return String(s.prefix(limit))
    }
}

public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

extension JSON: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSON].self)) }
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

    /// The documents answered on every request write themselves (JSONOut): the same
    /// bytes, without JSONEncoder's cost.
    public static func encode<T: Encodable & JSONWritable>(_ value: T) -> [UInt8] {
        var out = JSONOut()
        value.write(to: &out)
        return out.bytes
    }

    /// `{"error": "<words>"}`, the shape of every error the body answers.
    public static func error(_ words: String) -> [UInt8] {
        encode(["error": words])
    }
}
