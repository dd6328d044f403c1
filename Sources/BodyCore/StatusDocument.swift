/// `GET /status` and the answer to `POST /face` (DESIGN 7). Field names and
/// value words are part of the contract; times are epoch seconds. Its one
/// writer is `Body.writeStatus`, straight from the rules' state into the
/// caller's buffer; these are the parts of it that are values of their own,
/// their fields named as the document names them.
public enum StatusDocument {
    public struct Asked: Equatable, Sendable {
        public var id: String
        public var on: Bool?
        public var at: Double
    }

    public struct Button: Equatable, Sendable {
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

    public struct Where: Equatable, Sendable {
        public var allowed: Bool
        public var watching: Bool
        /// Whether the kernel vouches for this computer's wall clock (network time reached it).
        public var clock_synchronised: Bool
        /// While it does not: how many seconds this clock was behind the receiver's at the
        /// last fix that counted for that (FixRule.judge); null when synchronised or not seen.
        public var clock_behind_receiver: Double?

        public init(allowed: Bool, watching: Bool, clockSynchronised: Bool = true, clockBehindReceiver: Double? = nil) {
            self.allowed = allowed
            self.watching = watching
            clock_synchronised = clockSynchronised
            clock_behind_receiver = clockSynchronised ? nil : clockBehindReceiver
        }
    }

    public struct Oriel: Equatable, Sendable {
        public var last_push: Double?
        public var last_poll: Double?
        public var silent: Bool
    }

    public struct Board: Equatable, Sendable {
        /// `sim` or the board file's path.
        public var kind: String
        /// Whether the lines are held; false while the GPIO chip is gone.
        public var ok: Bool
        public var problem: String?

        public init(kind: String, ok: Bool, problem: String?) {
            self.kind = kind
            self.ok = ok
            self.problem = problem
        }
    }
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

// The roles' names as written in the source, for the keys of the status
// document: each goes in as a field name (`JSONOut.field`), not
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

extension StatusDocument {
    /// The roles in the document's order (its keys in byte order, as
    /// JSONOut.byteOrder compares them), sorted once, not at every document.
    static let buttonsInByteOrder = ButtonRole.allCases.sorted { JSONOut.byteOrder($0.rawValue, $1.rawValue) }
    static let linesInByteOrder = OutputRole.allCases.sorted { JSONOut.byteOrder($0.rawValue, $1.rawValue) }
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
