import BodySystem

/// Connections whose client hung up while libmicrohttpd is not listening,
/// found by the kernel (EPOLLRDHUP) rather than by MHD: those waiting for a
/// request head, and those suspended while their answer is awaited.
///
/// libmicrohttpd 0.9.75 watches its sockets edge-triggered and treats a read
/// shorter than its buffer as "drained". A client that sends half a head and
/// closes before the connection is accepted leaves data and its FIN in the
/// socket together: MHD reads the data, never sees the FIN, and holds the
/// connection until its idle timeout. Enough of those fill the connection
/// limit and the body stops answering. So every connection is also in an
/// epoll set of hang-ups for EPOLLRDHUP; when it fires for one waiting for a
/// head and MHD still has no head, the socket is shut down, which wakes MHD
/// with EPOLLHUP and it closes the connection.
///
/// The set is a descriptor of its own in the owner's loop (the server's
/// `hangupDescriptor`), not a member of the server's set: the loop's one wait
/// then says whether anyone hung up, and a request's run looks at no set
/// after it (that look would be one `epoll_wait` a request more than
/// the C reference makes).
///
/// Each socket is registered once, when it opens, edge-triggered: the kernel
/// reports the hang-up once, and the watch remembers it for the connection's
/// life (a FIN is for good), so a request costs no `epoll_ctl` and a hang-up
/// while MHD handles the connection wakes the loop once, not for ever.
///
/// A suspended connection is out of MHD's epoll set altogether, so a client
/// that leaves a long poll would be heard only at the answer. Its hang-up is
/// handed back to the server instead, which closes the reply and resumes it.
final class HangupWatch {
    enum Waiting { case head, answer }

    private struct Watched {
        let socket: FileDescriptor
        /// `epoll_event.data`; counts up, so it is also the order connections opened in.
        let registration: UInt64
        /// What the body waits for that MHD does not hear; nil while MHD handles the connection.
        var waiting: Waiting?
        /// When it began to wait for its head.
        var headSince: Double?
        /// A request on it showed the token.
        var trusted = false
        /// Shut down to make room, still open until MHD closes it.
        var evicted = false

        /// An untrusted connection waiting for its head: one the head deadline applies to.
        var waitsForHead: Bool { !trusted && headSince != nil }

        /// The body waits for what MHD does not hear: since now, for a head
        /// (a trusted one has no head deadline). Unchanged if it already waits.
        /// Returns the change in `waitsForHead` (+1, 0, -1), as the others below.
        mutating func wait(for what: Waiting, clock: () -> Double) -> Int {
            guard waiting == nil else { return 0 }
            let was = waitsForHead
            waiting = what
            if what == .head && !trusted { headSince = clock() }
            return change(from: was)
        }

        /// MHD handles the connection again; `trusting` when a request on it showed the token.
        mutating func heard(trusting: Bool) -> Int {
            let was = waitsForHead
            waiting = nil
            headSince = nil
            if trusting { trusted = true }
            return change(from: was)
        }

        mutating func trust() -> Int {
            let was = waitsForHead
            trusted = true
            return change(from: was)
        }

        private func change(from was: Bool) -> Int { (waitsForHead ? 1 : 0) - (was ? 1 : 0) }
    }

    private let epoll: Epoll
    /// Every open connection.
    private var watched: [OpaquePointer: Watched] = [:]
    private var byRegistration: [UInt64: OpaquePointer] = [:]
    /// Open connections whose client the kernel said hung up.
    private var gone: Set<OpaquePointer> = []
    private var evictedCount = 0
    /// How many connections `waitsForHead`, kept as they change: after every
    /// run the server asks for the first, and with none it reads no table
    /// (a plain count has no runtime exclusivity check).
    private var headWaits = 0
    private var nextID: UInt64 = HangupWatch.firstID

    /// `epoll_event.data` of a connection's socket in the set, counting up.
    private static let firstID: UInt64 = 1

    private let clock: () -> Double

