// The one file that calls CV4L2: the V4L2 calls the camera and the loopback
// writer make, as a struct of functions (the seam where a test makes a dequeue
// fail with ENODEV, as GpioCalls is for libgpiod).
internal import CV4L2
import BodySystem
import BodyCore

/// The V4L2 calls, each returning Swift values or throwing a typed `Errno`.
/// The live ones go through BodySystem's `valueOrNegativeErrno` (its one EINTR rule).
struct CameraCalls: Sendable {
    /// What VIDIOC_S_FMT settled on.
    struct Format: Sendable, Equatable {
        var width: UInt32
        var height: UInt32
        var fourcc: UInt32
        var bytesPerLine: UInt32
        var sizeImage: UInt32
    }

    /// What VIDIOC_QUERYCAP says the device can do, and its driver's name.
    struct Capabilities: Sendable, Equatable {
        var capture, streaming: Bool
        var driver = ""
    }
    /// The frame interval the driver agreed to, in seconds: numerator / denominator.
    struct Interval: Sendable, Equatable { var numerator, denominator: UInt32 }
    /// Where one mmap buffer lives.
    struct BufferPlace: Sendable, Equatable { var offset, length: UInt32 }

    struct Dequeued: Sendable, Equatable {
        var index: UInt32
        var bytesUsed: UInt32
        var flags: UInt32
        var sequence: UInt32 = 0
    }

    /// Read-write and non-blocking. The C function is `cv4l2_open`.
    var open: @Sendable (_ path: String) throws(Errno) -> FileDescriptor
    var capabilities: @Sendable (_ fd: FileDescriptor) throws(Errno) -> Capabilities
    /// One offered format's fourcc; EINVAL past the last.
    var enumFormat: @Sendable (_ fd: FileDescriptor, _ index: UInt32) throws(Errno) -> UInt32
    var setFormat: @Sendable (_ fd: FileDescriptor, _ fourcc: UInt32, _ width: UInt32, _ height: UInt32) throws(Errno) -> Format
    var setRate: @Sendable (_ fd: FileDescriptor, _ fps: UInt32) throws(Errno) -> Interval
    /// How many buffers the driver granted; a count of 0 frees them.
    var requestBuffers: @Sendable (_ fd: FileDescriptor, _ count: UInt32) throws(Errno) -> UInt32
    var queryBuffer: @Sendable (_ fd: FileDescriptor, _ index: UInt32) throws(Errno) -> BufferPlace
    var map: @Sendable (_ fd: FileDescriptor, _ place: BufferPlace) throws(Errno) -> UnsafeMutableRawPointer
    var unmap: @Sendable (_ pointer: UnsafeMutableRawPointer, _ length: UInt32) -> Void
    var queue: @Sendable (_ fd: FileDescriptor, _ index: UInt32) throws(Errno) -> Void
    /// One filled buffer; nil when none is ready (EAGAIN).
    var dequeue: @Sendable (_ fd: FileDescriptor) throws(Errno) -> Dequeued?
    /// The sequence number of the frame a buffer holds now: a dequeued buffer
    /// keeps its own on a camera, but a v4l2loopback writer can refill it.
    var sequence: @Sendable (_ fd: FileDescriptor, _ index: UInt32) throws(Errno) -> UInt32
    var streamOn: @Sendable (_ fd: FileDescriptor) throws(Errno) -> Void
    var streamOff: @Sendable (_ fd: FileDescriptor) throws(Errno) -> Void
    /// Write-only and blocking, for a loopback writer. The C function is `cv4l2_open_output`.
    var openOutput: @Sendable (_ path: String) throws(Errno) -> FileDescriptor
    /// VIDIOC_S_FMT on the output side: each frame written after it at most `sizeImage` bytes.
    var setOutputFormat: @Sendable (_ fd: FileDescriptor, _ fourcc: UInt32, _ width: UInt32, _ height: UInt32,
                                    _ sizeImage: UInt32) throws(Errno) -> Format
    /// Closes either kind of descriptor; a failure is nothing to act on.
    var close: @Sendable (_ fd: FileDescriptor) -> Void

    static let mjpeg: UInt32 = CV4L2_FMT_MJPEG
    static let jpeg: UInt32 = CV4L2_FMT_JPEG
    static let yuyv: UInt32 = CV4L2_FMT_YUYV
    /// VIDIOC_QUERYCAP's driver name of v4l2loopback, whose writer can refill a dequeued buffer.
    static let loopbackDriver = "v4l2 loopback"
    /// V4L2_BUF_FLAG_ERROR: the driver says the frame is corrupt.
    static let flagError: UInt32 = 0x40

