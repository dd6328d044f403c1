import BodySystem

/// The writing side of a v4l2loopback node: MJPEG frames written into it are
/// what its readers (the body's camera) capture. How a Pi camera reaches the
/// body: `rpicam-vid --codec mjpeg -o - | studio-body camera-feed /dev/studio-camera`.
public final class LoopbackWriter {
    public let path: String
    public let width: Int
    public let height: Int
    /// The most bytes one frame may have: the node's buffer size.
    public let frameLimit: Int
    private let calls: CameraCalls
    private var fd: FileDescriptor?

    private init(path: String, calls: CameraCalls, fd: FileDescriptor, format: CameraCalls.Format, frameLimit: Int) {
        (self.path, self.calls, self.fd, self.frameLimit) = (path, calls, fd, frameLimit)
        (width, height) = (Int(format.width), Int(format.height))
    }

    deinit { close() }

    /// Opens `path` for writing and sets MJPEG at this size. The C calls are
    /// `open` and `VIDIOC_S_FMT` on the output side.
    public static func open(_ path: String, width: Int, height: Int) throws(CameraError) -> LoopbackWriter {
        try open(path, width: width, height: height, calls: .live)
    }

    /// The same over other calls: a test's fake node.
    static func open(_ path: String, width: Int, height: Int, calls: CameraCalls) throws(CameraError) -> LoopbackWriter {
        let fd = try CameraError.attempt("open", path) { () throws(Errno) in try calls.openOutput(path) }
        let chosen: CameraCalls.Format
        do throws(Errno) {
            // Room for any frame this size: MJPEG is far smaller than two bytes a pixel.
            chosen = try calls.setOutputFormat(fd, CameraCalls.mjpeg, UInt32(width), UInt32(height), UInt32(width * height * 2))
        } catch {
            calls.close(fd)
            throw CameraError(CameraError.kind(error, streaming: false),
                              "camera-feed: cannot set MJPEG \(width)x\(height) on \(path) (is it a v4l2loopback node?): \(error.words)")
        }
        guard chosen.fourcc == CameraCalls.mjpeg else {
            calls.close(fd)
            throw CameraError(.unsupported, "camera-feed: \(path) does not take MJPEG frames")
        }
        return LoopbackWriter(path: path, calls: calls, fd: fd, format: chosen,
                              frameLimit: chosen.sizeImage > 0 ? Int(chosen.sizeImage) : width * height * 2)
    }

    /// Writes one whole frame in one write: v4l2loopback takes each write as a frame.
    public func write(_ frame: [UInt8]) throws(CameraError) {
        guard let fd else { throw CameraError(.failed, "camera-feed: \(path) is closed") }
        let result = frame.withUnsafeBytes { raw in Result { () throws(Errno) in try fd.write(raw) } }
        let written: Int
        switch result {
        case .success(let n): written = n
        case .failure(let e): throw CameraError.call("write a frame to", path, e, streaming: true)
        }
        if written != frame.count {
            throw CameraError(.failed, "camera-feed: \(path) took \(written) of a frame's \(frame.count) bytes")
        }
    }

    /// Safe twice.
    public func close() {
        guard let fd else { return }
        calls.close(fd)
        self.fd = nil
    }
}
