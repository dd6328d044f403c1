import Glibc
import BodySystem

/// A detached POSIX thread: libcurl blocks, so its calls (the hello, the demo
/// hub's polls) get threads of their own.
public enum WorkerThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread; nil when started, else the reason in words.
    public static func detach(_ body: @escaping @Sendable () -> Void) -> String? {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            return Errno(rc).words
        }
        pthread_detach(thread)
        return nil
    }
}
