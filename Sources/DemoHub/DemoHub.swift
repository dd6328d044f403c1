import BodyCore
import BodyHub
import BodySystem
import Synchronization

/// A small hub that behaves like Oriel toward one studio body, for `studio-body demo`.
///
/// Two threads: one long-polls the body's `/ears` and hands items over; the
/// other owns the demo's On Air and eyes state (`DemoOriel`), keeps its timers
/// and pushes every change to `POST /face`, in order. It talks to the body only
/// over HTTP, like the real Oriel.
public final class DemoHub: Sendable {
    private enum Event: Sendable {
        case appeared
        case item(JSONBytes)
    }

    private struct Inbox {
        var events: [Event] = []
        var started = false
        var stopped = false
    }

    private let base: String
    private let token: String
    private let log: @Sendable (String) -> Void
    private let client: HubClient
    private let inbox = Mutex(Inbox())
    private let bell = DemoSystem.Bell()

    /// Longest hold the hub asks of the body's `/ears` (DESIGN 4's default).
    static let pollWait = 25

    /// `pin`: the body's public key in curl's form (`sha256//BASE64`), for a
    /// body serving HTTPS: the hub trusts it by that alone, as Oriel does.
    public init(bodyURL: String, token: String, pin: String? = nil, log: @escaping @Sendable (String) -> Void) {
        client = HubClient(timeout: 5, part: "demo hub", pin: pin)
        var base = Substring(bodyURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        self.base = String(base)
        self.token = token
        self.log = log
    }

    /// Starts the hub's threads and returns; a second call does nothing.
    public func start() {
        let first = inbox.withLock { inbox in
            defer { inbox.started = true }
            return !inbox.started
        }
        guard first else { return }
        guard let bell else {
            log("demo hub: cannot start: no eventfd for its timers")
            return
        }
        log("demo hub: acting as Oriel for the studio body at \(base); On Air starts off")
        for body in [{ [self] in runState(bell) }, { [self] in runPoll() }] as [@Sendable () -> Void] {
            do { try WorkerThread.detach(body) } catch {
                log("demo hub: cannot start a thread: \(error.words)")
                stop()
                return
            }
        }
    }

    /// Stops the threads: the state thread at once, the poll thread when its request ends.
    public func stop() {
        inbox.withLock { $0.stopped = true }
        bell?.ring()
    }

    private var stopped: Bool { inbox.withLock { $0.stopped } }

    private func hand(_ event: Event) {
        inbox.withLock { $0.events.append(event) }
        bell?.ring()
    }

    // MARK: the state thread

    private func runState(_ bell: DemoSystem.Bell) {
        var oriel = DemoOriel(since: DemoSystem.wall())
        var timers: [(due: Double, change: DemoOriel.Change)] = []
        var pushError: String? = nil

        func push(_ face: JSON) {
            let result = client.post(base + "/face", token: token, json: BodyJSON.encode(face),
                                     headers: [("X-Cordelia-Doing", "the demo hub pushing a face")])
            switch result {
            case .success:
                if pushError != nil { log("demo hub: pushing faces works again") }
                pushError = nil
            case .failure(let error):
                if error.description != pushError { log(error.description) }
                pushError = error.description
            }
        }

        while true {
            bell.wait(timers.map(\.due).min().map { $0 - DemoSystem.monotonic() })
            let (events, stop) = inbox.withLock { inbox in
                defer { inbox.events = [] }
                return (inbox.events, inbox.stopped)
            }
            if stop { return }
            for event in events {
                switch event {
                case .appeared:
                    push(oriel.face())
                case .item(let item):
                    let steps = oriel.intake(item)
                    if steps.isEmpty {
                        log("demo hub: ignored an item it does not know: kind \(item["kind"]?.string ?? "none"), id \(item["id"]?.string ?? "none")")
                    }
                    let now = DemoSystem.monotonic()
                    timers += steps.map { (now + $0.after, $0.change) }
                }
            }
            while let next = timers.indices.min(by: { timers[$0].due < timers[$1].due }),
                  timers[next].due <= DemoSystem.monotonic() {
                let change = timers.remove(at: next).change
                let outcome = oriel.apply(change, now: DemoSystem.wall())
                if !outcome.log.isEmpty { log(outcome.log) }
                if let face = outcome.face { push(face) }
                let now = DemoSystem.monotonic()
                timers += outcome.then.map { (now + $0.after, $0.change) }
            }
        }
    }

    // MARK: the poll thread

    private func runPoll() {
        var cursor = 0
        var boot: String? = nil
        var failing: String? = nil
        var seen: [String] = []

        func fail(_ words: String) {
            if words != failing { log("\(words); trying every second") }
            failing = words
            DemoSystem.sleep(1)
        }

        while !stopped {
            // A quick look first (body new or back), then long polls.
            let wait = (boot == nil || failing != nil) ? 0 : Self.pollWait
            let url = "\(base)/ears?after=\(cursor)&wait=\(wait)"
            let answer: HubResponse
            switch client.get(url, token: token, timeout: Double(wait) + 10,
                              headers: [("X-Cordelia-Doing", "the demo hub listening to the body's ears")]) {
            case .failure(let error):
                fail(error.description)
                continue
            case .success(let response):
                answer = response
            }
            let document: JSONBytes
            do {
                document = try JSONBytes.parse(answer.body)
            } catch {
                fail("demo hub: the studio body's /ears answered no JSON: \(error)")
                continue
            }
            guard let now = document["boot"]?.string else {
                fail("demo hub: the studio body's /ears answered no boot id")
                continue
            }
            if now != boot {
                // A new body (or the first): its outbox starts afresh; ask again from 0.
                log(boot == nil ? "demo hub: the studio body answers at \(base) (boot \(now))"
                                : "demo hub: the studio body restarted (boot \(now)); reading its ears from the start")
                boot = now
                failing = nil
                cursor = 0
                seen = []
                hand(.appeared)
                continue
            }
            if failing != nil {
                log("demo hub: the studio body answers again")
                failing = nil
                hand(.appeared)
            }
            for item in document["items"]?.elements({ $0 }) ?? [] {
                // An item stays until acknowledged; take each id once.
                if let id = item["id"]?.string {
                    if seen.contains(id) { continue }
                    seen.append(id)
                    if seen.count > 256 { seen.removeFirst() }
                }
                hand(.item(item))
            }
            if let next = document["next"]?.number, next >= 0, next < 9e15 { cursor = Int(next) }
        }
    }
}
