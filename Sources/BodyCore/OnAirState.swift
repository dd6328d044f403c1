/// A stage of the broadcast that the body knows a word for.
public enum Stage: String, Equatable, Sendable, CaseIterable {
    case prep, live, soloPlay = "solo-play", wrapup

    /// The word the body shows for the stage.
    public var word: String { shown.description }

    /// `word` as written in the source, for the status document written straight.
    var shown: StaticString {
        switch self {
        case .prep: "PREP"
        case .live: "LIVE"
        case .soloPlay: "SOLO PLAY"
        case .wrapup: "WRAP-UP"
        }
    }

    /// `rawValue` as written in the source (the same: StatusDocumentTests).
    var key: StaticString {
        switch self {
        case .prep: "prep"
        case .live: "live"
        case .soloPlay: "solo-play"
        case .wrapup: "wrapup"
        }
    }

    /// A pushed phase, at most 16 characters, lower-cased; unknown words are nil, never a guess.
    public static func from(phase: String) -> Stage? {
        // An ASCII phase is matched on its bytes, lower-cased as they are compared:
        // the same answer (every word is at most 9 bytes, within the 16 kept),
        // without the two Strings made at every push. One buffer of the bytes,
        // not the String's UTF-8 view walked for each word.
        var phase = phase
        var ascii = true
        let known = phase.withUTF8 { p -> Stage? in
            for c in p where c >= 0x80 { ascii = false; return nil }
            guard p.count <= 9 else { return nil }
            if same(p, "prep") { return .prep }
            if same(p, "live") { return .live }
            if same(p, "solo-play") || same(p, "solo_play") || same(p, "soloplay") { return .soloPlay }
            if same(p, "wrapup") { return .wrapup }
            return nil
        }
        if ascii { return known }
        return switch String(phase.prefix(Cut.phase)).lowercased() {
        case "prep": .prep
        case "live": .live
        case "solo-play", "solo_play", "soloplay": .soloPlay
        case "wrapup": .wrapup
        default: nil
        }
    }

    /// Whether an ASCII phase's bytes lower-cased are `word`.
    private static func same(_ phase: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard phase.count == word.utf8CodeUnitCount else { return false }
        for i in 0..<phase.count {
            let c = phase[i]
            let lower = c >= 0x41 && c <= 0x5A ? c + 0x20 : c
            guard lower == word.utf8Start[i] else { return false }
        }
        return true
    }
}

/// What Oriel last said about On Air. There is no flag of the body's own
/// (rule 1): this is only ever what a push said, or unread with a reason.
public struct OnAirState: Equatable, Sendable {
    /// true on, false off, nil unread.
    public var on: Bool?
    /// Why the state cannot be said, when unread.
    public var reason: String?
    /// The stage, kept only while on and only when known.
    public var stage: Stage?
    public var since: String?
    public var by: String?

    public init(on: Bool?, reason: String? = nil, stage: Stage? = nil, since: String? = nil, by: String? = nil) {
        self.on = on
        self.reason = on == nil ? reason : nil
        self.stage = on == true ? stage : nil
        self.since = since
        self.by = by
    }

    public static func unread(_ reason: String) -> OnAirState { OnAirState(on: nil, reason: reason) }

    /// The state at start: nobody has said anything yet.
    public static let atStart = unread("Oriel has not said whether On Air is on")

    /// The words for an unread state that came with no reason.
    public static let noReason = "Oriel sent no On Air state"

    public var isUnread: Bool { on == nil }

    /// The reason in words while unread, nil otherwise.
    public var unreadWords: String? { on == nil ? (reason ?? Self.noReason) : nil }

    /// The pushed onair object's members the body reads, walked once: the
    /// state's, then `answered` (a push reads both).
    static var keys: InlineArray<8, StaticString> {
        ["since", "by", "unread", "error", "on", "on_air", "phase", "answered"]
    }

    /// The state from an onair object's members under `keys` (all nil when it
    /// is no object, and then this is nil, as above).
    static func read(_ m: InlineArray<8, JSONBytes?>) -> OnAirState? {
        let since = m[0]?.words(limit: Cut.since)
        let by = m[1]?.words(limit: Cut.by)
        if let reason = m[2]?.words(limit: Cut.reason) ?? m[3]?.words(limit: Cut.reason) {
            return OnAirState(on: nil, reason: reason, since: since, by: by)
        }
        guard let on = m[4]?.bool ?? m[5]?.bool else { return nil }
        let stage = m[6]?.string.flatMap(Stage.from(phase:))
        return OnAirState(on: on, stage: stage, since: since, by: by)
    }

    /// Whether a move from `old` to this state changes what an armed press
    /// would mean (on/off/unread, or the stage).
    public func moved(from old: OnAirState) -> Bool {
        on != old.on || stage != old.stage
    }
}

/// Oriel's word on one request: `{"id": "...", "error": "..." | null}`.
public struct Answered: Equatable, Sendable {
    public var id: String
    public var error: String?

    public init(id: String, error: String?) {
        self.id = id
        self.error = error
    }

    /// Reads a pushed `answered` object; nil without an id.
    static func read(_ pushed: JSONBytes?) -> Answered? {
        guard let m = pushed?.members(["id", "error"] as InlineArray<2, StaticString>),
              let id = m[0]?.words(limit: 128) else { return nil }
        return Answered(id: id, error: m[1]?.words(limit: Cut.reason))
    }
}
