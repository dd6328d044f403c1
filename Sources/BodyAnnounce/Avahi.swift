internal import CAvahi
public import BodyCore
import BodySystem
import Dispatch

/// The body's `_studio-body._tcp` service through avahi-daemon: the one
/// file that calls avahi-client (docs/decisions.md, "mDNS through Avahi").
///
/// avahi-client runs on Avahi's own thread (`AvahiThreadedPoll`): its calls
/// wait for avahi-daemon's answer over D-Bus (up to 25 s when the daemon is
/// stuck), and the body's loop, which drives the lamp and hears the kill
/// switch, must never wait on that. Nothing here touches the body's state:
/// the service is fixed at start, the rules (`Announcement`) and every
/// avahi object are owned by Avahi's thread (its callbacks run with the
/// poll's lock held, and `start` and `stop` take the lock), and what is
/// said goes out through `say`, which the agent hands to its loop.
public final class AvahiAnnouncer: @unchecked Sendable {
    public struct Service: Sendable, Equatable {
        public var name: String
        public var port: UInt16
        public var records: [String]
        public init(name: String, port: UInt16, records: [String]) {
            (self.name, self.port, self.records) = (name, port, records)
        }
    }

    public typealias Say = @Sendable (String, LogLevel) -> Void
    /// Avahi's host name (`studio.local`) while the service is established, nil otherwise.
    public typealias Host = @Sendable (String?) -> Void

    private let service: Service
    private let say: Say
    private let host: Host
    private var hostSaid: String?
    // Owned by Avahi's thread, or whoever holds the poll's lock.
    private var rules: Announcement
    private var poll: OpaquePointer?
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    private var timer: OpaquePointer?
    /// The timer (a retry, or a reconnect) makes a new client when it fires.
    private var stopped = false

    public init(service: Service, say: @escaping Say, host: @escaping Host = { _ in }) {
        self.service = service
        self.say = say
        self.host = host
        rules = Announcement(name: service.name, port: service.port)
    }

    deinit { _ = stopNow() }

    /// Starts Avahi's thread, which makes the first client there (its D-Bus
    /// calls wait on avahi-daemon, never on the caller's thread); the client
    /// waits for avahi-daemon if it is not there yet. Nil, or the words of
    /// why nothing could start (then the body runs unannounced).
    public func start() -> String? {
        guard poll == nil, !stopped else { return nil }
        guard let made = avahi_threaded_poll_new() else { return "announce: cannot make Avahi's poll thread: out of memory; the body runs unannounced" }
        poll = made
        guard avahi_threaded_poll_start(made) == 0 else {
            avahi_threaded_poll_free(made)
            poll = nil
            return "announce: cannot start Avahi's poll thread; the body runs unannounced"
        }
        avahi_threaded_poll_lock(made)
        arm(after: 0)
        avahi_threaded_poll_unlock(made)
        return nil
    }

