import Foundation
import Glibc

/// How a started process ended: its exit code, or the signal that ended it.
public struct ProcessEnd: Equatable, Sendable, CustomStringConvertible {
    /// True: it exited with `code`; false: signal `code` ended it.
    public var exited: Bool
    public var code: Int32

    public init(exited: Bool, code: Int32) { self.exited = exited; self.code = code }

    public var description: String { exited ? "exit code \(code)" : "killed by signal \(code)" }
}

extension Process {
    /// How it ended, as the kernel says, or nil while it runs. Foundation
    /// sees an end only when a socket the child inherited reaches its end, so
    /// any other process holding a copy (a sibling started by another test's
    /// thread in the moment the socket was open) hides the end for as long as
    /// that one lives: CI once waited 65 s on a body that had died. `waitid`
    /// with WNOWAIT reads the end and leaves the process for Foundation to reap.
    public var ending: ProcessEnd? {
        // Never started (run() threw): no end, and Foundation's termination fields would trap.
        guard processIdentifier > 0 else { return nil }
        if !isRunning { return ProcessEnd(exited: terminationReason == .exit, code: terminationStatus) }
        var info = siginfo_t()
        // ECHILD: Foundation reaped it between the two looks; isRunning turns false next.
        guard waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return nil }
        let child = info._sifields._sigchld
        guard child.si_pid == processIdentifier else { return nil }   // not ended yet
        return ProcessEnd(exited: info.si_code == CLD_EXITED, code: child.si_status)
    }

    /// Waits for the process to end, looking every 10 ms; after `seconds`
    /// sends SIGKILL and waits 5 s more. Not `waitUntilExit()`: on Linux,
    /// called off the thread that launched the process (a deinit, a defer
    /// after an await), that spins a run loop with no sources at a full core
    /// for as long as it waits (2.0 s of CPU for a 2 s wait here), and for
    /// ever for an end Foundation never sees: a test run once stood at 100%
    /// CPU for two hours. A process still running then is a failure in words.
    @discardableResult
    public func waitForExit(killingAfter seconds: Double = 60) -> ProcessEnd {
        if let end = waitForEnd(until: monotonicNow() + seconds) { return end }
        kill(processIdentifier, SIGKILL)
        if let end = waitForEnd(until: monotonicNow() + 5) { return end }
        fatalError("\(executableURL?.lastPathComponent ?? "a process") (pid \(processIdentifier)): still running \(Int(seconds)) s after the wait began and 5 s after SIGKILL")
    }

    private func waitForEnd(until deadline: Double) -> ProcessEnd? {
        while true {
            if let end = ending { return end }
            if monotonicNow() >= deadline { return nil }
            usleep(10_000)
        }
    }
}
