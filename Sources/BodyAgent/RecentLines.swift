import Synchronization
import BodyCore
import BodySystem

/// The last 100 lines the log wrote, with their times, for the page.
/// Avahi's thread and the process's start and end log too, hence the lock;
/// the loop reads a copy.
public final class RecentLines: Sendable {
    private let lines = Mutex(LogLines(capacity: 100))

    public init() {}

    /// `wall`: the moment the agent's clock gives the line; nil (a line from
    /// outside the agent), the system's.
    func add(_ words: String, _ level: Log.Level, at wall: Double?) {
        let wall = wall ?? SystemClock.wall()
        lines.withLock { $0.add(words, level: level.word, at: wall) }
    }

    /// A copy of the lines kept now.
    public var now: LogLines { lines.withLock { $0 } }
    /// The newest line's number: a reader that saw it has seen everything.
    public var newest: UInt64 { lines.withLock { $0.newest } }
}

extension Log.Level {
    var word: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }
}
