import BodyCore
import BodyHTTP

/// A `GET /ears` that waits for an item or for its wait to run out at `until`.
/// A value in `Agent.polls`: the agent's one poll timer is armed for the earliest `until`.
struct Poll {
    let reply: HTTPReply
    let after: UInt64
    let until: Double
}

/// `{"boot","items":[…],"next"}`.
struct EarsAnswer {
    var boot: String
    var items: [OutboxItem]
    var next: UInt64
}

extension EarsAnswer: JSONWritable {
    func write(to out: inout JSONOut) {
        out.object { o in
            o.field("boot"); o.string(boot)
            o.field("items"); o.array { a in for item in items { item.write(to: &a) } }
            o.field("next"); o.number(next)
        }
    }
}

/// Oriel's long poll of the outbox (DESIGN 4). Whether a poll is answered
/// now or parked is the rules' (`Body.poll(after:wait:at:)`); here it is
/// carried out: a parked reply waits in `polls`, and one timer, the agent's
/// own, is armed for the earliest wait's end (no closure or timer made a poll).
extension Agent {
    func ears(after: UInt64, wait: Double, _ reply: HTTPReply, at now: Moment) {
        metrics.polled()
        switch changeBody({ $0.poll(after: after, wait: wait, at: now) }) {
        case .answer(let items):
            reply.send(earsAnswer(items, at: now))
        case .park(let until):
            park(Poll(reply: reply, after: after, until: until))
        }
    }

    private func park(_ poll: Poll) {
        polls.append(poll)
        armPollTimer()
        // Oriel went away: the poll is dropped now, not at its wait's end.
        poll.reply.onClose = pollClosed
    }

    /// The poll timer, armed for the earliest parked wait's end (none: disarmed).
    func armPollTimer() {
        var due: Double?
        for p in polls where p.until < due ?? .infinity { due = p.until }
        pollsDue = due
        loop.arm(pollTimer, at: due)
    }

    /// The poll timer came: every poll whose wait is over is answered, in one turn.
    func pollsWaitRanOut() {
        let due = pollsDue ?? -.infinity
        pollsDue = nil
        turn("a poll's wait ran out") { [unowned self] now in
            let over = max(due, now.mono)
            self.answerPolls(at: now) { $0.until <= over }
            return []
        }
    }

    /// A parked reply closed (Oriel went away, or its answer went out): out of `polls`.
    func dropClosedPolls() {
        let before = polls.count
        polls.removeAll { !$0.reply.isOpen }
        if polls.count != before { armPollTimer() }
    }

    func earsAnswer(_ items: [OutboxItem], at now: Moment) -> HTTPResponse {
        metrics.taken(items, at: now.mono)
        var out = JSONOut()
        EarsAnswer(boot: boot, items: items, next: body.outbox.next).write(to: &out)
        return .json(200, out.bytes)
    }

    func answer(_ poll: Poll, at now: Moment) {
        // One whose client left is not answered: it waits in `polls` only
        // until the server's run that closed it ends (`pollsClosed`).
        guard poll.reply.isOpen, !poll.reply.isSent else { return }
        let items = changeBody { $0.poll(after: poll.after, at: now) }
        poll.reply.send(earsAnswer(items, at: now))
    }

    /// Takes every parked poll `ready` picks out of `polls` and answers it,
    /// in the order they came; no list is made.
    func answerPolls(at now: Moment, _ ready: (Poll) -> Bool) {
        var i = 0
        var took = false
        while i < polls.count {
            guard ready(polls[i]) else { i += 1; continue }
            let poll = polls.remove(at: i)
            took = true
            answer(poll, at: now)
        }
        if took { armPollTimer() }
    }

    /// An item was queued: every parked poll it is news to is answered now.
    func wakePolls(at now: Moment) {
        // The body lent, not read: a read of it would copy every field.
        answerPolls(at: now) { poll in self.lendBody { $0.hasNews(after: poll.after) } }
    }
}
