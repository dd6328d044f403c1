/// The body's DNS-SD announcement: `_studio-body._tcp` on the
/// body's port, kept up by Avahi's rules. Every word from avahi-daemon (the
/// client's state, the entry group's state) comes in here and what to do
/// comes out; the adapter does the calls. Said in the log once per change.
public struct Announcement: Sendable, Equatable {
    /// What the caller does with avahi.
    public enum Action: Equatable, Sendable {
        /// Empty the entry group if it holds anything, add the service under
        /// `name` with `Announcement.records`, and commit.
        case publish(name: String)
        /// Empty the entry group: avahi-daemon is renaming the host, the
        /// service is added again when it says it is running.
        case withdraw
        /// Free the client (and its group) and make a new one that waits for
        /// avahi-daemon (`AVAHI_CLIENT_NO_FAIL`).
        case reconnect
        /// Make a new client at this monotonic time (the system bus could not be reached).
        case retry(at: Double)
        case log(String, LogLevel)
    }

    public static let serviceType = "_studio-body._tcp"
    /// The longest wait between tries at the system bus.
    public static let longestRetry: Double = 60

    /// The name the service is offered under: the body's name, or the
    /// alternative Avahi picked after a collision.
    public private(set) var name: String
    public let port: UInt16
    /// True once avahi-daemon has said the service is established under `name`.
    public private(set) var announced = false
    private var said = RepeatFilter()
    private var retryDelay: Double = 1
    private var stopped = false

    public init(name: String, port: UInt16) {
        self.name = name
        self.port = port
    }

    /// The TXT records, in DESIGN's order of the protocol versions (the hello's
    /// `protocol`), and `tls=sha256:…` (the pin) when the body serves HTTPS.
    public static func records(name: String, version: String, protocols: [String: Int], boot: String,
                               tls pin: String? = nil) -> [String] {
        let order = ["onair", "eyes", "where", "ears"]
        let keys = order.filter { protocols[$0] != nil } + protocols.keys.filter { !order.contains($0) }.sorted()
        let versions = keys.map { "\($0)=\(protocols[$0]!)" }.joined(separator: ",")
        // A TXT string is at most 255 bytes; the name is cut on a character, not a byte.
        var shown = name
        while ("name=" + shown).utf8.count > 255 { shown.removeLast() }
        return ["name=\(shown)", "version=\(version)", "protocol=\(versions)", "boot=\(boot)", "path=/hello"]
            + (pin.map { ["tls=\($0)"] } ?? [])
    }

    /// Why a body listening on `host` is not announced, or nil. A loopback
    /// address is reachable from this machine only, so offering it to the
    /// network would send Oriel to a port it cannot reach.
    public static func unreachable(listenHost host: String) -> String? {
        let h = host.lowercased()
        guard h == "localhost" || h == "::1" || h.hasPrefix("127.") else { return nil }
        return "announce: not announced: [body] listen is on \(host), which only this machine can reach"
    }

    /// avahi-daemon is up and its host name is settled: offer the service.
    public mutating func running() -> [Action] {
        guard !stopped else { return [] }
        retryDelay = 1
        return [.publish(name: name)]
    }

    /// avahi-daemon is (re)registering its host name, or the host name
    /// collided: the service waits, withdrawn, until `running`.
    public mutating func registering() -> [Action] {
        guard !stopped else { return [] }
        announced = false
        return [.withdraw]
    }

    /// The client waits for avahi-daemon to appear.
    public mutating func connecting() -> [Action] {
        guard !stopped else { return [] }
        announced = false
        return say("announce: avahi-daemon is not running or not reachable on the system bus; the body runs unannounced and announces itself when avahi-daemon starts", .warning)
    }

    /// The client failed. A daemon gone away (`AVAHI_ERR_DISCONNECTED`, as
    /// when it restarts) is waited for by a fresh client; any other failure
    /// tries a fresh client after a wait, 1 s doubling to a minute.
    public mutating func failed(disconnected: Bool, words: String, at now: Double) -> [Action] {
        guard !stopped else { return [] }
        announced = false
        if disconnected {
            return say("announce: avahi-daemon went away (\(words)); announcing again when it is back", .warning) + [.reconnect]
        }
        return cannotConnect(words: words, at: now)
    }

    /// No client could be made at all (no system bus, say): try again later.
    public mutating func cannotConnect(words: String, at now: Double) -> [Action] {
        guard !stopped else { return [] }
        announced = false
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, Self.longestRetry)
        return say("announce: cannot reach avahi-daemon over the system bus: \(words); the body runs unannounced and tries again, backing off from 1 s to 60 s", .warning)
            + [.retry(at: now + delay)]
    }

    /// avahi-daemon says the service is on the network under `name`.
    public mutating func established() -> [Action] {
        guard !stopped else { return [] }
        announced = true
        return say("announce: announced as \"\(name)\" (\(Self.serviceType) on port \(port))", .info)
    }

    /// The name is taken (on the network, or by another program on this
    /// host): take Avahi's alternative and offer the service again.
    public mutating func collision(alternative: String) -> [Action] {
        guard !stopped else { return [] }
        let old = name
        name = alternative
        announced = false
        return say("announce: the name \"\(old)\" is taken by another \(Self.serviceType) service; renamed to \"\(alternative)\"", .warning)
            + [.publish(name: alternative)]
    }

    /// The entry group failed, or the service could not be added.
    public mutating func groupFailed(words: String) -> [Action] {
        guard !stopped else { return [] }
        announced = false
        return say("announce: avahi-daemon refused the service \"\(name)\": \(words)", .warning)
    }

    /// The body stops: nothing more is done; the caller frees the group, which withdraws the service.
    public mutating func stop() -> [Action] {
        guard !stopped else { return [] }
        stopped = true
        let was = announced
        announced = false
        return was ? [.log("announce: withdrawn \"\(name)\"", .info)] : []
    }

    /// One line per change of what is said.
    private mutating func say(_ words: String, _ level: LogLevel) -> [Action] {
        guard let line = said.say(words, about: "announce") else { return [] }
        return [.log(line, level)]
    }
}
