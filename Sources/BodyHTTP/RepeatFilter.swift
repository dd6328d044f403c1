/// Lets a log line through once, then counts its repeats for `window`
/// seconds and says the count with the next one after that: a flood of
/// hostile connections is a few lines in the journal, not one per socket.
struct RepeatFilter {
    var window: Double
    private var seen: [String: (since: Double, more: Int)] = [:]
    private static let remembered = 64

    init(window: Double) { self.window = window }

    mutating func say(_ text: String, at now: Double) -> String? {
        if let last = seen[text], now - last.since < window {
            seen[text] = (last.since, last.more + 1)
            return nil
        }
        let more = seen[text]?.more ?? 0
        if seen.count >= RepeatFilter.remembered, seen[text] == nil {
            seen = seen.filter { now - $0.value.since < window }
        }
        seen[text] = (now, 0)
        guard more > 0 else { return text }
        return "\(text) (and \(more) more like it since the last time it was said)"
    }
}
