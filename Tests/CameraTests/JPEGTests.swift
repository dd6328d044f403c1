import Testing
import BodyHardware

/// A YUYV frame: a horizontal luma ramp with neutral chroma.
func rampFrame(width: Int, height: Int) -> [UInt8] {
    var frame = [UInt8](repeating: 128, count: width * height * 2)
    for row in 0..<height {
        for x in 0..<width {
            frame[(row * width + x) * 2] = UInt8((x + row) % 256)
        }
    }
    return frame
}

@Suite("JPEG frames")
struct JPEGTests {
    @Test("a YUYV frame encodes to a JPEG that decodes at the same size", arguments: [(640, 480), (320, 180), (1280, 720)])
    func encodesDecodable(size: (Int, Int)) throws {
        let encoder = try YUYVEncoder(width: size.0, height: size.1)
        let jpeg = try encoder.encode(rampFrame(width: size.0, height: size.1))
        #expect(jpeg.prefix(2) == [0xFF, 0xD8])
        #expect(jpeg.suffix(2) == [0xFF, 0xD9])
        let decoded = try JPEG.decode(jpeg)
        #expect(decoded.width == size.0)
        #expect(decoded.height == size.1)
    }

    @Test("a padded stride is read line by line, not as packed")
    func paddedStride() throws {
        let encoder = try YUYVEncoder(width: 64, height: 48)
        var padded: [UInt8] = []
        let packed = rampFrame(width: 64, height: 48)
        for row in 0..<48 { padded += packed[(row * 128)..<(row * 128 + 128)] + [UInt8](repeating: 0, count: 32) }
        let fromPadded = try encoder.encode(padded, bytesPerLine: 160)
        let fromPacked = try encoder.encode(packed)
        #expect(fromPadded == fromPacked)
    }

    @Test("an odd width is refused in words")
    func oddWidth() {
        #expect(throws: CameraError(.unsupported, "camera: cannot encode YUYV at 63x48: the width must be even and positive")) {
            try YUYVEncoder(width: 63, height: 48)
        }
    }

    @Test("a frame shorter than its size is refused, not read past its end")
    func shortFrame() throws {
        let encoder = try YUYVEncoder(width: 64, height: 48)
        #expect(throws: CameraError.self) { try encoder.encode([UInt8](repeating: 0, count: 100)) }
    }

    @Test("a padded buffer is cut right after the end-of-image marker")
    func cutsPadding() throws {
        let jpeg = try YUYVEncoder(width: 64, height: 48).encode(rampFrame(width: 64, height: 48))
        let padded = jpeg + [UInt8](repeating: 0, count: 4096)
        #expect(JPEG.cutAtEndOfImage(padded) == jpeg)
        #expect(JPEG.cutAtEndOfImage(jpeg) == jpeg)
    }

    @Test("an end-of-image marker inside a segment (a thumbnail) does not cut the frame short")
    func markerInsideSegment() throws {
        let jpeg = try YUYVEncoder(width: 64, height: 48).encode(rampFrame(width: 64, height: 48))
        // An APP1 segment right after SOI holding FF D8 ... FF D9.
        let payload: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0, 0xFF, 0xD8, 1, 2, 0xFF, 0xD9]
        let app1: [UInt8] = [0xFF, 0xE1, 0, UInt8(payload.count + 2)] + payload
        let withThumbnail = Array(jpeg[..<2]) + app1 + Array(jpeg[2...])
        #expect(JPEG.cutAtEndOfImage(withThumbnail + [0, 0, 0]) == withThumbnail)
        #expect(try JPEG.decode(withThumbnail).width == 64)
    }

    @Test("a JPEG that stops before its end-of-image marker is not a frame")
    func truncated() throws {
        let jpeg = try YUYVEncoder(width: 64, height: 48).encode(rampFrame(width: 64, height: 48))
        #expect(JPEG.cutAtEndOfImage(Array(jpeg.dropLast(2))) == nil)
        #expect(JPEG.cutAtEndOfImage(Array(jpeg.prefix(jpeg.count / 2))) == nil)
    }

    @Test("bytes that do not start with SOI are not a frame")
    func notJPEG() {
        #expect(JPEG.cutAtEndOfImage([]) == nil)
        #expect(JPEG.cutAtEndOfImage([0, 0, 0xFF, 0xD9]) == nil)
        #expect(JPEG.cutAtEndOfImage([UInt8](repeating: 0, count: 4096)) == nil)
    }

    @Test("a decode of bytes that are not a JPEG throws in words")
    func decodeGarbage() {
        #expect(throws: CameraError.self) { try JPEG.decode([1, 2, 3, 4]) }
    }
}
