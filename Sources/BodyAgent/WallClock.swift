import BodySystem

/// Whether the kernel vouches for the wall clock (`SystemClock.wallSynchronised`),
/// asked at most once a second of the monotonic clock: it is a system call, and
/// its answer changes about once a boot, when network time arrives. Read on the
/// loop's thread (and once before the loop runs).
enum WallClock {
    nonisolated(unsafe) private static var known = true
    nonisolated(unsafe) private static var askedAt = -Double.infinity

    /// A kernel that will not say (a seccomp filter denying adjtimex) leaves the
    /// clock taken as synchronised: the house's plain 30 s and `until` rules.
    static func synchronised(at mono: Double) -> Bool {
        if mono - askedAt >= 1 {
            askedAt = mono
            known = (try? SystemClock.wallSynchronised().get()) ?? true
        }
        return known
    }

    /// The state in words for the start's log line.
    static func words() -> String {
        switch SystemClock.wallSynchronised() {
        case .success(true):
            "clock: the wall clock is synchronised"
        case .success(false):
            "clock: the wall clock is not synchronised (no network time yet): fixes ahead of it count for GET /where, and a tap's preview stops five minutes after the push that opened it"
        case .failure(let e):
            "clock: cannot ask the kernel whether the wall clock is synchronised (adjtimex: \(e.words)); taking it as synchronised"
        }
    }
}
