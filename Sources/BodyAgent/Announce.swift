import BodyAnnounce
public import BodyConfig
import BodyCore

extension Agent {
    /// `[body] announce`: offers `_studio-body._tcp` on the bound
    /// port through avahi-daemon. The announcer runs on Avahi's own thread
    /// with values fixed here; it only ever hands lines to say back to the
    /// loop. A body without avahi-daemon runs as before and says so once.
    func startAnnouncing() {
        guard setup.config.announce else { return }
        if let why = Announcement.unreachable(listenHost: setup.config.listenHost) {
            say(why)
            return
        }
        let records = Announcement.records(name: setup.config.name, version: setup.version,
                                           protocols: HelloDocument.protocols, boot: boot,
                                           tls: setup.tls.map { "\($0.pin)" })
        // Weak, as the hello's: Avahi's thread may outlive the agent (a stop that
        // could not join it in time), and an unowned capture of a freed agent traps.
        let loop = self.loop
        let announcer = AvahiAnnouncer(service: .init(name: setup.config.name, port: port, records: records),
                                       // A turn, as every event: the page hears the line too.
                                       say: { [weak self, loop] words, level in
                                           loop.post { [weak self] in
                                               guard let self else { return }
                                               self.turn("Avahi said something") { [unowned self] _ in
                                                   self.say(words, level == .warning ? .warning : .info)
                                                   return []
                                               }
                                           }
                                       },
                                       host: { [weak self, loop] name in
                                           loop.post { [weak self] in
                                               guard let self else { return }
                                               self.turn("Avahi named the host") { [unowned self] _ in
                                                   self.announced(host: name)
                                                   return []
                                               }
                                           }
                                       })
        if let problem = announcer.start() { say(problem, .warning) }
        self.announcer = announcer
    }

    /// The service is established under Avahi's host name `name` (nil: no longer):
    /// the URL the hello carries follows it, and Oriel hears a new name at once.
    /// A withdrawal says nothing to Oriel: the name it has may well come back.
    func announced(host name: String?) {
        guard !stopping, name != announcedHost else { return }
        announcedHost = name
        guard let name else { return }
        say("announce: the hello tells Oriel \(advertisedURL) (Avahi's host name \(name))")
        helloDeeds { $0.urlChanged(to: advertisedURL) }
    }

    /// Withdraws the service before the process ends.
    func stopAnnouncing() {
        for said in announcer?.stop() ?? [] { say(said.words, said.level == .warning ? .warning : .info) }
        announcer = nil
    }
}

/// What `studio-body check` says of the URL the hello carries, asking
/// avahi-daemon for its host name as the body would.
public enum HelloURL {
    public static func described(_ config: BodyConfig) -> String {
        let everywhere = config.listenHost == "0.0.0.0" || config.listenHost == "::"
        var asked: Result<String, AnnounceError>?
        if config.advertisedURL == nil, config.announce, everywhere { asked = AvahiAnnouncer.hostName() }
        let chosen = BodyURL.choose(configured: config.advertisedURL, announcedHost: try? asked?.get(),
                                    listenHost: config.listenHost, hostName: Agent.hostName(), port: config.listenPort,
                                    tls: config.tls)
        let why = switch chosen.source {
        case .configured: "[body] url"
        case .announced: "Avahi's host name, while the body is announced over mDNS"
        case .listenAddress: "the listen address"
        case .hostName:
            if case .failure(let e)? = asked {
                "the host name: avahi-daemon cannot be asked for its own (\(e)); Oriel must resolve it, or set [body] url"
            } else {
                "the host name (announce = no); Oriel must resolve it, or set [body] url"
            }
        }
        return "\(chosen.url) (\(why))"
    }
}
