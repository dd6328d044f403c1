import BodyHTTP

/// A flag a closure sets for its owner to look at, holding no reference to it.
final class Mark {
    var set = false
}

/// A `GET /ears` that waits for an item or for its wait to run out at `until`.
struct Poll {
    let reply: HTTPReply
    let after: UInt64
    let until: Double
}

/// Oriel's parked `GET /ears` polls (DESIGN 4): the replies waiting, in the
/// order they came, and the earliest wait's end, which the agent's one poll
/// timer is armed for. What a poll is answered with is the rules'
/// (`Body.poll`); keeping the polls in order, timing them and letting go of
/// the closed ones is here. Loop thread only.
struct ParkedPolls {
    private(set) var waiting: [Poll] = []
    /// The earliest wait's end among them (nil: none waits).
    private(set) var due: Double?
    /// Set by a parked reply that closed (Oriel went away, or its answer went
    /// out, inside a server's run); `dropClosed` lets go of them when the run ends.
    private let closed: Mark
    /// Every parked reply's `onClose`: made once, not a closure a poll. It only
    /// marks: a weak reference to the agent here would give the agent a side
    /// table, which makes every retain and release of it the runtime's slow
    /// path, at every turn.
    private let onClose: () -> Void

    init() {
        let mark = Mark()
        closed = mark
        onClose = { mark.set = true }
    }

    var count: Int { waiting.count }
    var isEmpty: Bool { waiting.isEmpty }

    mutating func park(_ poll: Poll) {
        waiting.append(poll)
        if poll.until < due ?? .infinity { due = poll.until }
        // Oriel went away: the poll is let go when the run that saw it ends, not at its wait's end.
        poll.reply.onClose = onClose
    }

    /// Takes every poll `ready` picks out, in the order they came, and hands
    /// each to `answer` as it goes (no list is made). `due` follows.
    mutating func take(where ready: (Poll) -> Bool, _ answer: (Poll) -> Void) {
        var i = 0
        var took = false
        while i < waiting.count {
            guard ready(waiting[i]) else { i += 1; continue }
            let poll = waiting.remove(at: i)
            took = true
            answer(poll)
        }
        if took { findDue() }
    }

    /// Every poll, taken out at once (the stop answers them all).
    mutating func takeAll() -> [Poll] {
        let all = waiting
        waiting = []
        due = nil
        return all
    }

    /// Lets go of the polls whose reply closed since the last time; true when
    /// any was let go (`due` may have moved).
    mutating func dropClosed() -> Bool {
        guard closed.set else { return false }
        closed.set = false
        let before = waiting.count
        waiting.removeAll { !$0.reply.isOpen }
        guard waiting.count != before else { return false }
        findDue()
        return true
    }

    private mutating func findDue() {
        due = nil
        for p in waiting where p.until < due ?? .infinity { due = p.until }
    }
}
