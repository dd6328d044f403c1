import Glibc
import BodyCore
import BodyHub

/// The hello to Oriel (DESIGN 5): at start and after every silence, retried
/// 1 s doubling to 60 s with jitter, logged once per change of outcome.
/// Lives on the loop thread; the request itself runs on BodyHub's worker and
/// its outcome comes back through `loop.post`.
final class Hello: @unchecked Sendable {
    unowned let agent: Agent
    /// Oriel's base URL; the sender adds the hello's path.
    let oriel: String
    let sender: HelloSender
    var backoff = HelloBackoff()
    var retry: EventLoop.TimerID?
    var inFlight = false
    /// The URL the last answered hello carried.
    var answeredURL: String?

    init(agent: Agent, oriel: String) {
        self.agent = agent
        self.oriel = oriel
        sender = HelloSender(client: HubClient(timeout: 10, pin: agent.setup.config.orielPin?.curl))
    }

    /// Starts a round of hellos unless one is already going.
    func begin() {
        guard !inFlight, retry == nil else { return }
        send()
    }

    /// Oriel called the body while hellos were backing off: it is back, so
    /// say hello now rather than at the next retry.
    func orielCalled() {
        guard let pending = retry else { return }
        agent.loop.cancel(pending)
        retry = nil
        send()
    }

    /// The URL the body is reached at changed (it was announced under Avahi's
    /// host name): Oriel learns it by another hello, unless one is under way
    /// (a retry carries the new URL; a hello in flight is followed by one).
    func urlChanged() {
        guard !inFlight, retry == nil, let answeredURL, answeredURL != agent.advertisedURL else { return }
        send()
    }

    private func send() {
        inFlight = true
        let url = agent.advertisedURL
        let document = HelloBody(name: agent.setup.config.name, url: url, version: agent.setup.version,
                                 protocol: HelloDocument.protocols, boot: agent.boot,
                                 tls: agent.setup.tls.map { "\($0.pin)" })
        sender.send(url: HelloSender.url(oriel: oriel), token: agent.setup.token, body: BodyJSON.encode(document)) { [self] result in
            agent.loop.post { [self] in done(result, carried: url) }
        }
    }

    private func done(_ result: Result<HubResponse, HubError>, carried url: String) {
        inFlight = false
        guard !agent.stopping else { return }
        switch result {
        case .success(let response):
            agent.metrics.hello(.answered)
            backoff.succeeded()
            answeredURL = url
            if backoff.changes(to: "ok") { agent.log("hello: Oriel at \(HelloSender.url(oriel: oriel)) answered \(response.status)") }
            if url != agent.advertisedURL { send() }
        case .failure(let error):
            agent.metrics.hello(.failed)
            let delay = backoff.failed(jitter: Double.random(in: 0..<1))
            if backoff.changes(to: error.description) {
                agent.log("\(error); trying again, backing off from 1 s to 60 s", .warning)
            }
            retry = agent.loop.schedule(at: EventLoop.monotonic() + delay) { [self] in
                retry = nil
                send()
            }
        }
    }
}

/// The hello's body: `{"name","url","version","protocol","boot"}`.
struct HelloBody: Encodable {
    var name: String
    var url: String
    var version: String
    var `protocol`: [String: Int]
    var boot: String
    /// The pin of the body's certificate (`sha256:…`); null when it serves plain HTTP.
    @Null var tls: String?
}

extension Agent {
    /// The URL Oriel should call this body at (`BodyURL.choose`): `[body] url`,
    /// else Avahi's host name while announced, else the listen address or host name.
    var advertisedURL: String {
        BodyURL.choose(configured: setup.config.advertisedURL, announcedHost: announcedHost,
                       listenHost: setup.config.listenHost, hostName: Self.hostName(), port: port,
                       tls: setup.tls != nil).url
    }

    /// The kernel's host name (`gethostname`), nil when it cannot be read.
    static func hostName() -> String? {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count) == 0 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
