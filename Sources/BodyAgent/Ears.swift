import BodyCore
import BodyHTTP

/// A `GET /ears` that waits for an item or for its wait to run out.
final class Poll {
    let reply: HTTPReply
    let after: UInt64
    var timer: EventLoop.TimerID?

    init(reply: HTTPReply, after: UInt64) {
        self.reply = reply
        self.after = after
    }
}

/// `{"boot","items":[…],"next"}`.
struct EarsAnswer: Encodable {
    var boot: String
    var items: [JSON]
    var next: UInt64
}

extension EarsAnswer: JSONWritable {
    func write(to out: inout JSONOut) {
        out.object { o in
            o.field("boot"); o.string(boot)
            o.field("items"); o.array { a in for item in items { a.value(item) } }
            o.field("next"); o.number(next)
        }
    }
}

/// Oriel's long poll of the outbox (DESIGN 4). Whether a poll is answered
/// now or parked is the rules' (`Body.poll(after:wait:at:)`); here it is
/// carried out: a parked reply waits in `polls` with its timer.
extension Agent {
    func ears(after: UInt64, wait: Double, _ reply: HTTPReply, at now: Moment) {
        metrics.polled()
        switch body.poll(after: after, wait: wait, at: now) {
        case .answer(let items):
            reply.send(earsAnswer(items, at: now))
        case .park(let until):
            park(Poll(reply: reply, after: after), until: until)
        }
    }

    private func park(_ poll: Poll, until: Double) {
        poll.timer = loop.schedule(at: until) { [unowned self, poll] in
            poll.timer = nil
            self.turn("a poll's wait ran out") { [unowned self] now in
                self.polls.removeAll { $0 === poll }
                self.answer(poll, at: now)
                return []
            }
        }
        polls.append(poll)
        // Oriel went away: the poll is dropped now, not at its wait's end.
        poll.reply.onClose = { [weak self, weak poll] in
            guard let self, let poll else { return }
            self.loop.cancel(poll.timer)
            poll.timer = nil
            self.polls.removeAll { $0 === poll }
        }
    }

    func earsAnswer(_ items: [OutboxItem], at now: Moment) -> HTTPResponse {
        metrics.taken(items, at: now.mono)
        return .json(200, BodyJSON.encode(EarsAnswer(boot: boot, items: items.map(\.json), next: body.outbox.next)))
    }

    func answer(_ poll: Poll, at now: Moment) {
        loop.cancel(poll.timer)
        poll.timer = nil
        guard !poll.reply.isSent else { return }
        poll.reply.send(earsAnswer(body.poll(after: poll.after, at: now), at: now))
    }

    /// An item was queued: every parked poll it is news to is answered now.
    func wakePolls(at now: Moment) {
        let ready = polls.filter { body.hasNews(after: $0.after) }
        guard !ready.isEmpty else { return }
        polls.removeAll { p in ready.contains { $0 === p } }
        for poll in ready { answer(poll, at: now) }
    }
}