    /// `epoll`: the set of hang-ups, this watch's alone.
    init(epoll: Epoll, clock: @escaping () -> Double) {
        self.epoll = epoll
        self.clock = clock
    }

    /// The set of hang-ups, which the owner's loop watches; nil once closed.
    var descriptor: FileDescriptor? { epoll.descriptor }

    /// The loop said the set is readable: what it holds is taken, and kept in
    /// `gone` until the connection waits for what MHD does not hear, when the
    /// upkeep after a run decides on it (`shutDownHungUp`). Edge-triggered:
    /// each hang-up is reported once. True when one that hung up waits now,
    /// so a run is due; a connection MHD handles (most often one MHD is
    /// closing itself) needs none.
    func collect() -> Bool {
        guard let ready = try? epoll.wait(maxEvents: watched.count + 1, timeout: 0) else { return false }
        var waits = false
        for event in ready where event.events.contains(.readHangUp) {
            guard let connection = byRegistration[event.registration] else { continue }
            gone.insert(connection)
            if watched[connection]?.waiting != nil { waits = true }
        }
        return waits
    }

    /// A request on this connection showed the token: no head deadline for it.
    func trust(_ connection: OpaquePointer) {
        // Read and written back, not changed in place: the dictionary's in-place
        // accessor allocates each time.
        guard var w = watched[connection], !w.trusted else { return }
        headWaits += w.trust()
        watched[connection] = w
    }

    /// The untrusted connections waiting for a head, and since when: what the
    /// head deadline (`Deadline`) is decided on.
    var headsWaiting: [(OpaquePointer, Double)] {
        guard headWaits > 0 else { return [] }
        return watched.compactMap { connection, w in w.trusted ? nil : w.headSince.map { (connection, $0) } }
    }

    /// Since when the untrusted connection that has waited longest for its
    /// head has waited; nil when none waits. No list is made: it is asked
    /// after every run.
    var firstHeadWaiting: Double? {
        guard headWaits > 0 else { return nil }
        var first: Double?
        for w in watched.values where !w.trusted {
            if let since = w.headSince, since < first ?? .infinity { first = since }
        }
        return first
    }

    /// The connection's head is cut off: no longer watched; its socket, for shutting down.
    func cutOff(_ connection: OpaquePointer) -> FileDescriptor? {
        guard let w = watched[connection] else { return nil }
        unwatch(connection)
        suspects.remove(connection)
        return w.socket
    }

    /// The untrusted connections whose head is not whole `limit` seconds
    /// after they began to wait for it, cut off, for shutting down.
    func overdue(limit: Double) -> [FileDescriptor] {
        let heads = headsWaiting
        guard !heads.isEmpty else { return [] }  // a clock read is a system call in the VM
        return Deadline(seconds: limit).late(heads, at: clock()).compactMap(cutOff)
    }

    /// When the next untrusted head is due, on the clock's scale; nil when none waits.
    func nextDeadline(limit: Double) -> Double? {
        Deadline(seconds: limit).next(headsWaiting.map(\.1))
    }

    /// The connection's socket, while MHD holds it open.
    func socket(of connection: OpaquePointer) -> FileDescriptor? { watched[connection]?.socket }

    /// A new connection: registered for its whole life; it waits for its first head.
    func opened(_ connection: OpaquePointer, fd: Int32) {
        guard fd >= 0 else { return }
        let socket = FileDescriptor(rawValue: fd)
        let id = nextID
        nextID += 1
        // Unregistered (the kernel refused), it is still counted and can be shut down; only its hang-up goes unheard.
        try? epoll.add(socket, [.readHangUp, .edgeTriggered], registration: id)
        if let old = watched.updateValue(Watched(socket: socket, registration: id), forKey: connection), old.waitsForHead {
            headWaits -= 1
        }
        byRegistration[id] = connection
        awaitHead(connection)
    }

    /// Connections open and not yet shut down to make room.
    var open: Int { watched.count - evictedCount }

