import Testing
@testable import BodyAgent
@testable import BodyHTTP

/// Oriel's parked polls on their own, at literal times: no agent, no server.
@Suite("Parked polls: in the order they came, timed by the earliest wait")
struct ParkedPollsTests {
    func poll(after: UInt64, until: Double) -> Poll {
        Poll(reply: HTTPReply(), after: after, until: until)
    }

    @Test("the due time is the earliest wait's end, and follows what is taken")
    func due() {
        var polls = ParkedPolls()
        #expect(polls.due == nil)
        polls.park(poll(after: 1, until: 1030))
        polls.park(poll(after: 2, until: 1010))
        polls.park(poll(after: 3, until: 1020))
        #expect(polls.due == 1010)
        var answered: [UInt64] = []
        polls.take(where: { $0.until <= 1010 }) { answered.append($0.after) }
        #expect(answered == [2])
        #expect(polls.due == 1020)
        polls.take(where: { _ in false }) { answered.append($0.after) }
        #expect(answered == [2] && polls.due == 1020, "nothing taken, nothing moved")
    }

    @Test("taken in the order they came, the others left in theirs")
    func order() {
        var polls = ParkedPolls()
        for (after, until) in [(5, 1040.0), (1, 1010), (7, 1030), (2, 1020)] {
            polls.park(poll(after: UInt64(after), until: until))
        }
        var answered: [UInt64] = []
        polls.take(where: { $0.after < 6 }) { answered.append($0.after) }
        #expect(answered == [5, 1, 2])
        #expect(polls.waiting.map(\.after) == [7])
        #expect(polls.due == 1030)
    }

    @Test("a reply that closed is let go at the next look, and only then; the due time moves")
    func closed() {
        var polls = ParkedPolls()
        let gone = poll(after: 1, until: 1010)
        polls.park(gone)
        polls.park(poll(after: 2, until: 1020))
        #expect(polls.dropClosed() == false, "nothing closed yet")
        gone.reply.close()
        #expect(polls.count == 2, "kept until the run that closed it ends")
        #expect(polls.dropClosed() == true)
        #expect(polls.waiting.map(\.after) == [2])
        #expect(polls.due == 1020)
        #expect(polls.dropClosed() == false, "said once")
    }

    @Test("the stop takes them all, and nothing is due after")
    func takeAll() {
        var polls = ParkedPolls()
        polls.park(poll(after: 1, until: 1010))
        polls.park(poll(after: 2, until: 1020))
        #expect(polls.takeAll().map(\.after) == [1, 2])
        #expect(polls.isEmpty && polls.due == nil)
    }
}
