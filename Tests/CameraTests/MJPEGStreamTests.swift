import Testing
import BodyHardware

/// What `rpicam-vid --codec mjpeg -o -` writes, cut into frames for a
/// v4l2loopback node (`studio-body camera-feed`).
@Suite("MJPEG frames out of a byte stream")
struct MJPEGStreamTests {
    static let a = try! YUYVEncoder(width: 64, height: 48).encode(rampFrame(width: 64, height: 48))
    static let b = try! YUYVEncoder(width: 64, height: 48, quality: 40).encode(rampFrame(width: 64, height: 48))

    @Test("frames in one chunk and frames cut anywhere give the same frames", arguments: [1, 7, 100, 4096, 1 << 20])
    func chunks(size: Int) {
        let bytes = Self.a + Self.b + Self.a
        var stream = MJPEGStream()
        var frames: [[UInt8]] = []
        var at = 0
        while at < bytes.count {
            frames += stream.take(bytes[at..<min(at + size, bytes.count)])
            at += size
        }
        #expect(frames == [Self.a, Self.b, Self.a])
        #expect(stream.skipped == 0)
    }

    @Test("a stream joined mid-frame skips to the next start")
    func joinedMidFrame() {
        var stream = MJPEGStream()
        let tail = Array(Self.a.suffix(100))
        #expect(stream.take(tail + Self.b) == [Self.b])
        #expect(stream.skipped == 100)
    }

    @Test("an end-of-image marker inside a segment does not end the frame early")
    func thumbnail() {
        let payload: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0, 0xFF, 0xD8, 1, 2, 0xFF, 0xD9]
        let app1: [UInt8] = [0xFF, 0xE1, 0, UInt8(payload.count + 2)] + payload
        let withThumbnail = Array(Self.a[..<2]) + app1 + Array(Self.a[2...])
        var stream = MJPEGStream()
        #expect(stream.take(withThumbnail + Self.b) == [withThumbnail, Self.b])
    }

    @Test("a broken frame is given up past the limit, and the stream goes on")
    func broken() {
        var stream = MJPEGStream()
        // A start, then a marker the walk cannot read: never a whole frame.
        let broken: [UInt8] = [0xFF, 0xD8, 0x00, 0x01]
        #expect(stream.take(broken).isEmpty)
        let filler = [UInt8](repeating: 0x11, count: MJPEGStream.frameLimit)
        #expect(stream.take(filler + Self.a) == [Self.a])
        #expect(stream.skipped == broken.count + filler.count)
    }

    @Test("a frame's first byte at a chunk's end is kept for the next chunk")
    func splitStart() {
        var stream = MJPEGStream()
        #expect(stream.take([0x00, 0x01, 0xFF]).isEmpty)
        #expect(stream.take(Self.a.dropFirst()) == [Self.a])
        #expect(stream.skipped == 2)
    }
}
