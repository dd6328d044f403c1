import BodyAnnounce
import BodyCore

extension Agent {
    /// `[body] announce` (issue 14): offers `_studio-body._tcp` on the bound
    /// port through avahi-daemon. The announcer runs on Avahi's own thread
    /// with values fixed here; it only ever hands lines to say back to the
    /// loop. A body without avahi-daemon runs as before and says so once.
    func startAnnouncing() {
        guard setup.config.announce else { return }
        if let why = Announcement.unreachable(listenHost: setup.config.listenHost) {
            log(why)
            return
        }
        let records = Announcement.records(name: setup.config.name, version: setup.version,
                                           protocols: HelloDocument.protocols, boot: boot)
        let loop = self.loop, log = self.log
        let announcer = AvahiAnnouncer(service: .init(name: setup.config.name, port: port, records: records)) { words, level in
            loop.post { log(words, level == .warning ? .warning : .info) }
        }
        if let problem = announcer.start() { log(problem, .warning) }
        self.announcer = announcer
    }

    /// Withdraws the service before the process ends.
    func stopAnnouncing() {
        for said in announcer?.stop() ?? [] { log(said.words, said.level == .warning ? .warning : .info) }
        announcer = nil
    }
}
