import BodySystem

/// One open V4L2 capture stream, for a single-threaded event loop: epoll its
/// `descriptor`, call `readFrame()` when it is readable.
///
/// Prefers MJPEG (frames pass through untouched, cut at their end-of-image
/// marker); else YUYV, encoded to JPEG with TurboJPEG. mmap streaming with 4
/// buffers. Everything is released on every path, a half-finished open too;
/// `close()` is safe twice. Never written to disk.
public final class Camera {
    public let path: String
    public let width: Int
    public let height: Int
    /// The rate the driver agreed to (frames per second).
    public let framesPerSecond: Double
    /// True for MJPEG passthrough, false for YUYV encoded here.
    public let passthrough: Bool

    private let calls: CameraCalls
    private var fd: FileDescriptor?
    private var buffers: [(pointer: UnsafeMutableRawPointer, length: UInt32)]
    private let bytesPerLine: Int
    private let encoder: YUYVEncoder?
    /// On a v4l2loopback node, how many buffers its writer cycles through (the
    /// distinct mappings: another reader may have lowered it below ours); nil on a camera.
    private let loopbackRing: UInt32?

    public static let bufferCount: UInt32 = 4

    /// The file descriptor to epoll; nil once closed.
    public var descriptor: FileDescriptor? { fd }

    /// "MJPEG 640x480 @15 (passthrough)", "YUYV 640x480 @15 (encoded)".
    public var format: String {
        let rate = framesPerSecond == framesPerSecond.rounded()
            ? String(Int(framesPerSecond)) : String(Double(Int(framesPerSecond * 100)) / 100)
        return passthrough ? "MJPEG \(width)x\(height) @\(rate) (passthrough)"
                           : "YUYV \(width)x\(height) @\(rate) (encoded)"
    }

    public static func open(path: String, width: Int, height: Int, fps: Int) throws(CameraError) -> Camera {
        try open(path: path, width: width, height: height, fps: fps, calls: .live)
    }

    static func open(path: String, width: Int, height: Int, fps: Int, calls: CameraCalls) throws(CameraError) -> Camera {
        let opened = try CameraError.attempt("open", path) { () throws(Errno) in try calls.open(path) }
        var opening = Opening(calls: calls, fd: opened)
        do {
            return try opening.finish(path: path, width: width, height: height, fps: fps)
        } catch {
            opening.release()
            throw error
        }
    }

    fileprivate init(path: String, calls: CameraCalls, fd: FileDescriptor, format: CameraCalls.Format, fps: Double,
                     buffers: [(pointer: UnsafeMutableRawPointer, length: UInt32)], encoder: YUYVEncoder?, loopbackRing: UInt32?) {
        self.path = path
        self.calls = calls
        self.fd = fd
        self.width = Int(format.width)
        self.height = Int(format.height)
        self.bytesPerLine = Int(format.bytesPerLine)
        self.framesPerSecond = fps
        self.buffers = buffers
        self.encoder = encoder
        self.passthrough = encoder == nil
        self.loopbackRing = loopbackRing
    }

    deinit { close() }

    /// When the descriptor is readable: dequeue one buffer, turn it into a
    /// JPEG, queue the buffer again. nil when no frame is ready; `.bad` with
    /// words for a frame to drop (marked damaged by the driver, empty, not a
    /// whole JPEG, or a YUYV frame that cannot be encoded).
    /// Throws `.unplugged` when the device went away; then only `close()` is left to do.
    public func readFrame() throws(CameraError) -> CameraFrame? {
        try read(encoding: true)
    }

    /// Like `readFrame`, but a YUYV frame comes back copied and not encoded
    /// (`.yuyv`): the caller encodes it on a thread of its own
    /// (`encoderForWorker`), so the loop never waits for an encode.
    public func readRaw() throws(CameraError) -> CameraFrame? {
        try read(encoding: false)
    }

    /// The encoder and source stride for a worker thread; nil for MJPEG passthrough.
    /// Once a worker has it, only the worker may use it (call `readRaw`, not `readFrame`).
    public var encoderForWorker: (encoder: YUYVEncoder, bytesPerLine: Int)? {
        encoder.map { ($0, bytesPerLine) }
    }

