/// The page's signed-in browsers: a person gives the token once in
/// a form and gets a session, kept in a cookie, so the token never rides in a
/// URL. A session lasts 12 hours on the caller's monotonic clock; the body's
/// restart ends them all, since they live only in this value. The ids come
/// from the caller (from the kernel's random source), like every clock here.
public struct Sessions: Equatable, Sendable {
    /// How long a session lasts from its sign-in.
    public static let lifetime: Double = 12 * 3600
    /// Sessions kept at once; signing in past it ends the oldest.
    public static let most = 16
    /// A session id shorter than this is refused: it must not be guessable.
    public static let shortestID = 32

    public struct Session: Equatable, Sendable {
        public let id: String
        /// When it began, on the caller's monotonic clock.
        public let opened: Double
        public var ends: Double { opened + Sessions.lifetime }
    }

    public private(set) var open: [Session] = []

    public init() {}

    /// Begins a session with `id`; nil when the id is too short to be a secret.
    /// Ended sessions are dropped, and the oldest when `most` are open.
    public mutating func begin(id: String, at now: Double) -> Session? {
        guard id.utf8.count >= Self.shortestID else { return nil }
        forget(at: now)
        if open.count >= Self.most { open.removeFirst(open.count - Self.most + 1) }
        let session = Session(id: id, opened: now)
        open.append(session)
        return session
    }

    /// Whether `id` names a session that has not ended at `now`. Every open
    /// session is compared whole, byte by byte, so the time taken says nothing
    /// of how much of an id was right.
    public func allows(_ id: String?, at now: Double) -> Bool {
        guard let id, !id.isEmpty else { return false }
        var found = false
        for session in open {
            let same = Self.same(Array(id.utf8), Array(session.id.utf8))
            found = found || (same && now >= session.opened && now < session.ends)
        }
        return found
    }

    /// Signs out: the session with `id` ends now. True when there was one.
    @discardableResult
    public mutating func end(_ id: String?) -> Bool {
        guard let id else { return false }
        let before = open.count
        open.removeAll { Self.same(Array(id.utf8), Array($0.id.utf8)) }
        return open.count != before
    }

    /// Drops the sessions that ended by `now`.
    public mutating func forget(at now: Double) {
        open.removeAll { now >= $0.ends }
    }

    /// Constant time in the given id's length: no early exit on the first difference.
    static func same(_ given: [UInt8], _ id: [UInt8]) -> Bool {
        guard !id.isEmpty else { return false }
        var diff: UInt8 = given.count == id.count ? 0 : 1
        for i in 0..<given.count { diff |= given[i] ^ id[i % id.count] }
        return diff == 0
    }
}
