/// The calling thread's scheduling weight (Linux: a thread has its own nice value).
public enum ThreadPriority {
    /// Makes the calling thread yield to the others of the process when both want
    /// the CPU: the JPEG encoder's thread must never delay the loop.
    /// The C function is `setpriority(PRIO_PROCESS, 0, nice)`.
    public static func background(nice: Int32 = 10) throws(Errno) {
        if system_setpriority_thread(nice) != 0 { throw Errno.current }
    }
}
