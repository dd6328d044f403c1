@testable import BodyAgent
import BodyCore
import BodyHardware
import BodySystem
import BodyTestSupport

/// gpsd as the where service meets it: a session that opens (one per watch),
/// gives only the reports the test hands it, and can hang up. Its descriptor
/// is an eventfd, signalled for each report and for the hang-up, so the
/// agent's loop wakes for it as for gpsd's socket. How gpsd's JSON becomes
/// reports is libgps's (`Tests/WhereTests`, `Tests/gps`: real gpsd).
/// Used from the test's thread only.
final class FakeGpsd {
    /// The address of each session opened, in order.
    private(set) var opened: [String] = []
    private var session: Session?

    /// True while the service holds a session open.
    var watching: Bool { session.map { !$0.closed } ?? false }

    /// For `WhereService.sessionMaker`: a session opened as `GpsdSession.open` would be.
    func open(host: String, port: UInt16) throws(GpsdError) -> any WhereSession {
        let address = WhereAnswer.address(host: host, port: port)
        let made: Session
        do { made = try Session(address: address) } catch {
            throw GpsdError(.unreachable, "gpsd: cannot connect to \(address): \(error)")
        }
        opened.append(address)
        session = made
        return made
    }

    /// gpsd reports: the session's socket becomes readable.
    func send(_ report: GpsReport) throws {
        let session = try current()
        session.waiting.append(report)
        try session.counter.signal()
    }

    /// gpsd closes the connection: what it sent before is still read first.
    func hangUp() throws {
        let session = try current()
        session.hungUp = true
        try session.counter.signal()
    }

    private func current() throws -> Session {
        guard let session, !session.closed else { throw FixtureError("gpsd: no session open to speak on") }
        return session
    }

    final class Session: WhereSession {
        let address: String
        let counter: EventCounter
        var waiting: [GpsReport] = []
        var hungUp = false
        private(set) var closed = false

        init(address: String) throws(Errno) {
            self.address = address
            counter = try EventCounter()
        }

        var descriptor: FileDescriptor? { counter.descriptor }

        func read() throws(GpsdError) -> [GpsReport] {
            // A socket at its end stays readable, as the counter is left here.
            if !hungUp { _ = try? counter.drain() }
            defer { waiting.removeAll() }
            if hungUp && waiting.isEmpty {
                // GpsdSession's words for it (GpsdSessionTests).
                throw GpsdError(.lost, "gpsd: lost the watch at \(address): gpsd closed the connection")
            }
            return waiting
        }

        func close() {
            closed = true
            counter.close()
        }
    }
}
