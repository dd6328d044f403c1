import Foundation
import Glibc

/// How long the VM stood still while a rate was measured. Under TCG on a
/// loaded host the host takes the guest's vCPUs away for tens or hundreds of
/// milliseconds; vivid's thread then skips the frames it missed, and a rate
/// read over those seconds is the host's, not the body's. A thread at nice -15
/// (the VM runs the tests as root) stamps the clock every 5 ms; a gap over
/// 50 ms is a stall. The picamera-tests script measures its stops the same way.
final class StallMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var stalled = 0.0
    private var running = true

    init() {
        Thread { [self] in
            // Linux: who 0 is the calling thread alone, not the whole process.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, -15)
            var last = CameraHIL.now()
            while true {
                var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
                nanosleep(&pause, nil)
                let t = CameraHIL.now()
                lock.lock()
                if t - last > 0.05 { stalled += t - last }
                let go = running
                lock.unlock()
                last = t
                if !go { return }
            }
        }.start()
    }

    /// Seconds of stall seen so far.
    var seconds: Double {
        lock.lock(); defer { lock.unlock() }
        return stalled
    }

    func stop() {
        lock.lock(); running = false; lock.unlock()
    }

    /// Runs `measure` up to `tries` times, until a try the VM did not stall
    /// through for more than `allowed` seconds: only such a try is judged.
    /// Returns the unspoiled try's result, or nil (and says why) when every try was spoiled.
    static func unspoiled<T>(_ what: String, tries: Int = 4, allowed: Double = 0.2,
                             _ measure: () throws -> T) rethrows -> T? {
        var stalls: [Double] = []
        for _ in 0..<tries {
            let meter = StallMeter()
            defer { meter.stop() }
            let result = try measure()
            let stall = meter.seconds
            if stall <= allowed { return result }
            stalls.append(stall)
            print("\(what): spoiled try: the VM stood still \(String(format: "%.2f", stall)) s of it")
        }
        print("\(what): every one of \(tries) tries was spoiled by the VM's stalls: \(stalls.map { String(format: "%.2f s", $0) })")
        return nil
    }
}
