import Foundation
import Testing

/// One reading of the running body: when its request left, when its answer
/// came, and what it said. A rule's window is judged only where the reading's
/// time is certain (answered before a deadline, or sent after it), so a
/// loaded machine's stall makes fewer readings count, never a wrong verdict.
struct Reading<T> {
    let sent: Date
    let answered: Date
    let value: T

    /// The body answered before `deadline`: it saw a time before it.
    func answered(before deadline: Date) -> Bool { answered < deadline }

    /// The body read the request after `deadline`.
    func sent(after deadline: Date) -> Bool { sent > deadline }
}

/// Reads every `every` seconds until `done` holds for a reading or `within`
/// seconds pass; every reading, in order.
func readings<T>(every: Double, within: Double, until done: (T) -> Bool,
                 _ read: () async throws -> T) async throws -> [Reading<T>] {
    var seen: [Reading<T>] = []
    let end = Date().addingTimeInterval(within)
    while Date() < end {
        let sent = Date()
        let value = try await read()
        seen.append(Reading(sent: sent, answered: Date(), value: value))
        if done(value) { break }
        try? await Task.sleep(nanoseconds: UInt64(every * 1e9))
    }
    return seen
}

/// Runs `scenario` until one try could judge its window (it returns true),
/// at most `tries` times: a try whose readings all missed the window (the
/// host stalled) is spoiled, not failed. Its expectations on the readings it
/// had still hold. A test that no try could judge fails, saying why.
func untilJudged(tries: Int = 3, _ what: String, _ scenario: (Int) async throws -> Bool) async throws {
    for attempt in 1...tries where try await scenario(attempt) { return }
    Issue.record("\(what): every one of \(tries) tries was spoiled (no reading landed in the window; the host stalled)")
}
