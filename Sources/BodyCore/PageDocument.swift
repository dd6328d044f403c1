/// What the body's page shows, sent whole on `GET /events` at each
/// change: the status document, and beside it what a person at the board
/// also wants to see: each output's pattern (so the page draws the unread
/// flash and the asking blink as they run, not as sampled), each button's
/// last press and what it became, the hello's state, the last log lines.
/// Each event carries everything, so a client that missed one (a slow
/// reader's waiting event is replaced by a newer one) is whole again at the next.
public struct PageDocument: Equatable, Sendable {
    /// The status document, as `Body.writeStatus` writes it for `/status`.
    public var status: [UInt8]
    public var name: String
    public var version: String
    /// The simulated board: the page carries its press buttons.
    public var sim: Bool
    /// What each output role the board has is driving, and since when (monotonic).
    public var patterns: [OutputRole: Indicators.Driving]
    public var presses: [ButtonRole: LastPress]
    /// The hello to Oriel, in words.
    public var hello: String
    /// The last `GET /where` answer, in words (nil before the first).
    public var whereSaid: String?
    public var log: LogLines

    public init(status: [UInt8], name: String, version: String, sim: Bool,
                patterns: [OutputRole: Indicators.Driving], presses: [ButtonRole: LastPress],
                hello: String, whereSaid: String?, log: LogLines) {
        self.status = status
        self.name = name
        self.version = version
        self.sim = sim
        self.patterns = patterns
        self.presses = presses
        self.hello = hello
        self.whereSaid = whereSaid
        self.log = log
    }

    /// Whether `other` says the same, leaving out each line's level at the
    /// instant it was read (a blinking LED changes it eight times a second;
    /// its pattern, which the page draws, does not change).
    public func sameFacts(as other: PageDocument) -> Bool {
        var a = self, b = other
        a.status = []
        b.status = []
        guard a == b else { return false }
        if status == other.status { return true }
        // Bytes that differ may differ only in the lines' levels: all around them must match.
        guard let mine = Self.lines(in: status), let theirs = Self.lines(in: other.status) else { return false }
        return status[..<mine.lowerBound].elementsEqual(other.status[..<theirs.lowerBound])
            && status[mine.upperBound...].elementsEqual(other.status[theirs.upperBound...])
    }

    /// Where the status document's `"lines":{…}` lies, compared in place (the
    /// page asks at every change, ten times a second while a gate counts down).
    /// Inside a string every quote is escaped, so an unescaped `"lines":{` is
    /// the key; its object is flat (role names to bools and nulls), so the first
    /// `}` after it ends it.
    private static func lines(in status: [UInt8]) -> Range<Int>? {
        let key = linesKey
        var at = status.startIndex
        while at + key.count <= status.endIndex {
            if status[at] == key[0], status[at..<(at + key.count)].elementsEqual(key) {
                guard let end = status[(at + key.count)...].firstIndex(of: UInt8(ascii: "}")) else { return nil }
                return at..<(end + 1)
            }
            at += 1
        }
        return nil
    }

    private static let linesKey = Array(#""lines":{"#.utf8)

    /// The JSON of one event. `now` (monotonic) turns each pattern's start
    /// into its age, which the page counts from when the event arrived.
    public func json(at now: Double) -> [UInt8] {
        var out = JSONOut(capacity: 4096 + 160 * log.lines.count)
        out.object { o in
            o.field("hello"); o.string(hello)
            o.field("log")
            o.array { a in
                for line in log.lines {
                    a.object { l in
                        l.field("at"); l.number(line.at)
                        l.field("level"); l.string(line.level)
                        l.field("n"); l.number(line.number)
                        l.field("words"); l.string(line.words)
                    }
                }
            }
            o.field("name"); o.string(name)
            o.field("patterns")
            o.object { p in
                for role in patterns.keys.sorted() {
                    let d = patterns[role]!
                    p.key(role.rawValue)
                    p.object { r in
                        r.field("age"); r.number(max(0, now - d.since))
                        r.field("lit")
                        r.array { w in
                            d.pattern.forEachLit { start, end in w.array { x in x.number(start); x.number(end) } }
                        }
                        r.field("period"); r.number(d.pattern.period)
                    }
                }
            }
            o.field("presses")
            o.object { p in
                for button in presses.keys.sorted() {
                    let press = presses[button]!
                    p.key(button.rawValue)
                    p.object { b in
                        b.field("at"); b.number(press.at)
                        b.field("became"); b.string(press.became)
                        b.field("words"); b.string(press.words)
                    }
                }
            }
            o.field("sim"); o.bool(sim)
            o.field("status"); o.raw(status)
            o.field("version"); o.string(version)
            o.field("where_said"); o.string(whereSaid)
        }
        return out.bytes
    }
}

extension Indicators {
    /// One output's pattern and when it began.
    public struct Driving: Equatable, Sendable {
        public var pattern: Pattern
        public var since: Double

        public init(_ pattern: Pattern, since: Double) {
            self.pattern = pattern
            self.since = since
        }
    }

    public func driving(_ role: OutputRole) -> Driving {
        let (p, since) = pattern(role)
        // A steady level has no phase: its start says nothing new when it moves.
        return Driving(p, since: p.isSteady ? 0 : since)
    }
}