    /// Withdraws the service (freeing the entry group tells avahi-daemon to
    /// send its goodbyes), frees the client and ends Avahi's thread, waiting
    /// at most `seconds`: with avahi-daemon stuck, Avahi's thread can hold its
    /// lock inside a D-Bus call for 25 s, past systemd's stop timeout. Then the
    /// body stops without it, and avahi-daemon withdraws the service when the
    /// body's D-Bus connection closes. Returns what is said at the stop: the
    /// caller's loop is ending, so it says it itself. Safe twice.
    @discardableResult
    public func stop(within seconds: Double = 3) -> [(words: String, level: LogLevel)] {
        guard poll != nil else { return [] }
        final class Said: @unchecked Sendable { var lines: [(words: String, level: LogLevel)] = [] }
        let said = Said()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [self] in
            said.lines = self.stopNow()
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            return [("announce: avahi-daemon did not take the withdrawal within \(Int(seconds)) s; "
                     + "the body stops without waiting (avahi-daemon withdraws it when the body's D-Bus connection closes)",
                     .warning)]
        }
        return said.lines
    }

    /// `stop` on the caller's thread, however long avahi-daemon takes.
    private func stopNow() -> [(words: String, level: LogLevel)] {
        guard let poll else { return [] }
        avahi_threaded_poll_lock(poll)
        var said: [(String, LogLevel)] = []
        for case .log(let words, let level) in rules.stop() { said.append((words, level)) }
        stopped = true
        freeAll()
        avahi_threaded_poll_unlock(poll)
        avahi_threaded_poll_stop(poll)
        avahi_threaded_poll_free(poll)
        self.poll = nil
        return said
    }

    // MARK: On Avahi's thread (or under its lock)

    private var api: UnsafePointer<AvahiPoll>? { poll.flatMap { avahi_threaded_poll_get($0) } }

    private func freeAll() {
        if let api { cavahi_timeout_free(api, &timer) }
        if let group { avahi_entry_group_free(group) }
        group = nil
        if let client { avahi_client_free(client) }
        client = nil
    }

    private func connect() {
        guard let api, !stopped else { return }
        var error: Int32 = 0
        let me = Unmanaged.passUnretained(self).toOpaque()
        // The callback runs inside avahi_client_new already: it takes the client from its argument.
        let made = avahi_client_new(api, AvahiClientFlags(rawValue: UInt32(cavahi_flag_no_fail())), { c, state, me in
            guard let me else { return }
            Unmanaged<AvahiAnnouncer>.fromOpaque(me).takeUnretainedValue().heard(client: c, state)
        }, me, &error)
        if let made {
            client = made
        } else {
            // A failed avahi_client_new has freed the client (and any group made in its callback).
            (client, group) = (nil, nil)
            perform(rules.cannotConnect(words: words(error), at: SystemClock.monotonic()))
        }
    }

    private func heard(client c: OpaquePointer?, _ state: AvahiClientState) {
        if client == nil { client = c }
        if state != AVAHI_CLIENT_S_RUNNING { announced(nil) }
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            perform(rules.running())
        case AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION:
            perform(rules.registering())
        case AVAHI_CLIENT_CONNECTING:
            perform(rules.connecting())
        case AVAHI_CLIENT_FAILURE:
            let code = c.map { avahi_client_errno($0) } ?? -1
            perform(rules.failed(disconnected: code == cavahi_err_disconnected(), words: words(code), at: SystemClock.monotonic()))
        default:
            break
        }
    }

    private func heard(group g: OpaquePointer?, _ state: AvahiEntryGroupState) {
        // The host name the service points at: avahi-daemon may have renamed the host (a collision).
        announced(state == AVAHI_ENTRY_GROUP_ESTABLISHED ? client.flatMap { avahi_client_get_host_name_fqdn($0) }.map { String(cString: $0) } : nil)
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            perform(rules.established())
        case AVAHI_ENTRY_GROUP_COLLISION:
            perform(rules.collision(alternative: alternative(to: rules.name)))
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = (g.flatMap { avahi_entry_group_get_client($0) }).map { avahi_client_errno($0) } ?? -1
            perform(rules.groupFailed(words: words(code)))
        default:
            break
        }
    }

    private func announced(_ name: String?) {
        guard name != hostSaid else { return }
        hostSaid = name
        host(name)
    }

    private func perform(_ actions: [Announcement.Action]) {
        for action in actions {
            switch action {
            case .publish(let name):
                publish(name)
            case .withdraw:
                if let group { avahi_entry_group_reset(group) }
            case .reconnect:
                // Not from inside the failed client's own callback: on the next turn of Avahi's thread.
                arm(after: 0)
            case .retry(let at):
                arm(after: at - SystemClock.monotonic())
            case .log(let words, let level):
                say(words, level)
            }
        }
    }

    private func publish(_ name: String) {
        guard let client, !stopped else { return }
        if group == nil {
            let me = Unmanaged.passUnretained(self).toOpaque()
            group = avahi_entry_group_new(client, { g, state, me in
                guard let me else { return }
                Unmanaged<AvahiAnnouncer>.fromOpaque(me).takeUnretainedValue().heard(group: g, state)
            }, me)
            guard group != nil else {
                perform(rules.groupFailed(words: words(avahi_client_errno(client))))
                return
            }
        }
        guard let group else { return }
        if avahi_entry_group_is_empty(group) == 0 { avahi_entry_group_reset(group) }
        let added = withCStrings(service.records) { txt, count in
            cavahi_add_service(group, name, Announcement.serviceType, service.port, txt, count)
        }
        // "Local name collision": another program on this host (avahi-publish, say) holds the name.
        if added == cavahi_err_collision() {
            perform(rules.collision(alternative: alternative(to: name)))
            return
        }
        let committed = added < 0 ? added : avahi_entry_group_commit(group)
        if committed < 0 { perform(rules.groupFailed(words: words(committed))) }
    }

    /// Avahi's next name: `studio` becomes `studio #2`, then `studio #3`.
    private func alternative(to name: String) -> String {
        guard let next = avahi_alternative_service_name(name) else { return name + " #2" }
        defer { avahi_free(next) }
        return String(cString: next)
    }

    private func arm(after seconds: Double) {
        guard let api, !stopped else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let msec = UInt32(max(0, min(seconds, 3600)) * 1000)
        let armed = cavahi_timeout_arm(api, &timer, msec, { _, me in
            guard let me else { return }
            Unmanaged<AvahiAnnouncer>.fromOpaque(me).takeUnretainedValue().reconnect()
        }, me)
        if armed != 0 { say("announce: cannot arm Avahi's timer; the body stays unannounced", .warning) }
    }

    private func reconnect() {
        if let group { avahi_entry_group_free(group) }
        group = nil
        if let client { avahi_client_free(client) }
        client = nil
        connect()
    }

    private func words(_ code: Int32) -> String { String(cString: avahi_strerror(code)) }

    /// Avahi's host name as avahi-daemon says it now (`studio.local`), for
    /// `studio-body check`; the words of why not. Waits on avahi-daemon's
    /// answer over D-Bus, so never from the body's loop.
    public static func hostName() -> Result<String, AnnounceError> {
        guard let poll = avahi_simple_poll_new() else { return .failure(AnnounceError("out of memory")) }
        defer { avahi_simple_poll_free(poll) }
        var error: Int32 = 0
        guard let client = avahi_client_new(avahi_simple_poll_get(poll), AvahiClientFlags(rawValue: 0), nil, nil, &error) else {
            return .failure(AnnounceError(String(cString: avahi_strerror(error))))
        }
        defer { avahi_client_free(client) }
        guard let name = avahi_client_get_host_name_fqdn(client) else {
            return .failure(AnnounceError(String(cString: avahi_strerror(avahi_client_errno(client)))))
        }
        return .success(String(cString: name))
    }
}

/// Why avahi-daemon could not be asked, in its words.
public struct AnnounceError: Error, CustomStringConvertible {
    public let description: String
    public init(_ words: String) { description = words }
}

/// The strings as a C array of `const char *` for the duration of `body`.
/// Copies made and freed by Swift (no `strdup`, no `free`).
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>, Int32) -> R) -> R {
    let copies = strings.map { s -> UnsafeMutableBufferPointer<CChar> in
        let c = s.utf8CString
        let copy = UnsafeMutableBufferPointer<CChar>.allocate(capacity: c.count)
        _ = copy.initialize(from: c)
        return copy
    }
    defer { copies.forEach { $0.deallocate() } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0.baseAddress) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!, Int32($0.count)) }
}
