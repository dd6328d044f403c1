import Foundation

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
