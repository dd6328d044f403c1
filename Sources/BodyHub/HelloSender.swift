import BodySystem
import Synchronization

/// Says hello to Oriel off the caller's thread: `POST {oriel}/api/bodies/hello`.
///
/// Requests run one at a time, in the order sent, on a worker thread that
/// lives while there is work; `done` is called on that thread (the agent hands
/// it to its loop with `loop.post`). When to retry is the caller's decision.
public final class HelloSender: Sendable {
    /// Oriel's route for a body's hello (DESIGN 5).
    public static let path = "/api/bodies/hello"

    private struct Job: Sendable {
        var url: String
        var token: String
        var body: [UInt8]
        var done: @Sendable (Result<HubResponse, HubError>) -> Void
    }

    private let client: HubClient
    private let queue = Mutex<(jobs: [Job], running: Bool)>(([], false))

    public init(client: HubClient) {
        self.client = client
    }

    /// The hello URL for Oriel's base URL (`oriel.url`), with or without a trailing slash.
    public static func url(oriel: String) -> String {
        var base = Substring(oriel)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + path
    }

    /// Queues a POST of `body` (the hello JSON) to `url`, the whole hello URL (`HelloSender.url(oriel:)`).
    public func send(url: String, token: String, body: [UInt8], done: @escaping @Sendable (Result<HubResponse, HubError>) -> Void) {
        let job = Job(url: url, token: token, body: body, done: done)
        let start = queue.withLock { q in
            q.jobs.append(job)
            if q.running { return false }
            q.running = true
            return true
        }
        guard start else { return }
        do throws(Errno) { try WorkerThread.detach { [self] in drain() } } catch {
            // No thread: every queued hello fails now, with the reason.
            let stranded = queue.withLock { q in
                q.running = false
                defer { q.jobs = [] }
                return q.jobs
            }
            for job in stranded {
                job.done(.failure(HubError(part: client.part, method: "POST", url: job.url,
                                           reason: .failed("cannot start a thread: \(error.words)"))))
            }
        }
    }

    private func drain() {
        while let job = queue.withLock({ q -> Job? in
            if q.jobs.isEmpty { q.running = false; return nil }
            return q.jobs.removeFirst()
        }) {
            job.done(client.post(job.url, token: job.token, json: job.body))
        }
    }
}
