import Glibc

/// The few system calls the demo hub's threads need: a wake-up pipe, clocks
/// (threads come from BodyHub's WorkerThread).
enum DemoSystem {
    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func wall() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func sleep(_ seconds: Double) {
        var want = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&want, &left) != 0 && errno == EINTR { want = left }
    }

    /// A pipe one thread waits on (with a timeout) and others ring.
    final class Bell: Sendable {
        private let reader: Int32
        private let writer: Int32

        init?() {
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) != 0 { return nil }
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            reader = fds[0]
            writer = fds[1]
        }

        deinit {
            close(reader)
            close(writer)
        }

        /// A full pipe already means "rung", so a failed write loses nothing.
        func ring() {
            var byte: UInt8 = 1
            _ = write(writer, &byte, 1)
        }

        /// Waits until rung or `seconds` pass (nil: no limit).
        func wait(_ seconds: Double?) {
            var pfd = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            let ms = seconds.map { Int32(min(max(0, ($0 * 1000).rounded(.up)), 3_600_000)) } ?? -1
            if poll(&pfd, 1, ms) > 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(reader, &drain, drain.count) > 0 {}
            }
        }
    }
}