    /// While more than `most` are open, the oldest connection that never
    /// showed the token and is not waiting for its answer, no longer watched,
    /// for shutting down; the oldest first.
    func makeRoom(most: Int) -> [FileDescriptor] {
        var out: [FileDescriptor] = []
        while open > most {
            let candidates = watched.filter { !$0.value.trusted && !$0.value.evicted && $0.value.waiting != .answer }
            guard let (oldest, w) = candidates.min(by: { $0.value.registration < $1.value.registration }) else { break }
            watched[oldest]?.evicted = true
            evictedCount += 1
            unwatch(oldest)
            suspects.remove(oldest)
            out.append(w.socket)
        }
        return out
    }

    /// An answer went out and the connection stays open for the next head.
    func awaitHead(_ connection: OpaquePointer) { watch(connection, .head) }

    /// The head arrived: from here the request's own handling hears the
    /// client; `trusted` when it showed the token (as `trust`).
    func headArrived(_ connection: OpaquePointer, trusted: Bool = false) {
        // One hash a head, changed in place through the index: `unwatch` and
        // then `trust` would be up to four.
        guard let i = watched.index(forKey: connection) else { return }
        headWaits += watched.values[i].heard(trusting: trusted)
    }

    /// MHD no longer watches the connection's socket: the request waits for its answer.
    func suspended(_ connection: OpaquePointer) { watch(connection, .answer) }

    /// MHD watches the socket again.
    func resumed(_ connection: OpaquePointer) { unwatch(connection) }

    // Through the index, in place: one hash, not a read and a write back.
    private func watch(_ connection: OpaquePointer, _ waiting: Waiting) {
        guard let i = watched.index(forKey: connection) else { return }
        headWaits += watched.values[i].wait(for: waiting, clock: clock)
    }

    private func unwatch(_ connection: OpaquePointer) {
        guard let i = watched.index(forKey: connection) else { return }
        headWaits += watched.values[i].heard(trusting: false)
    }

    /// MHD is closing the connection (its socket is still open).
    func closed(_ connection: OpaquePointer) {
        suspects.remove(connection)
        gone.remove(connection)
        guard let w = watched.removeValue(forKey: connection) else { return }
        if w.waitsForHead { headWaits -= 1 }
        byRegistration.removeValue(forKey: w.registration)
        if w.evicted { evictedCount -= 1 }
        try? epoll.remove(w.socket)
    }

    /// Hung-up connections seen in an earlier run, not yet shut down.
    private var suspects: Set<OpaquePointer> = []
    /// True while a suspect waits for MHD's next run.
    var wantsRun: Bool { !suspects.isEmpty }

    /// Call after each run of MHD, with whether MHD has nothing left to read
    /// (its timeout is not zero). A connection waiting for a head whose client
    /// hung up is shut down only once MHD has had a whole run since, and has
    /// drained what it could read: a whole head that came with the FIN is read
    /// first, and a new connection's first bytes are not taken for a half head.
    /// Returns the suspended connections whose client hung up, no longer watched.
    @discardableResult
    func shutDownHungUp(mhdDrained: Bool) -> [OpaquePointer] {
        // What the loop reported was taken by `collect()`: no system call here.
        // Nobody hung up (after almost every run): no sets to make or compare.
        guard !gone.isEmpty else {
            if !suspects.isEmpty { suspects.removeAll() }
            return []
        }
        var hung: Set<OpaquePointer> = []
        var left: [OpaquePointer] = []
        for connection in gone {
            switch watched[connection]?.waiting {
            case .answer?:
                unwatch(connection)
                left.append(connection)
            case .head?: hung.insert(connection)
            case nil: break
            }
        }
        suspects.formIntersection(hung)  // the ones that got their head meanwhile are gone
        for connection in hung {
            guard mhdDrained, suspects.contains(connection), let fd = watched[connection]?.socket else {
                suspects.insert(connection)
                continue
            }
            suspects.remove(connection)
            unwatch(connection)
            try? fd.shutDown()
        }
        return left
    }
}
