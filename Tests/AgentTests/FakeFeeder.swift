@testable import BodyAgent
import BodySystem
import BodyTestSupport

/// The Pi camera's feeder as the preview meets it: a connection that is
/// there at once and carries only the words the test says. It is a pipe: the
/// agent reads its end as it reads the feeder's socket (readable when words
/// came, at its end when the feeder went), so the loop wakes for it alike.
/// The socket itself is the feeder wake's own tests' (`EventLoopTests`).
/// Used from the test's thread only.
final class FakeFeeder {
    /// The path of each wake, in order.
    private(set) var woken: [String] = []
    /// The feeder's end of the connection; nil once it hung up.
    private var side: FileDescriptor?

    /// For `PreviewService.feederConnect`: connected as `LocalSocket.connect` would be.
    func connect(path: String) throws(Errno) -> FileDescriptor {
        let ends = try FileDescriptor.pipe()
        hangUp()
        side = ends.write
        woken.append(path)
        return ends.read
    }

    /// The feeder says `line` (`ready`, `error ...`).
    func say(_ line: String) throws {
        guard let side else { throw FixtureError("feeder: not woken, or hung up") }
        try side.writeAll(Array((line + "\n").utf8))
    }

    /// The feeder ends: the agent reads the connection's end.
    func hangUp() {
        try? side?.close()
        side = nil
    }

    deinit { hangUp() }
}
