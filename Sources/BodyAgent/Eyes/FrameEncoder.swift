import Synchronization
import BodyHardware
import BodySystem

/// Encodes YUYV frames to JPEG on a thread of its own, so the loop never waits
/// for an encode and a press is never queued behind a frame (encoded on the
/// loop, a streaming preview makes a press reach /ears 15x slower in the VM). One frame
/// waits at most: a newer one replaces it, so the preview shows the newest
/// and never falls behind. Each JPEG goes back to the loop through `deliver`.
final class FrameEncoder: @unchecked Sendable {
    private struct Slot {
        var frame: [UInt8]?
        var stopped = false
    }

    private let slot = Mutex(Slot())
    private let ready: Semaphore
    // Used by the worker thread only, once started.
    private let encoder: YUYVEncoder
    private let bytesPerLine: Int
    private let deliver: @Sendable (Result<[UInt8], CameraError>) -> Void

    /// Starts the thread; throws the reason in words when it cannot.
    init(encoder: YUYVEncoder, bytesPerLine: Int,
         deliver: @escaping @Sendable (Result<[UInt8], CameraError>) -> Void) throws(CameraError) {
        self.encoder = encoder
        self.bytesPerLine = bytesPerLine
        self.deliver = deliver
        do { ready = try Semaphore() } catch {
            throw CameraError(.failed, "camera: cannot make the JPEG encoder's semaphore: \(error.words)")
        }
        do { try WorkerThread.detach({ [self] in work() }) } catch {
            throw CameraError(.failed, "camera: cannot start the JPEG encoder's thread: \(error.words)")
        }
    }

    /// From the loop: the newest frame to encode (an older one not started is dropped).
    func offer(_ yuyv: [UInt8]) {
        let wake = slot.withLock { s -> Bool in
            let idle = s.frame == nil
            s.frame = yuyv
            return idle
        }
        // A post fails only past the counter's maximum: the worker has wake-ups enough.
        if wake { try? ready.post() }
    }

    /// From the loop: the thread ends after the frame it is encoding, if any.
    func stop() {
        slot.withLock { $0.stopped = true; $0.frame = nil }
        try? ready.post()
    }

    private func work() {
        // Under load the encode and the loop want the CPU at once: the loop goes first.
        // A thread left at the loop's weight only costs latency, so a refusal is not fatal.
        try? ThreadPriority.background()
        while true {
            // EINTR is waited through inside (the one rule); anything else (EINVAL) is a semaphore
            // gone bad, and a thread that cannot wait would spin: it says so and ends.
            do { try ready.wait() } catch {
                deliver(.failure(CameraError(.failed, "camera: the JPEG encoder's thread cannot wait for frames: \(error.words)")))
                return
            }
            let (frame, stopped) = slot.withLock { s -> ([UInt8]?, Bool) in
                defer { s.frame = nil }
                return (s.frame, s.stopped)
            }
            if stopped { return }
            guard let frame else { continue }
            let result = Result { () throws(CameraError) in try encoder.encode(frame, bytesPerLine: bytesPerLine) }
            deliver(result)
        }
    }
}
