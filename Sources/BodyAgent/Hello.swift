import BodyCore
import BodyHub
import BodySystem

/// The hello to Oriel (DESIGN 5), carried out: `HelloRounds` (BodyCore)
/// decides when and what is said; the request runs on BodyHub's worker and
/// its outcome comes back through `loop.post` as a turn of its own.
extension Agent {
    /// Feeds an event to the hello's rounds and carries out their deeds.
    func helloDeeds(_ event: (inout HelloRounds) -> [HelloRounds.Deed]) {
        guard hello != nil else { return }
        for deed in event(&hello!) {
            switch deed {
            case .send(let url):
                sendHello(carrying: url)
            case .retry(let delay):
                loop.cancel(helloRetry)
                helloRetry = loop.schedule(at: (turnNow ?? clock.now()).mono + delay) { [unowned self] in
                    self.helloRetry = nil
                    self.turn("the hello's retry came") { [unowned self] _ in
                        self.helloDeeds { $0.retryDue(url: self.advertisedURL) }
                        return []
                    }
                }
            case .cancelRetry:
                loop.cancel(helloRetry)
                helloRetry = nil
            case .log(let words, let warning):
                say(words, warning ? .warning : .info)
            case .counted(let answered):
                metrics.hello(answered ? .answered : .failed)
            }
        }
    }

    private func sendHello(carrying url: String) {
        guard let oriel = hello?.oriel else { return }
        let document = HelloBody(name: setup.config.name, url: url, version: setup.version,
                                 protocol: HelloDocument.protocols, boot: boot, tls: setup.tls.map { "\($0.pin)" })
        // Weak, not unowned: the sender's thread may finish a transfer after the
        // agent is gone (a stop with a hello under way), and an unowned capture
        // of a freed agent traps even in a closure the stopped loop never runs.
        helloSender.send(url: oriel, token: setup.token, body: BodyJSON.encode(document)) { [weak self, loop] result in
            loop.post { [weak self] in
                guard let self else { return }
                self.turn("the hello came back") { [unowned self] _ in
                    let jitter = Double.random(in: 0..<1)
                    self.helloDeeds {
                        switch result {
                        case .success(let response):
                            $0.done(status: response.status, carried: url, url: self.advertisedURL, jitter: jitter)
                        case .failure(let error):
                            $0.done(status: nil, failure: error.description, carried: url, url: self.advertisedURL, jitter: jitter)
                        }
                    }
                    return []
                }
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

    /// The kernel's host name (`HostName`), nil when it cannot be read.
    static func hostName() -> String? { try? HostName.current() }
}
