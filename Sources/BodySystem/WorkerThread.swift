/// A detached POSIX thread, for work that blocks (libcurl's requests, the
/// JPEG encoder) and must never block the loop.
public enum WorkerThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread; its failure (EAGAIN: too many
    /// threads) typed. The C functions are `pthread_create` and `pthread_detach`.
    public static func detach(_ body: @escaping @Sendable () -> Void) throws(Errno) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = system_start_detached_thread(box) { raw in
            guard let raw else { return nil }
            Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            throw Errno(rc)
        }
    }
}
