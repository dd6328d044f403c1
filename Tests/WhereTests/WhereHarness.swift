import BodyAgent
import BodyCore
import Foundation

/// The body's event loop on its own thread with one WhereService, driven the
/// way the HTTP layer drives it: `ask` on the loop thread, the answer back.
final class WhereHarness: @unchecked Sendable {
    struct Reply: Sendable {
        let status: Int
        let json: JSON
        /// Seconds from the ask to the answer.
        let after: Double
        var error: String? { json["error"]?.string }
    }

    let loop: EventLoop
    private let service: WhereService
    private let thread: Thread

    init(port: UInt16, allowed: Bool = true) throws {
        let loop = try EventLoop()
        self.loop = loop
        let lines = LogBox()
        service = WhereService(loop: loop, allowed: allowed, host: "127.0.0.1", port: port) { lines.append($0) }
        logBox = lines
        thread = Thread {
            do throws(LoopError) { try loop.run() } catch { lines.append(error.description) }
        }
        thread.start()
    }

    private let logBox: LogBox

    var log: [String] { logBox.lines }

    func ask() async -> Reply {
        let started = EventLoop.monotonic()
        return await withCheckedContinuation { (c: CheckedContinuation<Reply, Never>) in
            loop.post { [self] in
                service.ask { status, bytes in
                    let json = (try? JSON.parse(bytes)) ?? .null
                    c.resume(returning: Reply(status: status, json: json, after: EventLoop.monotonic() - started))
                }
            }
        }
    }

    /// A request left waiting, as `GET /where` leaves one: its ticket, and
    /// whether it was ever answered (`answered`).
    func askAndHold() async -> WhereWatch.Ticket? {
        await withCheckedContinuation { (c: CheckedContinuation<WhereWatch.Ticket?, Never>) in
            loop.post { [self] in
                c.resume(returning: service.ask { [answeredBox] _, _ in answeredBox.append("answered") })
            }
        }
    }

    /// The client of a held request went away.
    func withdraw(_ ticket: WhereWatch.Ticket) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            loop.post { [self] in
                service.withdraw(ticket)
                c.resume()
            }
        }
    }

    private let answeredBox = LogBox()
    /// Held requests that were answered after all.
    var heldAnswered: Int { answeredBox.lines.count }

    var watching: Bool {
        get async {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                loop.post { [self] in c.resume(returning: service.watching) }
            }
        }
    }

    func stop() {
        loop.post { [loop] in loop.stop() }
    }
}

final class LogBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ s: String) { lock.lock(); stored.append(s); lock.unlock() }
    var lines: [String] { lock.lock(); defer { lock.unlock() }; return stored }
}
