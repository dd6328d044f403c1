import Foundation
import Glibc

// The tests' own clock, for tests that run something real in real time.

/// CLOCK_MONOTONIC in seconds: the clock the body and the kernel's edge stamps use.
public func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Waits `seconds` on the test's own clock.
public func pause(_ seconds: Double) async {
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
}

/// Polls `condition` every `every` seconds until it holds or `within` seconds pass;
/// its last answer.
public func eventually(within: Double, every: Double = 0.05, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = monotonicNow() + within
    while monotonicNow() < deadline {
        if try await condition() { return true }
        await pause(every)
    }
    return try await condition()
}
