import Foundation
import Dispatch
import Glibc

/// How long the VM stood still while a rate was measured. Under TCG on a
/// loaded host the host takes the guest's vCPUs away for tens or hundreds of
/// milliseconds; vivid's thread then skips the frames it missed, and a rate
/// read over those seconds is the host's, not the body's. On each CPU a thread
/// pinned there at nice -15 (the VM runs the tests as root) stamps the clock
/// every 5 ms; a gap over 50 ms is a stall. One thread saw only the vCPU it ran
/// on, and the camera, the body and the test run on either. The picamera-tests
/// script measures its stops the same way.
final class StallMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var stalled = 0.0
    private var running = true
    /// Each CPU's thread's last stamp: a gap still open when the meter is read counts too.
    private var last: [Double]

    init() {
        let cpus = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        // From the meter's start, not each thread's: a stall under way as it starts counts.
        last = Array(repeating: CameraHIL.now(), count: cpus)
        let started = DispatchSemaphore(value: 0)
        for cpu in 0..<cpus {
            Thread { [self] in
                StallMeter.pin(to: cpu)
                // Linux: who 0 is the calling thread alone, not the whole process.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, -15)
                started.signal()
                while true {
                    var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
                    nanosleep(&pause, nil)
                    let t = CameraHIL.now()
                    lock.lock()
                    if t - last[cpu] > 0.05 { stalled += t - last[cpu] }
                    last[cpu] = t
                    let go = running
                    lock.unlock()
                    if !go { return }
                }
            }.start()
        }
        // Every thread bound to its CPU before the measuring begins.
        for _ in 0..<cpus { started.wait() }
    }

    /// Binds the calling thread to `cpu` (sched_setaffinity with pid 0: this
    /// thread). Glibc declares it only for _GNU_SOURCE, which the Glibc module
    /// is not built with, so it is looked up by name; CPU_SET is a C macro, so
    /// the mask's bit is set by hand. Unbound, the meter still runs (and says so).
    private static func pin(to cpu: Int) {
        typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity") else {
            print("StallMeter: no sched_setaffinity: the meter for CPU \(cpu) is not bound to it")
            return
        }
        var mask = [UInt8](repeating: 0, count: 128)  // glibc's cpu_set_t: 1024 bits
        mask[cpu / 8] |= UInt8(1 << (cpu % 8))
        let status = mask.withUnsafeBytes { unsafeBitCast(symbol, to: SetAffinity.self)(0, $0.count, $0.baseAddress!) }
        if status != 0 { print("StallMeter: cannot bind a meter to CPU \(cpu): errno \(errno)") }
    }

    /// Seconds of stall seen so far, summed over the CPUs, with the gaps still open.
    var seconds: Double {
        let now = CameraHIL.now()
        lock.lock(); defer { lock.unlock() }
        return stalled + last.map { now - $0 }.filter { $0 > 0.05 }.reduce(0, +)
    }

    func stop() {
        lock.lock(); running = false; lock.unlock()
    }

    /// Runs `measure` until a try the VM did not stall through for more than
    /// `allowed` seconds (only such a try is judged), for `budget` seconds and
    /// `tries` tries at most: four tries were once all spoiled on a busy host.
    /// Returns the unspoiled try's result, or nil (and says why) when every try was spoiled.
    static func unspoiled<T>(_ what: String, tries: Int = 12, budget: Double = 60, allowed: Double = 0.2,
                             _ measure: () throws -> T) rethrows -> T? {
        var stalls: [Double] = []
        let start = CameraHIL.now()
        while stalls.count < tries && CameraHIL.now() - start < budget {
            let meter = StallMeter()
            defer { meter.stop() }
            let result = try measure()
            let stall = meter.seconds
            if stall <= allowed { return result }
            stalls.append(stall)
            print("\(what): spoiled try: the VM stood still \(String(format: "%.2f", stall)) s of it")
        }
        print("\(what): every one of \(stalls.count) tries in \(Int(CameraHIL.now() - start)) s was spoiled by the VM's stalls: \(stalls.map { String(format: "%.2f s", $0) })")
        return nil
    }
}
