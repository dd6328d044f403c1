import Glibc

/// The body's clocks, read in one place. The C function is `clock_gettime`,
/// which fails only for a clock that does not exist or a bad pointer
/// (EINVAL, EFAULT), neither possible here.
public enum SystemClock {
    /// Seconds on CLOCK_MONOTONIC: the scale of the kernel's GPIO event
    /// timestamps and of every `at now:` in BodyCore.
    public static func monotonic() -> Double { seconds(CLOCK_MONOTONIC) }

    /// Seconds since the epoch (CLOCK_REALTIME), for the times people read.
    public static func wall() -> Double { seconds(CLOCK_REALTIME) }

    /// Whether the kernel says the wall clock is synchronised (to network time,
    /// or by anyone who set its status). A Raspberry Pi has no battery-backed
    /// clock, so until NTP answers its wall clock lags, often by hours. Asking
    /// changes nothing and needs no privilege. The C function is `adjtimex`
    /// (modes 0); it says TIME_ERROR, or STA_UNSYNC in the status, while unsynchronised.
    public static func wallSynchronised() -> Result<Bool, Errno> {
        var status: Int32 = 0
        return valueOrErrno { system_adjtimex_read(&status) }
            .map { state in state != system_TIME_ERROR && status & system_STA_UNSYNC == 0 }
    }

    /// CPU seconds this process has used (CLOCK_PROCESS_CPUTIME_ID), for benchmarks.
    public static func processCPU() -> Double { seconds(CLOCK_PROCESS_CPUTIME_ID) }

    private static func seconds(_ clock: clockid_t) -> Double {
        var ts = timespec()
        _ = system_clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Sleeps `seconds`, the rest of it again after a signal. The C function is `nanosleep`.
    public static func sleep(_ seconds: Double) {
        var want = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        // An interrupted sleep (the one EINTR rule, in valueOrErrno) sleeps what is left.
        _ = valueOrErrno { () -> Int32 in
            let rc = system_nanosleep(&want, &left)
            if rc != 0 { want = left }
            return rc
        }
    }
}
