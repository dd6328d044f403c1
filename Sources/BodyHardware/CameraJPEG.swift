internal import CTurboJPEG
import BodySystem

/// JPEG frames as bytes: where one ends, and whether it decodes.
public enum JPEG {
    /// The length of the JPEG at the start of `bytes`, through its end-of-image
    /// marker; nil if it does not start with SOI or ends before its EOI.
    ///
    /// Walks the marker segments rather than searching for FF D9, so an EOI
    /// inside a segment (an EXIF thumbnail) does not cut the frame short; in the
    /// entropy-coded data FF is always stuffed (FF 00) or a restart marker.
    public static func endOfImage(in bytes: UnsafeRawBufferPointer) -> Int? {
        let n = bytes.count
        guard n >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var i = 2
        while i + 1 < n {
            guard bytes[i] == 0xFF else { return nil }
            var m = bytes[i + 1]
            while m == 0xFF {  // fill bytes before a marker
                i += 1
                guard i + 1 < n else { return nil }
                m = bytes[i + 1]
            }
            switch m {
            case 0xD9:
                return i + 2
            case 0x01, 0xD0...0xD7:
                i += 2
            default:
                guard i + 3 < n else { return nil }
                let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
                guard length >= 2 else { return nil }
                i += 2 + length
                if m == 0xDA {
                    // Entropy-coded data: runs until an FF that is neither stuffing nor a restart.
                    // memchr (ByteSearch) keeps this fast on the loop thread, even in a debug build.
                    while i + 1 < n {
                        guard let hit = ByteSearch.first(0xFF, in: bytes, from: i, end: n - 1) else { return nil }
                        i = hit
                        let next = bytes[i + 1]
                        if next != 0x00 && !(0xD0...0xD7).contains(next) { break }
                        i += 1
                    }
                }
            }
        }
        return nil
    }

    /// The JPEG at the start of `bytes` cut at its end-of-image marker (some
    /// cameras pad their buffers), or nil when it is not a whole JPEG.
    public static func cutAtEndOfImage(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBytes { raw in endOfImage(in: raw).map { Array(bytes[..<$0]) } }
    }

    /// Decodes the whole image (and throws it away): the size of a JPEG that a
    /// browser can show. The C functions are `tjDecompressHeader3` and `tjDecompress2`.
    public static func decode(_ jpeg: [UInt8]) throws(CameraError) -> (width: Int, height: Int) {
        guard let handle = tjInitDecompress() else {
            throw CameraError(.failed, "camera: cannot start a JPEG decoder: \(String(cString: tjGetErrorStr2(nil)))")
        }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsamp: Int32 = 0, colorspace: Int32 = 0
        var pixels: [UInt8] = []
        let rc: Int32 = jpeg.withUnsafeBufferPointer { src in
            guard tjDecompressHeader3(handle, src.baseAddress, UInt(src.count),
                                      &width, &height, &subsamp, &colorspace) == 0 else { return -1 }
            pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 3)
            return pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(handle, src.baseAddress, UInt(src.count), dst.baseAddress,
                              width, 0, height, Int32(TJPF_RGB.rawValue), 0)
            }
        }
        if rc != 0 {
            throw CameraError(.failed, "camera: cannot decode a JPEG of \(jpeg.count) bytes: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return (Int(width), Int(height))
    }
}

/// Turns YUYV 4:2:2 frames into JPEGs with TurboJPEG, reusing its buffers
/// from frame to frame. The C functions are `tjInitCompress`,
/// `tjCompressFromYUV`, `tjDestroy` and `tjFree`.
public final class YUYVEncoder {
    public let width: Int
    public let height: Int
    public let quality: Int
    private let handle: tjhandle
    private var planar: [UInt8]
    private let capacity: UInt
    private let output: UnsafeMutablePointer<UInt8>

    public init(width: Int, height: Int, quality: Int = 80) throws(CameraError) {
        guard width > 0, height > 0, width % 2 == 0 else {
            throw CameraError(.unsupported, "camera: cannot encode YUYV at \(width)x\(height): the width must be even and positive")
        }
        guard let handle = tjInitCompress() else {
            throw CameraError(.failed, "camera: cannot start a JPEG encoder: \(String(cString: tjGetErrorStr2(nil)))")
        }
        let capacity = tjBufSize(Int32(width), Int32(height), Int32(TJSAMP_422.rawValue))
        guard let output = tjAlloc(Int32(capacity)) else {
            tjDestroy(handle)
            throw CameraError(.failed, "camera: cannot allocate \(capacity) bytes for JPEG frames")
        }
        self.width = width
        self.height = height
        self.quality = quality
        self.handle = handle
        self.capacity = capacity
        self.output = output
        planar = [UInt8](repeating: 0, count: width * height * 2)
    }

    deinit {
        tjFree(output)
        tjDestroy(handle)
    }

    /// Encodes one frame; `bytesPerLine` is the source's line stride (at least width * 2).
    public func encode(_ yuyv: UnsafeRawBufferPointer, bytesPerLine: Int) throws(CameraError) -> [UInt8] {
        guard bytesPerLine >= width * 2, yuyv.count >= bytesPerLine * (height - 1) + width * 2,
              let src = yuyv.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw CameraError(.failed, "camera: cannot encode a YUYV frame of \(yuyv.count) bytes as \(width)x\(height)")
        }
        var size = capacity
        var out: UnsafeMutablePointer<UInt8>? = output
        let rc = planar.withUnsafeMutableBufferPointer { dst in
            ctj_yuyv_to_i422(src, Int32(bytesPerLine), Int32(width), Int32(height), dst.baseAddress)
            // NOREALLOC: the buffer is tjBufSize for this size, the worst case.
            return tjCompressFromYUV(handle, dst.baseAddress, Int32(width), 1, Int32(height),
                                     Int32(TJSAMP_422.rawValue), &out, &size, Int32(quality),
                                     TJFLAG_NOREALLOC)
        }
        if rc != 0 {
            throw CameraError(.failed, "camera: cannot encode a \(width)x\(height) frame: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Encodes one frame held in an array (tests, benchmarks).
    public func encode(_ yuyv: [UInt8], bytesPerLine: Int? = nil) throws(CameraError) -> [UInt8] {
        let stride = bytesPerLine ?? width * 2
        let result: Result<[UInt8], CameraError> = yuyv.withUnsafeBytes { raw in
            Result { () throws(CameraError) in try encode(raw, bytesPerLine: stride) }
        }
        return try result.get()
    }
}
