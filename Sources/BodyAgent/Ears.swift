import BodyCore
import BodyHTTP

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
        case .refuse(let words):
            reply.send(.error(400, words))
        }
    }

    private func park(_ poll: Poll) {
        polls.park(poll)
        armPollTimer()
    }

    /// The poll timer, armed for the earliest parked wait's end (none: disarmed).
    func armPollTimer() {
        loop.arm(pollTimer, at: polls.due)
    }

    /// The poll timer came: every poll whose wait is over is answered, in one turn.
    func pollsWaitRanOut() {
        let due = polls.due ?? -.infinity
        turn("a poll's wait ran out") { [unowned self] now in
            let over = max(due, now.mono)
            self.answerPolls(at: now) { $0.until <= over }
            // Armed again whatever was answered: the timer that came is spent.
            self.armPollTimer()
            return []
        }
    }

    func earsAnswer(_ items: [OutboxItem], at now: Moment) -> HTTPResponse {
        metrics.taken(items, at: now.mono)
        var out = JSONOut()
        EarsAnswer(boot: boot, items: items, next: body.outbox.next).write(to: &out)
        return .json(200, out.bytes)
    }

    func answer(_ poll: Poll, at now: Moment) {
        // One whose client left is not answered: it waits in `polls` only
        // until the server's run that closed it ends (`ParkedPolls.dropClosed`).
        guard poll.reply.isOpen, !poll.reply.isSent else { return }
        let items = changeBody { $0.poll(after: poll.after, at: now) }
        poll.reply.send(earsAnswer(items, at: now))
    }

    /// Takes every parked poll `ready` picks out of `polls` and answers it,
    /// in the order they came; no list is made.
    func answerPolls(at now: Moment, _ ready: (Poll) -> Bool) {
        let before = polls.count
        polls.take(where: ready) { answer($0, at: now) }
        if polls.count != before { armPollTimer() }
    }

    /// An item was queued: every parked poll it is news to is answered now.
    func wakePolls(at now: Moment) {
        // The body lent, not read: a read of it would copy every field.
        answerPolls(at: now) { poll in self.lendBody { $0.hasNews(after: poll.after) } }
    }
}