    private func read(encoding: Bool) throws(CameraError) -> CameraFrame? {
        guard let fd else { throw CameraError(.failed, "camera: cannot read a frame from \(path): it is closed") }
        let calls = self.calls
        let dequeued = try CameraError.attempt("dequeue a frame from", path, streaming: true) { () throws(Errno) in
            try calls.dequeue(fd)
        }
        guard let frame = dequeued else { return nil }
        guard Int(frame.index) < buffers.count else {
            throw CameraError(.failed, "camera: cannot read a frame from \(path): the driver returned buffer \(frame.index) of \(buffers.count)")
        }
        let buffer = buffers[Int(frame.index)]
        var got: CameraFrame
        if frame.flags & CameraCalls.flagError != 0 {
            got = .bad("a frame the driver marked as damaged")
        } else if let encoder {
            // Some drivers report 0 bytes used (or more than the buffer): a YUYV frame is the whole buffer.
            let used = frame.bytesUsed == 0 || frame.bytesUsed > buffer.length ? Int(buffer.length) : Int(frame.bytesUsed)
            let raw = UnsafeRawBufferPointer(start: buffer.pointer, count: used)
            if encoding {
                // A frame that cannot be encoded (too short) is one bad frame, not the end of the capture.
                do { got = .jpeg(try encoder.encode(raw, bytesPerLine: bytesPerLine)) } catch { got = .bad(error.description) }
            } else {
                got = .yuyv(Array(raw))
            }
        } else if frame.bytesUsed == 0 {
            // Empty: the buffer still holds an older frame, which must not be shown as this one.
            got = .bad("an empty frame")
        } else {
            let used = frame.bytesUsed > buffer.length ? Int(buffer.length) : Int(frame.bytesUsed)
            // Copy before cutting: a loopback writer may reuse the buffer while we look.
            let copy = Array(UnsafeRawBufferPointer(start: buffer.pointer, count: used))
            if let end = copy.withUnsafeBytes({ JPEG.endOfImage(in: $0) }) {
                got = .jpeg(end == copy.count ? copy : Array(copy[..<end]))
            } else {
                got = .bad("a frame of \(copy.count) bytes that is not a whole JPEG")
            }
        }
        // A v4l2loopback writer (the Pi camera's feeder) refills a buffer a
        // reader fell behind on, even while it is read: a frame read from such
        // a buffer may be torn, whatever it looked like.
        if frame.flags & CameraCalls.flagError == 0, frame.bytesUsed > 0 || encoder != nil, refilled(frame, on: fd) {
            got = .bad(Camera.overwritten)
        }
        try CameraError.attempt("queue a buffer on", path, streaming: true) { () throws(Errno) in
            try calls.queue(fd, frame.index)
        }
        return got
    }

    static let overwritten = "a frame the loopback's writer overwrote, or was overwriting, while it was read (this computer fell behind the feeder)"

    /// Whether the buffer `frame` was copied from was, or may be being,
    /// refilled: asked after the copy. A query that fails keeps the frame.
    private func refilled(_ frame: CameraCalls.Dequeued, on fd: FileDescriptor) -> Bool {
        // Its number moved: a refill ended. (A camera's buffer is the reader's
        // until it is queued again, so its number never moves.)
        if let now = try? calls.sequence(fd, frame.index), now != frame.sequence { return true }
        // A refill under way has not moved it yet. v4l2loopback's write() puts
        // frame p in buffer p % n and numbers it once copied, one frame at a
        // time, so the next write here (s + n) starts only after s + n - 1 is
        // numbered in the buffer before this one: until then this one is whole.
        // (With one buffer nothing tells a refill under way: docs/eyes.md.)
        guard let n = loopbackRing, n >= 2, frame.index == frame.sequence % n,
              let before = try? calls.sequence(fd, (frame.index + n - 1) % n) else { return false }
        return Int32(bitPattern: before &- frame.sequence) >= Int32(n - 1)
    }

    /// Stops streaming, unmaps the buffers, closes the device. Safe twice.
    public func close() {
        guard let fd else { return }
        var opening = Opening(calls: calls, fd: fd)
        opening.streaming = true
        opening.buffers = buffers
        opening.requested = true
        opening.release()
        buffers = []
        self.fd = nil
    }
}

/// The steps of an open, each remembered so a failure releases exactly what was taken.
private struct Opening {
    let calls: CameraCalls
    let fd: FileDescriptor
    var requested = false
    var buffers: [(pointer: UnsafeMutableRawPointer, length: UInt32)] = []
    var streaming = false

    init(calls: CameraCalls, fd: FileDescriptor) {
        self.calls = calls
        self.fd = fd
    }

