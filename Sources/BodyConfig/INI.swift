import BodyCore

/// A configuration mistake, said as `FILE:LINE: what is wrong`: on a headless
/// board the journal is the only screen, so the words point at the line to fix.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var words: String

    public init(file: String, line: Int?, _ words: String) {
        self.file = file
        self.line = line
        self.words = words
    }

    public var description: String {
        if let line { return "\(file):\(line): \(words)" }
        return "\(file): \(words)"
    }
}

/// An INI file as written: sections of `key = value` lines, `#` or `;` comments
/// (a `#` after whitespace ends a value too), each entry knowing its line.
public struct INI: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var key: String
        public var value: String
        public var line: Int
    }

    public struct Section: Equatable, Sendable {
        public var name: String
        public var line: Int
        public var entries: [Entry]

        public func value(_ key: String) -> Entry? { entries.last { $0.key == key } }
    }

    public var file: String
    public var sections: [Section]

    public static func parse(_ text: String, file: String) throws(ConfigError) -> INI {
        var sections: [Section] = []
        var number = 0
        // "\r\n" is one Character in Swift, so a CRLF file splits on it too.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = stripComment(String(raw)).trimmed
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw ConfigError(file: file, line: number, "a section header must end with ]: \(line)")
                }
                let name = String(line.dropFirst().dropLast()).trimmed
                    .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                guard !name.isEmpty else { throw ConfigError(file: file, line: number, "an empty section name []") }
                if sections.contains(where: { $0.name == name }) {
                    throw ConfigError(file: file, line: number, "section [\(name)] appears twice")
                }
                sections.append(Section(name: name, line: number, entries: []))
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                throw ConfigError(file: file, line: number, "expected key = value, found: \(line)")
            }
            let key = String(line[..<eq]).trimmed
            let value = String(line[line.index(after: eq)...]).trimmed
            guard !key.isEmpty else { throw ConfigError(file: file, line: number, "a value with no key: \(line)") }
            guard !sections.isEmpty else {
                throw ConfigError(file: file, line: number, "\(key) is outside any [section]")
            }
            if sections[sections.count - 1].value(key) != nil {
                throw ConfigError(file: file, line: number, "\(key) is set twice in [\(sections[sections.count - 1].name)]")
            }
            sections[sections.count - 1].entries.append(Entry(key: key, value: value, line: number))
        }
        return INI(file: file, sections: sections)
    }

    public func section(_ name: String) -> Section? { sections.first { $0.name == name } }

    static func stripComment(_ line: String) -> String {
        let t = line.trimmed
        if t.hasPrefix("#") || t.hasPrefix(";") { return "" }
        var previous: Character = " "
        for (i, c) in zip(line.indices, line) {
            if c == "#" && (previous == " " || previous == "\t") { return String(line[..<i]) }
            previous = c
        }
        return line
    }
}

/// Reads typed values out of a section, naming the line of any mistake.
struct SectionReader {
    let ini: INI
    let section: INI.Section?
    let name: String
    var known: Set<String>

    init(_ ini: INI, _ name: String, keys: Set<String>) {
        self.ini = ini
        self.section = ini.section(name)
        self.name = name
        self.known = keys
    }

    func fail(_ entry: INI.Entry, _ words: String) -> ConfigError {
        ConfigError(file: ini.file, line: entry.line, "[\(name)] \(entry.key): \(words)")
    }

    /// Every key must be known: a typo is an error, not a silent default.
    func checkKeys() throws(ConfigError) {
        for e in section?.entries ?? [] where !known.contains(e.key) {
            throw ConfigError(file: ini.file, line: e.line,
                              "unknown key \(e.key) in [\(name)]; known keys: \(known.sorted().joined(separator: ", "))")
        }
    }

    func string(_ key: String) -> String? {
        guard let v = section?.value(key)?.value, !v.isEmpty else { return nil }
        return v
    }

    func entry(_ key: String) -> INI.Entry? { section?.value(key) }

    func bool(_ key: String, default d: Bool) throws(ConfigError) -> Bool {
        guard let e = entry(key) else { return d }
        switch e.value.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: throw fail(e, "expected yes or no, found \(e.value)")
        }
    }

    /// A duration with its unit (`WrittenDuration`), inside the key's range.
    func duration(_ key: String, default d: Double, in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        guard let e = entry(key) else { return d }
        let seconds: Double
        do throws(WrittenDuration.Refused) { seconds = try WrittenDuration.seconds(e.value) } catch { throw fail(e, error.words) }
        guard range.contains(seconds) else {
            throw fail(e, "expected from \(WrittenDuration.written(range.lowerBound)) to \(WrittenDuration.written(range.upperBound)), found \(e.value)")
        }
        return seconds
    }

    func int(_ key: String, default d: Int, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let e = entry(key) else { return d }
        guard let n = Int(e.value), range.contains(n) else {
            throw fail(e, "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(e.value)")
        }
        return n
    }

    func choice<T: RawRepresentable>(_ key: String, default d: T) throws(ConfigError) -> T where T.RawValue == String {
        guard let e = entry(key) else { return d }
        guard let v = T(rawValue: e.value.lowercased()) else { throw fail(e, "unknown value \(e.value)") }
        return v
    }
}
