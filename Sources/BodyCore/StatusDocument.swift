/// A field the status document always carries, as `null` when there is no value
/// (synthesized Codable would leave it out, and Oriel reads the field names).
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

/// `GET /status` and the answer to `POST /face` (DESIGN 7). Field names and
/// value words are part of the contract; times are epoch seconds.
public struct StatusDocument: Encodable, Equatable, Sendable {
    public struct Asked: Encodable, Equatable, Sendable {
        public var id: String
        @Null public var on: Bool?
        public var at: Double
    }

    public struct OnAir: Encodable, Equatable, Sendable {
        public var value: String
        @Null public var on: Bool?
        @Null public var phase: String?
        @Null public var stage: String?
        @Null public var since: String?
        @Null public var by: String?
        @Null public var unread: String?
        @Null public var asked: Asked?
        @Null public var problem: String?
    }

    public struct WrapUp: Encodable, Equatable, Sendable {
        public var value: String
        @Null public var asked: Asked?
        @Null public var problem: String?
    }

    public struct Eyes: Encodable, Equatable, Sendable {
        @Null public var mode: String?
        public var red: Bool
        public var names: [String]
        public var killing: Bool
        public var open: Bool
        @Null public var until: Double?
        @Null public var why: String?
        /// `running` or `stopped`.
        public var preview: String
        /// Why the preview runs or not, in words.
        public var preview_why: String
        /// Seconds until the body stops the running preview by itself (`until`,
        /// or a tap's five minutes on an unsynchronised clock); null when it does not.
        @Null public var preview_stops_in: Double?
        /// `ready`, `armed`, `asking`.
        public var kill: String
        @Null public var kill_asked: Asked?
        @Null public var kill_problem: String?
    }

    public struct Button: Encodable, Equatable, Sendable {
        public var held: Bool
        /// Held longer than the stuck limit (or a broken normally-closed wire).
        public var stuck: Bool
        /// Blips on its line that were no press, since the body started.
        public var noise: UInt64
        /// Windows read too late to judge (`Contact.late`): the body was busy.
        public var late: UInt64

        public init(held: Bool, stuck: Bool, noise: UInt64, late: UInt64 = 0) {
            self.held = held
            self.stuck = stuck
            self.noise = noise
            self.late = late
        }
    }

    public struct Where: Encodable, Equatable, Sendable {
        public var allowed: Bool
        public var watching: Bool
        /// Whether the kernel vouches for this computer's wall clock (network time reached it).
        public var clock_synchronised: Bool
        /// While it does not: how many seconds this clock was behind the receiver's at the
        /// last fix that counted for that (FixRule.judge); null when synchronised or not seen.
        @Null public var clock_behind_receiver: Double?

        public init(allowed: Bool, watching: Bool, clockSynchronised: Bool = true, clockBehindReceiver: Double? = nil) {
            self.allowed = allowed
            self.watching = watching
            clock_synchronised = clockSynchronised
            clock_behind_receiver = clockSynchronised ? nil : clockBehindReceiver
        }
    }

    public struct Oriel: Encodable, Equatable, Sendable {
        @Null public var last_push: Double?
        @Null public var last_poll: Double?
        public var silent: Bool
    }

    public struct Board: Encodable, Equatable, Sendable {
        /// `sim` or the board file's path.
        public var kind: String
        /// Whether the lines are held; false while the GPIO chip is gone.
        public var ok: Bool
        @Null public var problem: String?

        public init(kind: String, ok: Bool, problem: String?) {
            self.kind = kind
            self.ok = ok
            self.problem = problem
        }
    }

    public var onair: OnAir
    public var wrapup: WrapUp
    public var eyes: Eyes
    /// Each output role: lit, dark, or null when unknown (the GPIO chip is gone).
    public var lines: [String: Null<Bool>]
    public var buttons: [String: Button]
    public var `where`: Where
    public var oriel: Oriel
    public var board: Board
}

/// What the status document needs from outside the core: the adapters' word.
/// Each line's and button's in a `RoleTable`: built at every request, so no dictionary.
public struct StatusExtras: Equatable, Sendable {
    /// The board's output roles; nil for a role whose level is unknown.
    public var lines: RoleTable<OutputRole, Bool?>
    /// The board's buttons.
    public var held: RoleTable<ButtonRole, (held: Bool, stuck: Bool)>
    public var location: StatusDocument.Where
    public var previewRunning: Bool
    public var previewWords: String
    public var board: StatusDocument.Board

    public static func == (a: StatusExtras, b: StatusExtras) -> Bool {
        a.lines == b.lines && a.location == b.location && a.previewRunning == b.previewRunning
            && a.previewWords == b.previewWords && a.board == b.board
            && a.held.elementsEqual(b.held, by: ==)
    }

    public init(lines: RoleTable<OutputRole, Bool?>, held: RoleTable<ButtonRole, (held: Bool, stuck: Bool)>,
                location: StatusDocument.Where, previewRunning: Bool, previewWords: String,
                board: StatusDocument.Board) {
        self.lines = lines
        self.held = held
        self.location = location
        self.previewRunning = previewRunning
        self.previewWords = previewWords
        self.board = board
    }
}

