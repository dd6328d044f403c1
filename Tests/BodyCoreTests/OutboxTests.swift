import Testing
@testable import BodyCore

@Suite("The outbox Oriel polls at /ears (DESIGN 4, rule 6)")
struct OutboxTests {
    static let start: UInt64 = 1_764_500_100_000
    var box = Outbox(startMillis: start)

    func ask(_ id: String) -> Request {
        request("onair", id, ["on": .bool(true), "by": .string("studio")])
    }

    @Test("seqs grow from the start time in milliseconds; next is the newest assigned")
    mutating func seqs() throws {
        #expect(box.next == Self.start)
        let a = try box.enqueue(ask("a"))
        let b = try box.enqueue(ask("b"))
        #expect(a.seq == Self.start + 1)
        #expect(b.seq == Self.start + 2)
        #expect(box.next == Self.start + 2)
        #expect(!a.delivered)
    }

    @Test("an item writes the bytes of its JSON object (keys in byte order, seq, kind and id over fields of those names)")
    func itemWrites() {
        let item = OutboxItem(seq: Self.start + 1, request: request("onair", "a", [
            "on": .bool(true), "by": .string("studio"), "zz": .null, "id": .string("shadowed"),
            "Kind": .number(1.5), "a\"b": .array([.string("x")])]), delivered: false)
        var written = JSONOut()
        item.write(to: &written)
        var value = JSONOut()
        value.value(item.json)
        #expect(written.bytes == value.bytes)
        #expect(String(decoding: written.bytes, as: UTF8.self).hasPrefix(#"{"Kind":1.5,"a\"b":["x"],"by":"studio","id":"a","#))
    }

    @Test("an item writes the bytes of its JSON object with fields between, before and after its own keys, or none")
    func itemWritesMerged() {
        let cases: [[String: JSON]] = [
            [:], ["by": .string("studio")], ["ida": .number(1), "kinda": .bool(false), "seq": .null, "kind": .null],
            ["": .null, "i": .null, "z": .string("last"), "sep": .null, "seqq": .null, "\u{e9}": .null],
        ]
        for fields in cases {
            let item = OutboxItem(seq: Self.start + 7, request: request("eyes_kill", "0123456789abcdef", fields), delivered: true)
            var written = JSONOut()
            item.write(to: &written)
            var value = JSONOut()
            value.value(item.json)
            #expect(written.bytes == value.bytes)
        }
    }

    @Test("hasPending says whether pending has anything, a cursor ahead of ours included")
    mutating func hasPending() throws {
        #expect(!box.hasPending(after: 0))
        _ = try box.enqueue(ask("a"))
        for after in [0, Self.start, Self.start + 1, Self.start + 5] {
            #expect(box.hasPending(after: after) == !box.pending(after: after).isEmpty)
        }
    }

