@testable import BodyHardware
import BodySystem

/// A camera that opens (MJPEG, four buffers, behind the V4L2 seam) and gives
/// only the frames the test hands it. Its descriptor is an eventfd, signalled
/// for each frame, so the agent's loop wakes for it as for a device node.
/// Used from the test's thread only.
final class FakeCamera: @unchecked Sendable {
    static let length: UInt32 = 4096
    /// A whole JPEG, as short as one can be.
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]

    private let counter: EventCounter
    private var memory: [UnsafeMutableRawPointer] = []
    private var queued: [UInt32] = []
    private var ready: [CameraCalls.Dequeued] = []

    init() throws { counter = try EventCounter() }

    deinit { for p in memory { p.deallocate() } }

    /// For `PreviewService.cameraMaker`: the camera opened as the device's would be.
    func open(path: String, width: Int, height: Int, fps: Int) throws(CameraError) -> Camera {
        try Camera.open(path: path, width: width, height: height, fps: fps, calls: calls)
    }

    /// One frame in the next queued buffer; `damaged`: the driver's error flag on it.
    func deliver(_ bytes: [UInt8], damaged: Bool = false) throws {
        let index = queued.removeFirst()
        memory[Int(index)].copyMemory(from: bytes, byteCount: bytes.count)
        ready.append(.init(index: index, bytesUsed: UInt32(bytes.count), flags: damaged ? CameraCalls.flagError : 0))
        try counter.signal()
    }

    private var calls: CameraCalls {
        CameraCalls(
            open: { _ throws(Errno) in self.counter.descriptor! },
            capabilities: { _ in .init(capture: true, streaming: true) },
            enumFormat: { _, index throws(Errno) in
                guard index == 0 else { throw Errno.invalidArgument }
                return CameraCalls.mjpeg
            },
            setFormat: { _, fourcc, width, height in
                .init(width: width, height: height, fourcc: fourcc, bytesPerLine: 0, sizeImage: FakeCamera.length)
            },
            setRate: { _, fps in .init(numerator: 1, denominator: fps) },
            requestBuffers: { _, count in count },
            queryBuffer: { _, index in .init(offset: index * FakeCamera.length, length: FakeCamera.length) },
            map: { _, place in
                let p = UnsafeMutableRawPointer.allocate(byteCount: Int(place.length), alignment: 16)
                self.memory.append(p)
                return p
            },
            unmap: { _, _ in },
            queue: { _, index in self.queued.append(index) },
            dequeue: { _ in
                // Dry: the eventfd is read empty, so the loop's level-triggered watch rests.
                guard !self.ready.isEmpty else {
                    _ = try? self.counter.drain()
                    return nil
                }
                return self.ready.removeFirst()
            },
            // A camera's dequeued buffer keeps its frame: every sequence is 0.
            sequence: { _, _ in 0 },
            streamOn: { _ in },
            streamOff: { _ in },
            openOutput: { _ throws(Errno) in throw Errno.invalidArgument },
            setOutputFormat: { _, _, _, _, _ throws(Errno) in throw Errno.invalidArgument },
            // The eventfd is the counter's to close.
            close: { _ in }
        )
    }
}
