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
        /// `ready`, `armed`, `asking`.
        public var kill: String
        @Null public var kill_asked: Asked?
        @Null public var kill_problem: String?
    }

    public struct Button: Encodable, Equatable, Sendable {
        public var held: Bool
        /// Held longer than the stuck limit (or a broken normally-closed wire).
        public var stuck: Bool
    }

    public struct Where: Encodable, Equatable, Sendable {
        public var allowed: Bool
        public var watching: Bool

        public init(allowed: Bool, watching: Bool) {
            self.allowed = allowed
            self.watching = watching
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
public struct StatusExtras: Equatable, Sendable {
    /// nil for a role whose level is unknown.
    public var lines: [OutputRole: Bool?]
    public var held: [ButtonRole: (held: Bool, stuck: Bool)]
    public var location: StatusDocument.Where
    public var previewRunning: Bool
    public var previewWords: String
    public var board: StatusDocument.Board

    public static func == (a: StatusExtras, b: StatusExtras) -> Bool {
        a.lines == b.lines && a.location == b.location && a.previewRunning == b.previewRunning
            && a.previewWords == b.previewWords && a.board == b.board
            && a.held.mapValues { [$0.held, $0.stuck] } == b.held.mapValues { [$0.held, $0.stuck] }
    }

    public init(lines: [OutputRole: Bool?], held: [ButtonRole: (held: Bool, stuck: Bool)],
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
