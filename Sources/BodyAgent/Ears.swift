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

/// Oriel's long poll of the outbox (DESIGN 4).
extension Agent {
    func ears(after: UInt64, wait: Double, _ reply: HTTPReply) {
        let now = Agent.moment()
        metrics.polled()
        if wait <= 0 || !body.outbox.pending(after: after).isEmpty {
            reply.send(earsAnswer(after: after, at: now))
            return
        }
        body.waits(after: after, at: now)
        let poll = Poll(reply: reply, after: after)
        poll.timer = loop.schedule(at: now.mono + wait) { [unowned self, poll] in
            poll.timer = nil
            self.polls.removeAll { $0 === poll }
            self.answer(poll, at: Agent.moment())
            self.settle()
        }
        polls.append(poll)
        // Oriel went away: the poll is dropped now, not at its wait's end.
        reply.onClose = { [weak self, weak poll] in
            guard let self, let poll else { return }
            self.loop.cancel(poll.timer)
            poll.timer = nil
            self.polls.removeAll { $0 === poll }
        }
    }

    func earsAnswer(after: UInt64, at now: Moment) -> HTTPResponse {
        let items = body.poll(after: after, at: now)
        metrics.taken(items, at: now.mono)
        return .json(200, BodyJSON.encode(EarsAnswer(boot: boot, items: items.map(\.json), next: body.outbox.next)))
    }

    func answer(_ poll: Poll, at now: Moment) {
        loop.cancel(poll.timer)
        poll.timer = nil
        guard !poll.reply.isSent else { return }
        poll.reply.send(earsAnswer(after: poll.after, at: now))
    }

    /// An item was queued: every waiting poll it is news to answers now.
    func wakePolls() {
        let now = Agent.moment()
        let ready = polls.filter { !body.outbox.pending(after: $0.after).isEmpty }
        polls.removeAll { p in ready.contains { $0 === p } }
        for poll in ready { answer(poll, at: now) }
    }
}