// The status document written by hand (JSONOut): keys in byte order, every
// field present, as the synthesized Codable with `Null` and `.sortedKeys` writes it.
extension StatusDocument: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.field("board"); board.write(to: &o)
            o.field("buttons")
            o.object { b in
                for name in Self.inByteOrder(buttons, Self.buttonNames) {
                    b.key(name); buttons[name]!.write(to: &b)
                }
            }
            o.field("eyes"); eyes.write(to: &o)
            o.field("lines")
            o.object { l in
                for name in Self.inByteOrder(lines, Self.lineNames) {
                    l.key(name); l.bool(lines[name]!.wrappedValue)
                }
            }
            o.field("onair"); onair.write(to: &o)
            o.field("oriel"); oriel.write(to: &o)
            o.field("where"); `where`.write(to: &o)
            o.field("wrapup"); wrapup.write(to: &o)
        }
    }
}

extension StatusDocument {
    /// The roles' names in byte order, sorted once (not a sort of
    /// the keys, an array, at every document).
    static let buttonNames = ButtonRole.allCases.map(\.rawValue).sorted(by: JSONOut.byteOrder)
    static let lineNames = OutputRole.allCases.map(\.rawValue).sorted(by: JSONOut.byteOrder)
    /// The roles themselves in that order, for the document written straight (`Body.writeStatus`).
    static let buttonsInByteOrder = ButtonRole.allCases.sorted { JSONOut.byteOrder($0.rawValue, $1.rawValue) }
    static let linesInByteOrder = OutputRole.allCases.sorted { JSONOut.byteOrder($0.rawValue, $1.rawValue) }

    /// A dictionary's keys in byte order: the roles' names when it holds
    /// exactly those (a body's document always does), else its keys sorted.
    static func inByteOrder<V>(_ d: [String: V], _ names: [String]) -> [String] {
        if d.count == names.count, names.allSatisfy({ d[$0] != nil }) { return names }
        return d.keys.sorted(by: JSONOut.byteOrder)
    }
}

// The roles' names as written in the source, for the keys of the document
// written straight: each goes in as a field name (`JSONOut.field`), not
// checked and quoted from a string, seven times a document. The
// same as `rawValue` (StatusDocumentTests).
extension ButtonRole {
    var key: StaticString {
        switch self {
        case .onair: "onair"
        case .wrapup: "wrapup"
        case .kill: "kill"
        case .camera: "camera"
        }
    }
}

extension OutputRole {
    var key: StaticString {
        switch self {
        case .lamp: "lamp"
        case .armedLED: "armed-led"
        case .eyeLED: "eye-led"
        }
    }
}

extension StatusDocument.Asked: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.field("at"); o.number(at)
            o.field("id"); o.string(id)
            o.field("on"); o.bool(on)
        }
    }
}

extension Optional where Wrapped == StatusDocument.Asked {
    func write(to out: inout JSONOut) {
        if let self { self.write(to: &out) } else { out.null() }
    }
}

extension StatusDocument.OnAir: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.field("asked"); asked.write(to: &o)
            o.field("by"); o.string(by)
            o.field("on"); o.bool(on)
            o.field("phase"); o.string(phase)
            o.field("problem"); o.string(problem)
            o.field("since"); o.string(since)
            o.field("stage"); o.string(stage)
            o.field("unread"); o.string(unread)
            o.field("value"); o.string(value)
        }
    }
}

extension StatusDocument.WrapUp: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.field("asked"); asked.write(to: &o)
            o.field("problem"); o.string(problem)
            o.field("value"); o.string(value)
        }
    }
}

extension StatusDocument.Eyes: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.field("kill"); o.string(kill)
            o.field("kill_asked"); kill_asked.write(to: &o)
            o.field("kill_problem"); o.string(kill_problem)
            o.field("killing"); o.bool(killing)
            o.field("mode"); o.string(mode)
            o.field("names"); o.array { a in for n in names { a.string(n) } }
            o.field("open"); o.bool(open)
            o.field("preview"); o.string(preview)
            o.field("preview_stops_in"); o.number(preview_stops_in)
            o.field("preview_why"); o.string(preview_why)
            o.field("red"); o.bool(red)
            o.field("until"); o.number(until)
            o.field("why"); o.string(why)
        }
    }
}

extension StatusDocument.Button: JSONWritable {
    public func write(to out: inout JSONOut) {
        // A button at rest, nearly every one in every document, is one
        // constant: four of them a status document.
        if !held && noise == 0 && !stuck && late == 0 {
            out.raw(#"{"held":false,"late":0,"noise":0,"stuck":false}"#)
            return
        }
        out.object { o in
            o.field("held"); o.bool(held)
            o.field("late"); o.number(late)
            o.field("noise"); o.number(noise)
            o.field("stuck"); o.bool(stuck)
        }
    }
}

extension StatusDocument.Where: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.field("allowed"); o.bool(allowed)
            o.field("clock_behind_receiver"); o.number(clock_behind_receiver)
            o.field("clock_synchronised"); o.bool(clock_synchronised)
            o.field("watching"); o.bool(watching)
        }
    }
}

extension StatusDocument.Oriel: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.field("last_poll"); o.number(last_poll)
            o.field("last_push"); o.number(last_push)
            o.field("silent"); o.bool(silent)
        }
    }
}

extension StatusDocument.Board: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.field("kind"); o.string(kind)
            o.field("ok"); o.bool(ok)
            o.field("problem"); o.string(problem)
        }
    }
}
