import Glibc
internal import CMicroHTTPD

/// Connections whose client hung up before finishing a request head, found
/// by the kernel (EPOLLRDHUP) rather than by libmicrohttpd.
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
final class HangupWatch {
    private let epoll: Int32
    /// Every open connection's socket.
    private var sockets: [OpaquePointer: Int32] = [:]
    /// Registration ids of the connections waiting for a head, both ways.
    private var ids: [OpaquePointer: UInt64] = [:]
    private var connections: [UInt64: OpaquePointer] = [:]
    private var nextID: UInt64 = HangupWatch.firstID

    /// `epoll_event.data` of the server's own two descriptors; connections count up from 2.
    static let mhdTag: UInt64 = 0
    static let wakeTag: UInt64 = 1
    private static let firstID: UInt64 = 2

    init(epoll: Int32) { self.epoll = epoll }

    /// A new connection: it waits for its first head.
    func opened(_ connection: OpaquePointer, fd: Int32) {
        guard fd >= 0 else { return }
        sockets[connection] = fd
        awaitHead(connection)
    }

    /// An answer went out and the connection stays open for the next head.
    func awaitHead(_ connection: OpaquePointer) {
        guard let fd = sockets[connection], ids[connection] == nil else { return }
        let id = nextID
        nextID += 1
        var ev = epoll_event()
        ev.events = EPOLLRDHUP.rawValue
        ev.data.u64 = id
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev) == 0 else { return }
        ids[connection] = id
        connections[id] = connection
    }

    /// The head arrived: from here the request's own handling hears the client.
    func headArrived(_ connection: OpaquePointer) {
        guard let id = ids.removeValue(forKey: connection), let fd = sockets[connection] else { return }
        connections.removeValue(forKey: id)
        epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
    }

    /// MHD is closing the connection (its socket is still open).
    func closed(_ connection: OpaquePointer) {
        headArrived(connection)
        suspects.remove(connection)
        sockets.removeValue(forKey: connection)
    }

    /// Hung-up connections seen in an earlier run, not yet shut down.
    private var suspects: Set<OpaquePointer> = []
    /// True while a suspect waits for MHD's next run.
    var wantsRun: Bool { !suspects.isEmpty }

    /// Call after each `MHD_run`, with whether MHD has nothing left to read
    /// (its timeout is not zero). A connection whose client hung up is shut
    /// down only once MHD has had a whole run since, and has drained what it
    /// could read: a whole head that came with the FIN is read first, and a
    /// new connection's first bytes are not taken for a half head.
    func shutDownHungUp(mhdDrained: Bool) {
        // Level-triggered: one call with room for every registration sees
        // each ready one once (a loop of smaller calls would go round forever).
        var events = [epoll_event](repeating: epoll_event(), count: connections.count + 2)
        var hung: Set<OpaquePointer> = []
        let n = Int(epoll_wait(epoll, &events, Int32(events.count), 0))
        for event in events[0..<max(0, n)] where event.events & EPOLLRDHUP.rawValue != 0 {
            if let connection = connections[event.data.u64] { hung.insert(connection) }
        }
        suspects.formIntersection(hung)  // the ones that got their head meanwhile are gone
        for connection in hung {
            guard mhdDrained, suspects.contains(connection), let fd = sockets[connection] else {
                suspects.insert(connection)
                continue
            }
            suspects.remove(connection)
            headArrived(connection)
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }
}
