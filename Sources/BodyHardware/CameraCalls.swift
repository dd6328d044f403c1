internal import CV4L2
import BodySystem
import BodyCore

/// The V4L2 calls the camera makes, as a struct of functions: the seam where a
/// test makes a dequeue fail with ENODEV. Each returns 0 or a negative errno;
/// the live ones make a call again after -EINTR (BodySystem's one rule).
struct CameraCalls: Sendable {
    struct Format: Sendable, Equatable {
        var width: UInt32
        var height: UInt32
        var fourcc: UInt32
        var bytesPerLine: UInt32
        var sizeImage: UInt32
    }

    struct Dequeued: Sendable, Equatable {
        var index: UInt32
        var bytesUsed: UInt32
        var flags: UInt32
    }

    var open: @Sendable (_ path: String) -> Int32
    var capabilities: @Sendable (_ fd: Int32) -> (rc: Int32, capture: Bool, streaming: Bool)
    var enumFormat: @Sendable (_ fd: Int32, _ index: UInt32) -> (rc: Int32, fourcc: UInt32)
    var setFormat: @Sendable (_ fd: Int32, _ fourcc: UInt32, _ width: UInt32, _ height: UInt32) -> (rc: Int32, format: Format)
    var setRate: @Sendable (_ fd: Int32, _ fps: UInt32) -> (rc: Int32, numerator: UInt32, denominator: UInt32)
    var requestBuffers: @Sendable (_ fd: Int32, _ count: UInt32) -> (rc: Int32, granted: UInt32)
    var queryBuffer: @Sendable (_ fd: Int32, _ index: UInt32) -> (rc: Int32, offset: UInt32, length: UInt32)
    var map: @Sendable (_ fd: Int32, _ offset: UInt32, _ length: UInt32) -> (pointer: UnsafeMutableRawPointer?, rc: Int32)
    var unmap: @Sendable (_ pointer: UnsafeMutableRawPointer, _ length: UInt32) -> Void
    var queue: @Sendable (_ fd: Int32, _ index: UInt32) -> Int32
    var dequeue: @Sendable (_ fd: Int32) -> (rc: Int32, frame: Dequeued)
    var streamOn: @Sendable (_ fd: Int32) -> Int32
    var streamOff: @Sendable (_ fd: Int32) -> Int32
    var close: @Sendable (_ fd: Int32) -> Int32

    static let mjpeg: UInt32 = CV4L2_FMT_MJPEG
    static let jpeg: UInt32 = CV4L2_FMT_JPEG
    static let yuyv: UInt32 = CV4L2_FMT_YUYV
    /// V4L2_BUF_FLAG_ERROR: the driver says the frame is corrupt.
    static let flagError: UInt32 = 0x40

    /// The kernel's calls, through the CV4L2 module.
    static let live = CameraCalls(
        open: { path in retryOnInterrupt { cv4l2_open(path) } },
        capabilities: { fd in
            var capture: Int32 = 0, streaming: Int32 = 0
            let rc = retryOnInterrupt { cv4l2_querycap(fd, &capture, &streaming, nil, 0) }
            return (rc, capture != 0, streaming != 0)
        },
        enumFormat: { fd, index in
            var fourcc: UInt32 = 0
            let rc = retryOnInterrupt { cv4l2_enum_fmt(fd, index, &fourcc) }
            return (rc, fourcc)
        },
        setFormat: { fd, fourcc, width, height in
            var out = cv4l2_format()
            let rc = retryOnInterrupt { cv4l2_s_fmt(fd, fourcc, width, height, &out) }
            return (rc, Format(width: out.width, height: out.height, fourcc: out.pixelformat,
                               bytesPerLine: out.bytesperline, sizeImage: out.sizeimage))
        },
        setRate: { fd, fps in
            var num: UInt32 = 0, den: UInt32 = 0
            let rc = retryOnInterrupt { cv4l2_s_parm_fps(fd, fps, &num, &den) }
            return (rc, num, den)
        },
        requestBuffers: { fd, count in
            var granted: UInt32 = 0
            let rc = retryOnInterrupt { cv4l2_reqbufs(fd, count, &granted) }
            return (rc, granted)
        },
        queryBuffer: { fd, index in
            var offset: UInt32 = 0, length: UInt32 = 0
            let rc = retryOnInterrupt { cv4l2_querybuf(fd, index, &offset, &length) }
            return (rc, offset, length)
        },
        map: { fd, offset, length in
            var err: Int32 = 0
            let p = cv4l2_mmap(fd, offset, length, &err)
            return (p, -err)
        },
        unmap: { p, length in _ = cv4l2_munmap(p, length) },
        queue: { fd, index in retryOnInterrupt { cv4l2_qbuf(fd, index) } },
        dequeue: { fd in
            var frame = cv4l2_frame()
            let rc = retryOnInterrupt { cv4l2_dqbuf(fd, &frame) }
            return (rc, Dequeued(index: frame.index, bytesUsed: frame.bytesused, flags: frame.flags))
        },
        streamOn: { fd in retryOnInterrupt { cv4l2_streamon(fd) } },
        streamOff: { fd in retryOnInterrupt { cv4l2_streamoff(fd) } },
        // Never retried: Linux frees the descriptor even when close says EINTR.
        close: { fd in cv4l2_close(fd) }
    )

    /// "MJPG", "YUYV": a fourcc in letters, for messages.
    static func name(_ fourcc: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: fourcc >> (8 * $0)) }
        return String(decoding: bytes, as: UTF8.self).trimmed
    }
}
