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

// The status document written by hand (JSONOut): keys in byte order, every
// field present, as the synthesized Codable with `Null` and `.sortedKeys` writes it.
extension StatusDocument: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.key("board"); board.write(to: &o)
            o.key("buttons")
            o.object { b in
                for name in buttons.keys.sorted(by: JSONOut.byteOrder) {
                    b.key(name); buttons[name]!.write(to: &b)
                }
            }
            o.key("eyes"); eyes.write(to: &o)
            o.key("lines")
            o.object { l in
                for name in lines.keys.sorted(by: JSONOut.byteOrder) {
                    l.key(name); l.bool(lines[name]!.wrappedValue)
                }
            }
            o.key("onair"); onair.write(to: &o)
            o.key("oriel"); oriel.write(to: &o)
            o.key("where"); `where`.write(to: &o)
            o.key("wrapup"); wrapup.write(to: &o)
        }
    }
}

extension StatusDocument.Asked: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.key("at"); o.number(at)
            o.key("id"); o.string(id)
            o.key("on"); o.bool(on)
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
            o.key("asked"); asked.write(to: &o)
            o.key("by"); o.string(by)
            o.key("on"); o.bool(on)
            o.key("phase"); o.string(phase)
            o.key("problem"); o.string(problem)
            o.key("since"); o.string(since)
            o.key("stage"); o.string(stage)
            o.key("unread"); o.string(unread)
            o.key("value"); o.string(value)
        }
    }
}

extension StatusDocument.WrapUp: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.key("asked"); asked.write(to: &o)
            o.key("problem"); o.string(problem)
            o.key("value"); o.string(value)
        }
    }
}

extension StatusDocument.Eyes: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.key("kill"); o.string(kill)
            o.key("kill_asked"); kill_asked.write(to: &o)
            o.key("kill_problem"); o.string(kill_problem)
            o.key("killing"); o.bool(killing)
            o.key("mode"); o.string(mode)
            o.key("names"); o.array { a in for n in names { a.string(n) } }
            o.key("open"); o.bool(open)
            o.key("preview"); o.string(preview)
            o.key("preview_why"); o.string(preview_why)
            o.key("red"); o.bool(red)
            o.key("until"); o.number(until)
            o.key("why"); o.string(why)
        }
    }
}

extension StatusDocument.Button: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.key("held"); o.bool(held)
            o.key("stuck"); o.bool(stuck)
        }
    }
}

extension StatusDocument.Where: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.key("allowed"); o.bool(allowed)
            o.key("watching"); o.bool(watching)
        }
    }
}

extension StatusDocument.Oriel: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.key("last_poll"); o.number(last_poll)
            o.key("last_push"); o.number(last_push)
            o.key("silent"); o.bool(silent)
        }
    }
}

extension StatusDocument.Board: JSONWritable {
    public func write(to out: inout JSONOut) {
        out.object { o in
            o.key("kind"); o.string(kind)
            o.key("ok"); o.bool(ok)
            o.key("problem"); o.string(problem)
        }
    }
}
