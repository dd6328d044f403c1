/// One item Oriel reads from `/ears`.
public struct OutboxItem: Equatable, Sendable {
    public var seq: UInt64
    public var request: Request
    /// Whether a poll has carried it to Oriel (not yet acknowledged).
    public var delivered: Bool

    /// `{"seq":…, "kind":…, "id":…, …}` as Oriel reads it.
    public var json: JSON {
        var o = request.fields
        o["seq"] = .number(Double(seq))
        o["kind"] = .string(request.kind)
        o["id"] = .string(request.id)
        return .object(o)
    }
}

extension OutboxItem: JSONWritable {
    /// The bytes `JSONOut.value(json)` writes, keys in byte order, without
    /// building the object: the `/ears` answer writes one for every item.
    /// The three keys of its own are in byte order already ("id" < "kind" < "seq");
    /// the fields' keys (a request has one to three) are merged in between them,
    /// so only the fields are ever compared, and each is read by its index.
    public func write(to out: inout JSONOut) {
        out.object { o in
            var field = nextField(after: nil)
            for own in OwnKey.allCases {
                while let f = field, JSONOut.byteOrder(request.fields[f].key, own.word) {
                    let (key, value) = request.fields[f]
                    o.key(key)
                    o.value(value)
                    field = nextField(after: key)
                }
                o.key(own.word)
                switch own {
                case .id: o.string(request.id)
                case .kind: o.string(request.kind)
                case .seq: o.number(Double(seq))
                }
                // A field of an own key's name is shadowed by it, as in `json`.
                if let f = field, request.fields[f].key == own.word { field = nextField(after: own.word) }
            }
            while let f = field {
                let (key, value) = request.fields[f]
                o.key(key)
                o.value(value)
                field = nextField(after: key)
            }
        }
    }

    /// The item's own keys, in byte order.
    private enum OwnKey: CaseIterable {
        case id, kind, seq
        var word: String {
            switch self {
            case .id: "id"
            case .kind: "kind"
            case .seq: "seq"
            }
        }
    }

    /// The field whose key is the least after `last` in byte order (the first when nil).
    private func nextField(after last: String?) -> [String: JSON].Index? {
        var best: [String: JSON].Index?
        let fields = request.fields
        var i = fields.startIndex
        while i != fields.endIndex {
            let key = fields[i].key
            if last.map({ JSONOut.byteOrder($0, key) }) ?? true,
               best.map({ JSONOut.byteOrder(key, fields[$0].key) }) ?? true {
                best = i
            }
            fields.formIndex(after: &i)
        }
        return best
    }
}

public struct OutboxFull: Error, Equatable, CustomStringConvertible {
    public let capacity: Int
    public var description: String {
        "the outbox is full: \(capacity) requests wait for Oriel to take them; is Oriel polling /ears?"
    }
}

/// The requests waiting for Oriel. Seqs only grow, across restarts too: they
/// start from the start time in milliseconds. An item stays until a poll
/// arrives with `after` at or past its seq, or until its request's wait runs
/// out (rule 6).
public struct Outbox: Equatable, Sendable {
    /// Our bound, not the house's: every item's wait runs out within 20 s, so
    /// 64 is only reached when a person presses faster than Oriel polls.
    public static let capacity = 64

    /// The furthest a cursor ahead of every seq handed out may be: milliseconds
    /// to the year 33658. Seqs moved past it stay far below 2^53 (JSON writes
    /// them exactly) and below overflow (a cursor of 2^64 - 1 and a press
    /// trapped the body); a cursor at or before `next` is always taken.
    public static let largestAfter: UInt64 = 1_000_000_000_000_000

    public private(set) var items: [OutboxItem] = []
    /// The newest seq assigned so far: Oriel's next `after`.
    public private(set) var next: UInt64

    public init(startMillis: UInt64) {
        next = startMillis
    }

    public mutating func enqueue(_ request: Request) throws(OutboxFull) -> OutboxItem {
        guard items.count < Self.capacity else { throw OutboxFull(capacity: Self.capacity) }
        next += 1
        let item = OutboxItem(seq: next, request: request, delivered: false)
        items.append(item)
        return item
    }

    /// A poll with `after`: acknowledges everything at or before it and
    /// returns (marking as delivered) everything after it.
    public mutating func poll(after: UInt64) -> [OutboxItem] {
        acknowledge(after: after)
        for i in items.indices { items[i].delivered = true }
        return items
    }

    /// Why a poll with `after` is refused (nil: taken): a cursor ahead of every
    /// seq handed out and past `largestAfter`, which no boot's clock gives.
    public func refusal(after: UInt64) -> String? {
        guard after > next, after > Self.largestAfter else { return nil }
        return "after must be a seq this body handed out (the newest is \(next)) or at most \(Self.largestAfter), not \(after)"
    }

    /// A poll that waits: acknowledges everything at or before `after`,
    /// takes nothing. A cursor `refusal` refuses changes nothing.
    public mutating func acknowledge(after: UInt64) {
        if after > next {
            guard refusal(after: after) == nil else { return }
            // A cursor from before a restart whose clock ran ahead of ours:
            // move every seq past it, so the cursor hides nothing new.
            for i in items.indices { items[i].seq = after + UInt64(i) + 1 }
            next = after + UInt64(items.count)
        }
        items.removeAll { $0.seq <= after }
    }

    /// What a poll would return, without taking it: with a cursor ahead of
    /// ours, everything (`poll` moves it all past the cursor).
    public func pending(after: UInt64) -> [OutboxItem] {
        after > next ? items : items.filter { $0.seq > after }
    }

    /// Whether `pending(after:)` has anything, with no list made (asked at every queued item).
    public func hasPending(after: UInt64) -> Bool {
        after > next ? !items.isEmpty : items.contains { $0.seq > after }
    }

    /// Withdraws the item for a request whose wait ran out; returns it if it was there.
    @discardableResult
    public mutating func withdraw(id: String) -> OutboxItem? {
        guard let i = items.firstIndex(where: { $0.request.id == id }) else { return nil }
        return items.remove(at: i)
    }
}