    mutating func finish(path: String, width: Int, height: Int, fps: Int) throws(CameraError) -> Camera {
        let (calls, fd) = (self.calls, self.fd)
        let cap = try CameraError.attempt("query the capabilities of", path) { () throws(Errno) in try calls.capabilities(fd) }
        guard cap.capture, cap.streaming else {
            throw CameraError(.unsupported, "camera: cannot use \(path): it is not a video capture device with streaming")
        }

        // The first index the driver refuses (EINVAL, or anything) ends the list.
        var offered: [UInt32] = []
        while offered.count < 64, let fourcc = try? calls.enumFormat(fd, UInt32(offered.count)) {
            offered.append(fourcc)
        }
        let wanted: UInt32
        if offered.contains(CameraCalls.mjpeg) { wanted = CameraCalls.mjpeg }
        else if offered.contains(CameraCalls.jpeg) { wanted = CameraCalls.jpeg }
        else if offered.contains(CameraCalls.yuyv) { wanted = CameraCalls.yuyv }
        else {
            let names = offered.isEmpty ? "none" : offered.map(CameraCalls.name).joined(separator: ", ")
            throw CameraError(.unsupported, "camera: cannot use \(path): it offers neither MJPEG nor YUYV (it offers \(names))")
        }

        let format = try CameraError.attempt("set \(CameraCalls.name(wanted)) \(width)x\(height) on", path) { () throws(Errno) in
            try calls.setFormat(fd, wanted, UInt32(clamping: width), UInt32(clamping: height))
        }
        guard format.fourcc == wanted else {
            throw CameraError(.unsupported, "camera: cannot use \(path): asked for \(CameraCalls.name(wanted)), the driver chose \(CameraCalls.name(format.fourcc))")
        }
        let encoder: YUYVEncoder? = wanted == CameraCalls.yuyv
            ? try YUYVEncoder(width: Int(format.width), height: Int(format.height)) : nil
        var settled = format
        if settled.bytesPerLine == 0 { settled.bytesPerLine = wanted == CameraCalls.yuyv ? settled.width * 2 : 0 }

        // A driver that cannot set the rate keeps its own: not a reason to refuse the camera.
        var rate = Double(fps)
        if let interval = try? calls.setRate(fd, UInt32(clamping: fps)), interval.numerator > 0, interval.denominator > 0 {
            rate = Double(interval.denominator) / Double(interval.numerator)
        }

        let granted = try CameraError.attempt("request \(Camera.bufferCount) mmap buffers on", path) { () throws(Errno) in
            try calls.requestBuffers(fd, Camera.bufferCount)
        }
        requested = true
        guard granted >= 1 else {
            throw CameraError(.failed, "camera: cannot request mmap buffers on \(path): the driver gave none")
        }
        var offsets: Set<UInt32> = []
        for index in 0..<granted {
            let place = try CameraError.attempt("query buffer \(index) of", path) { () throws(Errno) in try calls.queryBuffer(fd, index) }
            let pointer = try CameraError.attempt("map buffer \(index) of", path) { () throws(Errno) in try calls.map(fd, place) }
            buffers.append((pointer, place.length))
            offsets.insert(place.offset)
        }
        for index in 0..<granted {
            try CameraError.attempt("queue buffer \(index) on", path) { () throws(Errno) in try calls.queue(fd, index) }
        }
        try CameraError.attempt("start streaming on", path) { () throws(Errno) in try calls.streamOn(fd) }
        streaming = true
        return Camera(path: path, calls: calls, fd: fd, format: settled, fps: rate, buffers: buffers, encoder: encoder,
                      loopbackRing: cap.driver == CameraCalls.loopbackDriver ? UInt32(offsets.count) : nil)
    }

    /// Releases what was taken, in reverse: stream, mappings, buffers, descriptor.
    mutating func release() {
        if streaming { try? calls.streamOff(fd) }
        for b in buffers { calls.unmap(b.pointer, b.length) }
        buffers = []
        // Freeing the buffers fails harmlessly on a device that is gone.
        if requested { _ = try? calls.requestBuffers(fd, 0) }
        calls.close(fd)
        streaming = false
        requested = false
    }
}

/// One dequeued frame: a whole JPEG, or one the body cannot show, in words
/// ("a frame of 5120 bytes that is not a whole JPEG"). A bad frame is the
/// camera's problem of the moment, not the end of the capture.
public enum CameraFrame: Equatable, Sendable {
    case jpeg([UInt8])
    /// From `readRaw`: YUYV bytes still to encode.
    case yuyv([UInt8])
    case bad(String)

    public var jpeg: [UInt8]? { if case .jpeg(let j) = self { return j }; return nil }
}
