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
/// limit and the body stops answering. So each connection waiting for a head
/// is also in the server's own epoll set for EPOLLRDHUP; when it fires and MHD
/// still has no head, the socket is shut down, which wakes MHD with EPOLLHUP
/// and it closes the connection.
///
/// A suspended connection is out of MHD's epoll set altogether, so a client
/// that leaves a long poll would be heard only at the answer. Its hang-up is
/// handed back to the server instead, which closes the reply and resumes it.
final class HangupWatch {
    enum Waiting { case head, answer }

    private let epoll: Epoll
    /// Every open connection's socket.
    private var sockets: [OpaquePointer: FileDescriptor] = [:]
    /// Registration ids of the watched connections, both ways.
    private var ids: [OpaquePointer: UInt64] = [:]
    private var connections: [UInt64: (connection: OpaquePointer, waiting: Waiting)] = [:]
    private var nextID: UInt64 = HangupWatch.firstID

    /// `epoll_event.data` of the server's own two descriptors; connections count up from 2.
    static let mhdTag: UInt64 = 0
    static let wakeTag: UInt64 = 1
    private static let firstID: UInt64 = 2

    private let clock: () -> Double
    /// When each connection began to wait for its head.
    private var headSince: [OpaquePointer: Double] = [:]
    /// Connections on which a request showed the token.
    private var trusted: Set<OpaquePointer> = []

    init(epoll: Epoll, clock: @escaping () -> Double) {
        self.epoll = epoll
        self.clock = clock
    }

    /// A request on this connection showed the token: no head deadline for it.
    func trust(_ connection: OpaquePointer) { trusted.insert(connection) }

    /// The untrusted connections whose head is not whole `limit` seconds
    /// after they began to wait for it, no longer watched, for shutting down.
    func overdue(limit: Double) -> [FileDescriptor] {
        let now = clock()
        let late = headSince.filter { !trusted.contains($0.key) && now - $0.value >= limit }.map(\.key)
        return late.compactMap { connection in
            let fd = sockets[connection]
            unwatch(connection)
            suspects.remove(connection)
            return fd
        }
    }

    /// When the next untrusted head is due, on the clock's scale; nil when none waits.
    func nextDeadline(limit: Double) -> Double? {
        headSince.filter { !trusted.contains($0.key) }.values.min().map { $0 + limit }
    }

    /// The connection's socket, while MHD holds it open.
    func socket(of connection: OpaquePointer) -> FileDescriptor? { sockets[connection] }

    /// A new connection: it waits for its first head.
    func opened(_ connection: OpaquePointer, fd: Int32) {
        guard fd >= 0 else { return }
        sockets[connection] = FileDescriptor(rawValue: fd)
        opening[connection] = nextOpening
        nextOpening += 1
        awaitHead(connection)
    }

    /// The order connections opened in, to find the oldest.
    private var opening: [OpaquePointer: UInt64] = [:]
    private var nextOpening: UInt64 = 0
    /// Connections shut down to make room, still open until MHD closes them.
    private var evicted: Set<OpaquePointer> = []

    /// Connections open and not yet shut down to make room.
    var open: Int { sockets.count - evicted.count }

    /// While more than `most` are open, the oldest connection that never
    /// showed the token and is not waiting for its answer, no longer watched,
    /// for shutting down; the oldest first.
    func makeRoom(most: Int) -> [FileDescriptor] {
        var out: [FileDescriptor] = []
        while open > most {
            let candidates = sockets.keys.filter { c in
                !trusted.contains(c) && !evicted.contains(c) && ids[c].flatMap { connections[$0]?.waiting } != .answer
            }
            guard let oldest = candidates.min(by: { opening[$0, default: 0] < opening[$1, default: 0] }),
                  let fd = sockets[oldest] else { break }
            evicted.insert(oldest)
            unwatch(oldest)
            suspects.remove(oldest)
            out.append(fd)
        }
        return out
    }

    /// An answer went out and the connection stays open for the next head.
    func awaitHead(_ connection: OpaquePointer) { watch(connection, .head) }

    /// The head arrived: from here the request's own handling hears the client.
    func headArrived(_ connection: OpaquePointer) { unwatch(connection) }

    /// MHD no longer watches the connection's socket: the request waits for its answer.
    func suspended(_ connection: OpaquePointer) { watch(connection, .answer) }

    /// MHD watches the socket again.
    func resumed(_ connection: OpaquePointer) { unwatch(connection) }

    private func watch(_ connection: OpaquePointer, _ waiting: Waiting) {
        guard let fd = sockets[connection], ids[connection] == nil else { return }
        let id = nextID
        nextID += 1
        guard (try? epoll.add(fd, .readHangUp, registration: id)) != nil else { return }
        ids[connection] = id
        connections[id] = (connection, waiting)
        if waiting == .head { headSince[connection] = clock() }
    }

    private func unwatch(_ connection: OpaquePointer) {
        headSince.removeValue(forKey: connection)
        guard let id = ids.removeValue(forKey: connection), let fd = sockets[connection] else { return }
        connections.removeValue(forKey: id)
        try? epoll.remove(fd)
    }

    /// MHD is closing the connection (its socket is still open).
    func closed(_ connection: OpaquePointer) {
        unwatch(connection)
        suspects.remove(connection)
        trusted.remove(connection)
        evicted.remove(connection)
        opening.removeValue(forKey: connection)
        sockets.removeValue(forKey: connection)
    }

    /// Hung-up connections seen in an earlier run, not yet shut down.
    private var suspects: Set<OpaquePointer> = []
    /// True while a suspect waits for MHD's next run.
    var wantsRun: Bool { !suspects.isEmpty }

    /// Call after each `MHD_run`, with whether MHD has nothing left to read
    /// (its timeout is not zero). A connection waiting for a head whose client
    /// hung up is shut down only once MHD has had a whole run since, and has
    /// drained what it could read: a whole head that came with the FIN is read
    /// first, and a new connection's first bytes are not taken for a half head.
    /// Returns the suspended connections whose client hung up, no longer watched.
    @discardableResult
    func shutDownHungUp(mhdDrained: Bool) -> [OpaquePointer] {
        // Level-triggered: one call with room for every registration sees
        // each ready one once (a loop of smaller calls would go round forever).
        let ready = (try? epoll.wait(maxEvents: connections.count + 2, timeout: 0)) ?? []
        var hung: Set<OpaquePointer> = []
        var left: [OpaquePointer] = []
        for event in ready where event.events.contains(.readHangUp) {
            guard let (connection, waiting) = connections[event.registration] else { continue }
            if waiting == .answer {
                unwatch(connection)
                left.append(connection)
            } else {
                hung.insert(connection)
            }
        }
        suspects.formIntersection(hung)  // the ones that got their head meanwhile are gone
        for connection in hung {
            guard mhdDrained, suspects.contains(connection), let fd = sockets[connection] else {
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
