/// Whole JPEG frames out of a byte stream of one JPEG after another (what
/// `rpicam-vid --codec mjpeg -o -` writes), each found by walking its markers
/// (`JPEG.endOfImage`), never by searching for FF D9. A plain value: bytes in,
/// frames out.
public struct MJPEGStream: Sendable {
    /// The most bytes held for one frame whose end has not come: past it the
    /// frame is taken as broken and the stream moves on to the next start.
    public static let frameLimit = 4 << 20

    private var held: [UInt8] = []
    /// Bytes that were no whole frame (before a start, or a broken frame).
    public private(set) var skipped = 0

    public init() {}

    /// The frames these bytes complete, in order.
    public mutating func take<C: Collection>(_ bytes: C) -> [[UInt8]] where C.Element == UInt8 {
        held.append(contentsOf: bytes)
        var frames: [[UInt8]] = []
        var at = 0
        while let start = Self.start(in: held, from: at) {
            skipped += start - at
            at = start
            let end = held.withUnsafeBytes { JPEG.endOfImage(in: UnsafeRawBufferPointer(rebasing: $0[start...])) }
            if let end {
                frames.append(Array(held[start..<(start + end)]))
                at = start + end
            } else if held.count - start > Self.frameLimit {
                // Broken (or not a JPEG at all): look for the next start after this one.
                skipped += 2
                at = start + 2
            } else {
                break
            }
        }
        if Self.start(in: held, from: at) == nil {
            // Keep a last FF: it may be the first half of the next start.
            let keep = held.last == 0xFF && held.count > at ? 1 : 0
            skipped += held.count - at - keep
            at = held.count - keep
        }
        held.removeFirst(at)
        return frames
    }

    /// Where the next SOI (FF D8) begins, at or after `from`.
    static func start(in bytes: [UInt8], from: Int) -> Int? {
        var i = from
        while i + 1 < bytes.count {
            if bytes[i] == 0xFF && bytes[i + 1] == 0xD8 { return i }
            i += 1
        }
        return nil
    }
}
