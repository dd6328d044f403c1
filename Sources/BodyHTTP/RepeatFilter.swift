/// Lets a log line through once, then counts its repeats for `window`
/// seconds and says the count with the next one after that: a flood of
/// hostile connections is a few lines in the journal, not one per socket.
struct RepeatFilter {
    var window: Double
    private var seen: [String: (since: Double, more: Int)] = [:]
    private static let remembered = 64

    init(window: Double) { self.window = window }

    /// `key` says which lines count as repeats of each other (by default the
    /// words themselves). A line whose words a client chooses (a path) needs a
    /// key it does not choose, or every request is a new line and a new entry.
    mutating func say(_ text: String, key: String? = nil, at now: Double) -> String? {
        let key = key ?? text
        if let last = seen[key], now - last.since < window {
            seen[key] = (last.since, last.more + 1)
            return nil
        }
        let more = seen[key]?.more ?? 0
        if seen.count >= RepeatFilter.remembered, seen[key] == nil {
            seen = seen.filter { now - $0.value.since < window }
            // Still full of fresh keys: the oldest goes, so the table stays bounded.
            if seen.count >= RepeatFilter.remembered, let oldest = seen.min(by: { $0.value.since < $1.value.since }) {
                seen.removeValue(forKey: oldest.key)
            }
        }
        seen[key] = (now, 0)
        guard more > 0 else { return text }
        return "\(text) (and \(more) more like it since the last time it was said)"
    }

    /// Keys remembered now (for tests).
    var remembered: Int { seen.count }
}