    /// The kernel's calls, through the CV4L2 module.
    static let live = CameraCalls(
        open: { path throws(Errno) in FileDescriptor(rawValue: try valueOrNegativeErrno { cv4l2_open(path) }.get()) },
        capabilities: { fd throws(Errno) in
            var capture: Int32 = 0, streaming: Int32 = 0
            var driver = [CChar](repeating: 0, count: 17)  // v4l2_capability.driver is 16 bytes
            _ = try valueOrNegativeErrno { cv4l2_querycap(fd.rawValue, &capture, &streaming, &driver, driver.count) }.get()
            return Capabilities(capture: capture != 0, streaming: streaming != 0,
                                driver: String(decoding: driver.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        },
        enumFormat: { fd, index throws(Errno) in
            var fourcc: UInt32 = 0
            _ = try valueOrNegativeErrno { cv4l2_enum_fmt(fd.rawValue, index, &fourcc) }.get()
            return fourcc
        },
        setFormat: { fd, fourcc, width, height throws(Errno) in
            var out = cv4l2_format()
            _ = try valueOrNegativeErrno { cv4l2_s_fmt(fd.rawValue, fourcc, width, height, &out) }.get()
            return Format(out)
        },
        setRate: { fd, fps throws(Errno) in
            var num: UInt32 = 0, den: UInt32 = 0
            _ = try valueOrNegativeErrno { cv4l2_s_parm_fps(fd.rawValue, fps, &num, &den) }.get()
            return Interval(numerator: num, denominator: den)
        },
        requestBuffers: { fd, count throws(Errno) in
            var granted: UInt32 = 0
            _ = try valueOrNegativeErrno { cv4l2_reqbufs(fd.rawValue, count, &granted) }.get()
            return granted
        },
        queryBuffer: { fd, index throws(Errno) in
            var offset: UInt32 = 0, length: UInt32 = 0
            _ = try valueOrNegativeErrno { cv4l2_querybuf(fd.rawValue, index, &offset, &length) }.get()
            return BufferPlace(offset: offset, length: length)
        },
        map: { fd, place throws(Errno) in
            var err: Int32 = 0
            guard let pointer = cv4l2_mmap(fd.rawValue, place.offset, place.length, &err) else {
                // A failure with no errno still fails: as EINVAL.
                throw err > 0 ? Errno(err) : Errno.invalidArgument
            }
            return pointer
        },
        unmap: { pointer, length in _ = cv4l2_munmap(pointer, length) },
        queue: { fd, index throws(Errno) in _ = try valueOrNegativeErrno { cv4l2_qbuf(fd.rawValue, index) }.get() },
        dequeue: { fd throws(Errno) in
            var frame = cv4l2_frame()
            let done = try valueOrNilIfWouldBlock(valueOrNegativeErrno { cv4l2_dqbuf(fd.rawValue, &frame) }).get()
            if done == nil { return nil }
            return Dequeued(index: frame.index, bytesUsed: frame.bytesused, flags: frame.flags, sequence: frame.sequence)
        },
        sequence: { fd, index throws(Errno) in
            var sequence: UInt32 = 0
            _ = try valueOrNegativeErrno { cv4l2_buffer_sequence(fd.rawValue, index, &sequence) }.get()
            return sequence
        },
        streamOn: { fd throws(Errno) in _ = try valueOrNegativeErrno { cv4l2_streamon(fd.rawValue) }.get() },
        streamOff: { fd throws(Errno) in _ = try valueOrNegativeErrno { cv4l2_streamoff(fd.rawValue) }.get() },
        openOutput: { path throws(Errno) in
            FileDescriptor(rawValue: try valueOrNegativeErrno { cv4l2_open_output(path) }.get())
        },
        setOutputFormat: { fd, fourcc, width, height, sizeImage throws(Errno) in
            var out = cv4l2_format()
            _ = try valueOrNegativeErrno { cv4l2_s_fmt_output(fd.rawValue, fourcc, width, height, sizeImage, &out) }.get()
            return Format(out)
        },
        // Never retried (FileDescriptor.close): Linux frees the descriptor even when close says EINTR.
        close: { fd in try? fd.close() }
    )

    /// "MJPG", "YUYV": a fourcc in letters, for messages.
    static func name(_ fourcc: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: fourcc >> (8 * $0)) }
        return String(decoding: bytes, as: UTF8.self).trimmed
    }
}

extension CameraCalls.Format {
    fileprivate init(_ out: cv4l2_format) {
        self.init(width: out.width, height: out.height, fourcc: out.pixelformat,
                  bytesPerLine: out.bytesperline, sizeImage: out.sizeimage)
    }
}
