import Testing
import BodyHardware
import Glibc
import BodySystem

/// CPU per frame of the YUYV encode at 640x480, run by hand:
/// `STUDIO_BODY_BENCH=1 swift test -c release --filter EncodeBenchmark` (figures in docs/eyes.md).
@Suite("encode benchmark", .enabled(if: getenv("STUDIO_BODY_BENCH") != nil, "set STUDIO_BODY_BENCH=1"))
struct EncodeBenchmark {
    static func cpu() -> Double { SystemClock.processCPU() }

    @Test("YUYV 640x480 to JPEG at quality 80: CPU milliseconds per frame")
    func perFrame() throws {
        let encoder = try YUYVEncoder(width: 640, height: 480)
        // A busy picture (a ramp with noise), closer to a camera's than a flat one.
        var frame = rampFrame(width: 640, height: 480)
        var seed: UInt32 = 1
        for i in stride(from: 0, to: frame.count, by: 2) {
            seed = seed &* 1_103_515_245 &+ 12345
            frame[i] = frame[i] &+ UInt8(truncatingIfNeeded: seed >> 24) / 8
        }
        _ = try encoder.encode(frame)
        let n = 200
        var bytes = 0
        let start = EncodeBenchmark.cpu()
        for _ in 0..<n { bytes += try encoder.encode(frame).count }
        let perFrame = (EncodeBenchmark.cpu() - start) / Double(n) * 1000
        print("encode 640x480 YUYV->JPEG q80: \((perFrame * 100).rounded() / 100) ms CPU per frame, \(bytes / n) bytes per frame, over \(n) frames")
        #expect(perFrame > 0)
    }
}
