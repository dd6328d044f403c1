import Foundation
import Glibc

extension Process {
    /// Waits for the process to exit, looking every 10 ms; after `seconds`
    /// sends SIGKILL and waits 5 s more. Not `waitUntilExit()`: on Linux,
    /// called off the thread that launched the process (a deinit, a defer
    /// after an await), that spins a run loop with no sources at a full core
    /// for as long as it waits (2.0 s of CPU for a 2 s wait here), and for
    /// ever for an exit Foundation never sees: a test run once stood at 100%
    /// CPU for two hours. An exit still unseen then is a failure in words.
    public func waitForExit(killingAfter seconds: Double = 60) {
        if waitForExit(until: monotonicNow() + seconds) { return }
        kill(processIdentifier, SIGKILL)
        if waitForExit(until: monotonicNow() + 5) { return }
        fatalError("\(executableURL?.lastPathComponent ?? "a process") (pid \(processIdentifier)): no exit seen \(Int(seconds)) s after the wait began and 5 s after SIGKILL")
    }

    private func waitForExit(until deadline: Double) -> Bool {
        while isRunning {
            if monotonicNow() >= deadline { return false }
            usleep(10_000)
        }
        return true
    }
}
