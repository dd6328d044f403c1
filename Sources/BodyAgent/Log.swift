import BodySystem

/// One line per thing worth saying, on stderr. Under systemd (JOURNAL_STREAM
/// set) each line carries a syslog priority prefix so the journal files it right.
/// Lines go through the journal's outlet, which never makes the loop wait
/// for a reader that stalled.
public struct Log: Sendable {
    public enum Level: Int32, Sendable { case error = 3, warning = 4, notice = 5, info = 6, debug = 7 }
    /// The journal's prefix for each priority, by its number.
    private static let priorities = (0...7).map { "<\($0)>" }

    private let journal: Bool
    /// `STUDIO_BODY_DEBUG=1`: debug lines are written too (every answered request);
    /// otherwise they are not written (a line per request is a cost the loop does not pay).
    public let debug: Bool
    public let outlet: JournalOutlet
    /// The last 100 lines written, for the page.
    public let recent = RecentLines()

    public init(outlet: JournalOutlet = .standardError) {
        journal = CurrentProcess.environment("JOURNAL_STREAM") != nil
        debug = CurrentProcess.environment("STUDIO_BODY_DEBUG") == "1"
        self.outlet = outlet
    }

    /// `wall`: the line's moment on the agent's clock, for the page; nil, the system's.
    public func callAsFunction(_ words: String, _ level: Level = .info, at wall: Double? = nil) {
        if level == .debug && !debug { return }
        recent.add(words, level, at: wall)
        // One whole line at a time, so lines from the hello thread never interleave.
        outlet.write(prefix: journal ? Self.priorities[Int(level.rawValue)] : "studio-body: ", words)
    }

    /// At exit: the last lines get up to `seconds` to reach a slow journal.
    public func drain(within seconds: Double) { outlet.drain(within: seconds) }
}
