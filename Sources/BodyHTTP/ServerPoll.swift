import BodySystem

/// The server's own epoll set, which the caller's loop watches: it holds
/// MHD's epoll descriptor and a wake-up counter. Beside it, a second set the
/// loop watches too, every connection's socket for the kernel's word on
/// hang-ups (`HangupWatch`).
///
/// In external polling MHD strips its own wake-up channel, so a resume alone
/// wakes nobody; a resume counts on the counter here instead.
final class ServerPoll {
    /// `epoll_event.data` of the set's two descriptors.
    static let mhdTag: UInt64 = 0
    static let wakeTag: UInt64 = 1
    let epoll: Epoll
    /// The set of hang-ups (`HangupWatch` registers the sockets).
    let hangups: Epoll
    private let wakeCounter: EventCounter
    /// A run is due at once: a resume asked for one, or a connection
    /// closed during a run. MHD takes its listening socket out of its epoll set
    /// at the connection limit and puts it back only at the start of a later
    /// run; with no connection left, nothing would ever call that run
    /// (0.9.75 says "no timeout"), and the body would never accept again.
    private(set) var runDue = false
    /// The counter was signalled and not yet drained: only then is it read.
    private var signalled = false

    /// A set holding MHD's epoll descriptor `mhd` and a fresh counter, and a
    /// set of hang-ups with room for `connections` sockets in one wait. What
    /// was made before a failure closes with it (Epoll and EventCounter close on deinit).
    init(around mhd: Int32, connections: Int) throws(HTTPServerError) {
        do throws(Errno) {
            wakeCounter = try EventCounter()
        } catch { throw HTTPServerError("http: cannot make the wake-up eventfd", error) }
        do throws(Errno) {
            epoll = try Epoll(capacity: 2)
            hangups = try Epoll(capacity: connections + 1)
        } catch { throw HTTPServerError("http: cannot make the epoll descriptor", error) }
        let wake = wakeCounter.descriptor
        for (fd, tag) in [(FileDescriptor(rawValue: mhd), Self.mhdTag), (wake, Self.wakeTag)] {
            guard let fd else { continue }
            do throws(Errno) {
                try epoll.add(fd, .readable, registration: tag)
            } catch { throw HTTPServerError("http: cannot watch descriptor \(fd.rawValue)", error) }
        }
    }

    /// The descriptor the loop waits on; nil once closed.
    var descriptor: FileDescriptor? { epoll.descriptor }

    /// A run is due. `follows`: the caller is certain a run comes before the
    /// loop waits (within a run, or the owner said so), so the counter is not
    /// signalled: it would be written and read back in the same turn, two
    /// system calls for nothing. From anywhere else it makes
    /// `descriptor` readable so the loop calls for a run.
    func wakeUp(follows: Bool) {
        guard !runDue else { return }
        runDue = true
        guard !follows else { return }
        signalled = true
        try? wakeCounter.signal()
    }

    /// A connection closed during a run, or one that waits hung up: the next
    /// run is due at once, and the server's `wantsRun` and `timeout()` say so
    /// (the loop is awake already).
    func runAgain() { runDue = true }

    /// A run begins: what asked for it is taken.
    func runStarts() {
        runDue = false
        guard signalled else { return }
        signalled = false
        _ = try? wakeCounter.drain()
    }

    /// Closes the descriptors; safe twice.
    func close() {
        epoll.close()
        hangups.close()
        wakeCounter.close()
    }
}