    @Test("an item reads as {seq, kind, id, ...fields}")
    mutating func itemJSON() throws {
        let item = try box.enqueue(ask("a"))
        #expect(item.json == .object(["seq": .number(Double(Self.start + 1)), "kind": .string("onair"),
                                      "id": .string("a"), "on": .bool(true), "by": .string("studio")]))
    }

    @Test("a poll returns every item after N and marks it delivered, keeping it until acknowledged")
    mutating func pollDelivers() throws {
        _ = try box.enqueue(ask("a"))
        _ = try box.enqueue(ask("b"))
        let got = box.poll(after: 0)
        #expect(got.map(\.request.id) == ["a", "b"])
        #expect(got.map(\.delivered) == [true, true])
        #expect(box.items.count == 2)
        #expect(box.poll(after: 0).count == 2)
    }

    @Test("after=N acknowledges every item at or before N")
    mutating func ack() throws {
        let a = try box.enqueue(ask("a"))
        let b = try box.enqueue(ask("b"))
        #expect(box.poll(after: a.seq).map(\.seq) == [b.seq])
        #expect(box.items.map(\.seq) == [b.seq])
        #expect(box.poll(after: b.seq).isEmpty)
        #expect(box.items.isEmpty)
        #expect(box.next == b.seq)
    }

    @Test("pending shows what a poll would return without taking or acknowledging anything")
    mutating func pending() throws {
        let a = try box.enqueue(ask("a"))
        _ = try box.enqueue(ask("b"))
        #expect(box.pending(after: a.seq).map(\.request.id) == ["b"])
        #expect(box.items.count == 2)
        #expect(!box.items[0].delivered)
    }

    @Test("an item whose wait ran out is withdrawn if Oriel has not taken it")
    mutating func withdraw() throws {
        let a = try box.enqueue(ask("a"))
        _ = try box.enqueue(ask("b"))
        #expect(box.withdraw(id: "a")?.seq == a.seq)
        #expect(box.items.map(\.request.id) == ["b"])
        #expect(box.withdraw(id: "a") == nil)
        #expect(box.withdraw(id: "nobody") == nil)
        let b = box.items[0]
        _ = box.poll(after: b.seq)
        #expect(box.withdraw(id: "b") == nil)
    }

    @Test("a withdrawn item's seq is never given again")
    mutating func seqNotReused() throws {
        let a = try box.enqueue(ask("a"))
        box.withdraw(id: "a")
        #expect(try box.enqueue(ask("b")).seq == a.seq + 1)
    }

    @Test("the outbox is bounded and says so when full, instead of losing a request")
    mutating func full() throws {
        #expect(Outbox.capacity == 64)
        for i in 0..<Outbox.capacity { _ = try box.enqueue(ask("r\(i)")) }
        #expect(throws: OutboxFull(capacity: 64)) { try box.enqueue(ask("one too many")) }
        #expect(box.items.count == 64)
        #expect(box.next == Self.start + 64)
        #expect(OutboxFull(capacity: 64).description
            == "the outbox is full: 64 requests wait for Oriel to take them; is Oriel polling /ears?")
        _ = box.poll(after: Self.start + 1)
        #expect(try box.enqueue(ask("room again")).seq == Self.start + 65)
    }

    @Test("a cursor from before a restart never hides a new item")
    func cursorFromBeforeRestart() throws {
        var before = Outbox(startMillis: 1_764_500_000_000)
        for i in 0..<3 { _ = try before.enqueue(ask("old\(i)")) }
        let cursor = before.next
        var after = Outbox(startMillis: 1_764_500_090_000)
        let fresh = try after.enqueue(ask("new"))
        #expect(fresh.seq > cursor)
        #expect(after.poll(after: cursor).map(\.request.id) == ["new"])
    }

    @Test("a cursor ahead of this boot's seqs (the clock stepped back) moves the seqs past it")
    func cursorAhead() throws {
        var box = Outbox(startMillis: 1_000)
        _ = try box.enqueue(ask("a"))
        _ = try box.enqueue(ask("b"))
        let got = box.poll(after: 5_000)
        #expect(got.map(\.request.id) == ["a", "b"])
        #expect(got.map(\.seq) == [5_001, 5_002])
        #expect(box.next == 5_002)
        #expect(try box.enqueue(ask("c")).seq == 5_003)
        #expect(box.poll(after: 5_002).map(\.request.id) == ["c"])
    }

    @Test("a cursor ahead at the furthest taken (10^15): seqs past it, and every seq handed out past it is taken back as a cursor")
    func cursorAtTheLargest() throws {
        var box = Outbox(startMillis: 1_000)
        _ = try box.enqueue(ask("a"))
        let largest: UInt64 = 1_000_000_000_000_000
        #expect(Outbox.largestAfter == largest)
        #expect(box.refusal(after: largest) == nil)
        #expect(box.poll(after: largest).map(\.seq) == [largest + 1])
        #expect(try box.enqueue(ask("b")).seq == largest + 2)
        // Oriel's next cursor is past 10^15 now, and must be taken: it is ours.
        #expect(box.refusal(after: largest + 1) == nil)
        #expect(box.poll(after: largest + 1).map(\.request.id) == ["b"])
        #expect(box.refusal(after: box.next) == nil)
        #expect(box.refusal(after: box.next + 1) != nil, "one past every seq and past 10^15")
    }

    // 2^64 - 1 and one press trapped the body (`next += 1` overflowed after the
    // items were moved past the cursor); a cursor just past 10^15 from before a
    // restart, clamped, once let a press take that seq and be acknowledged unseen.
    @Test("a cursor ahead past 10^15 is refused in words and changes nothing: no seq moved, nothing acknowledged",
          arguments: [UInt64.max, UInt64.max - 1, 1 << 60, 1_000_000_000_000_001])
    func cursorPastTheLargest(cursor: UInt64) throws {
        var box = Outbox(startMillis: 1_000)
        let a = try box.enqueue(ask("a"))
        let words = try #require(box.refusal(after: cursor))
        #expect(words == "after must be a seq this body handed out (the newest is 1001) or at most 1000000000000000, not \(cursor)")
        box.acknowledge(after: cursor)
        #expect(box.items.map(\.seq) == [a.seq])
        #expect(box.next == a.seq)
        #expect(try box.enqueue(ask("b")).seq == a.seq + 1)
        #expect(box.poll(after: 0).map(\.request.id) == ["a", "b"])
    }

    @Test("a cursor ahead sees every item as pending, and a waiting poll's acknowledgement takes none of them")
    func cursorAheadPendingAndWaiting() throws {
        var box = Outbox(startMillis: 1_000)
        _ = try box.enqueue(ask("a"))
        #expect(box.pending(after: 5_000).map(\.request.id) == ["a"], "a poll must not wait while this is here")
        box.acknowledge(after: 5_000)
        let got = box.poll(after: 5_000)
        #expect(got.map(\.request.id) == ["a"])
        #expect(got.map(\.seq) == [5_001])
        box.acknowledge(after: 5_001)
        #expect(box.pending(after: 5_001).isEmpty)
    }

    @Test("an empty outbox polled with a cursor ahead starts after it")
    func emptyCursorAhead() throws {
        var box = Outbox(startMillis: 1_000)
        #expect(box.poll(after: 9_000).isEmpty)
        #expect(box.next == 9_000)
        #expect(try box.enqueue(ask("a")).seq == 9_001)
    }
}
