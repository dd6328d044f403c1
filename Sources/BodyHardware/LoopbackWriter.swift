internal import CV4L2
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
    private var fd: Int32

    private init(path: String, fd: Int32, width: Int, height: Int, frameLimit: Int) {
        (self.path, self.fd, self.width, self.height, self.frameLimit) = (path, fd, width, height, frameLimit)
    }

    deinit { close() }

    /// Opens `path` for writing and sets MJPEG at this size. The C calls are
    /// `open` and `VIDIOC_S_FMT` on the output side.
    public static func open(_ path: String, width: Int, height: Int) throws(CameraError) -> LoopbackWriter {
        let fd = cv4l2_open_output(path)
        if fd < 0 { throw CameraError.call("open", path, errno: -fd) }
        var chosen = cv4l2_format()
        // Room for any frame this size: MJPEG is far smaller than two bytes a pixel.
        let rc = retryOnInterrupt(negativeErrno: {
            cv4l2_s_fmt_output(fd, CV4L2_FMT_MJPEG, UInt32(width), UInt32(height), UInt32(width * height * 2), &chosen)
        })
        if rc < 0 {
            _ = cv4l2_close(fd)
            let why = Errno(-rc)
            throw CameraError(CameraError.kind(why, streaming: false),
                              "camera-feed: cannot set MJPEG \(width)x\(height) on \(path) (is it a v4l2loopback node?): \(why.words)")
        }
        guard chosen.pixelformat == CV4L2_FMT_MJPEG else {
            _ = cv4l2_close(fd)
            throw CameraError(.unsupported, "camera-feed: \(path) does not take MJPEG frames")
        }
        return LoopbackWriter(path: path, fd: fd, width: Int(chosen.width), height: Int(chosen.height),
                              frameLimit: chosen.sizeimage > 0 ? Int(chosen.sizeimage) : width * height * 2)
    }

    /// Writes one whole frame in one write: v4l2loopback takes each write as a frame.
    public func write(_ frame: [UInt8]) throws(CameraError) {
        guard fd >= 0 else { throw CameraError(.failed, "camera-feed: \(path) is closed") }
        let fd = self.fd
        let result = frame.withUnsafeBytes { raw in Result { () throws(Errno) in try FileDescriptor(rawValue: fd).write(raw) } }
        let written: Int
        switch result {
        case .success(let n): written = n
        case .failure(let e): throw CameraError.call("write a frame to", path, errno: e.rawValue, streaming: true)
        }
        if written != frame.count {
            throw CameraError(.failed, "camera-feed: \(path) took \(written) of a frame's \(frame.count) bytes")
        }
    }

    /// Safe twice.
    public func close() {
        guard fd >= 0 else { return }
        _ = cv4l2_close(fd)
        fd = -1
    }
}
