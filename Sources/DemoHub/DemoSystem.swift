import BodySystem

/// The few system calls the demo hub's threads need: a wake-up pipe, clocks
/// (threads come from BodySystem's WorkerThread), all through BodySystem.
enum DemoSystem {
    static func monotonic() -> Double { SystemClock.monotonic() }

    static func wall() -> Double { SystemClock.wall() }

    static func sleep(_ seconds: Double) { SystemClock.sleep(seconds) }

    /// A pipe one thread waits on (with a timeout) and others ring.
    final class Bell: Sendable {
        private let reader: FileDescriptor
        private let writer: FileDescriptor

        init?() {
            guard let ends = try? FileDescriptor.pipe() else { return nil }
            reader = ends.read
            writer = ends.write
        }

        deinit {
            try? reader.close()
            try? writer.close()
        }

        /// A full pipe (EAGAIN) already means "rung", so a failed write loses nothing.
        func ring() {
            _ = try? writer.writeAll([1])
        }

        /// Waits until rung or `seconds` pass (nil: no limit). A failed wait
        /// sleeps instead (at most a second), so the hub looks again without spinning.
        func wait(_ seconds: Double?) {
            do throws(Errno) {
                if try reader.waitReadable(seconds: seconds) { try reader.discardAvailable() }
            } catch {
                SystemClock.sleep(min(max(seconds ?? 1, 0), 1))
            }
        }
    }
}
