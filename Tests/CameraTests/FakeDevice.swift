@testable import BodyHardware
import BodySystem
import Glibc

/// A V4L2 device in memory behind the camera's seam: it records every call,
/// fills buffers with what a test puts in `next`, and fails whichever call a
/// test names. Not the hardware path: the VM tests cover that.
final class FakeDevice: @unchecked Sendable {
    struct State {
        var formats: [UInt32] = [CameraCalls.yuyv]
        var width: UInt32 = 64
        var height: UInt32 = 48
        var log: [String] = []
        var failing: [String: Int32] = [:]
        var memory: [UnsafeMutableRawPointer] = []
        var ready: [(index: UInt32, bytes: [UInt8], flags: UInt32)] = []
        var queued: [UInt32] = []
        /// What a loopback writer's open returns: a pipe's end lets a test read what it wrote.
        var output = FileDescriptor(rawValue: 7)
        /// The format a loopback node settles on; nil takes what was asked.
        var outputFourcc: UInt32?
        /// Frames made so far: each dequeued frame's sequence number.
        var made: UInt32 = 0
        /// A loopback writer refills the next frame's buffer while it is read.
        var refillNext = false
        /// What VIDIOC_QUERYCAP names as the driver ("v4l2 loopback").
        var driver = "fake"
        /// The sequence number a buffer holds now, where a test set one.
        var numbered: [UInt32: UInt32] = [:]
        /// A loopback whose writer cycles fewer buffers than a reader was granted:
        /// the indexes past it map the same memory again (its QUERYBUF takes index % ring).
        var ring: UInt32?
    }

    let state = Confined(State())
    static let length: UInt32 = 64 * 48 * 2 + 8192

    deinit {
        state.withLock { s in for p in s.memory { p.deallocate() } }
    }

    func fail(_ call: String, errno: Int32) { state.withLock { $0.failing[call] = errno } }
    var log: [String] { state.withLock { $0.log } }

    /// Makes one frame ready in the next queued buffer, or in `at`.
    func produce(_ bytes: [UInt8], flags: UInt32 = 0, at: UInt32? = nil) {
        state.withLock { s in
            let index = at.map { i in s.queued.remove(at: s.queued.firstIndex(of: i)!) } ?? s.queued.removeFirst()
            s.memory[Int(index)].copyMemory(from: bytes, byteCount: min(bytes.count, Int(FakeDevice.length)))
            s.ready.append((index, bytes, flags))
        }
    }

    /// Logs the call; throws the errno a test named for it.
    private func record(_ call: String) throws(Errno) {
        let failing = state.withLock { s in
            s.log.append(call)
            return s.failing[call]
        }
        if let failing { throw Errno(failing) }
    }

    var calls: CameraCalls {
        CameraCalls(
            open: { _ throws(Errno) in try self.record("open"); return FileDescriptor(rawValue: 7) },
            capabilities: { _ throws(Errno) in try self.record("querycap"); return .init(capture: true, streaming: true, driver: self.state.withLock { $0.driver }) },
            enumFormat: { _, index throws(Errno) in
                let formats = self.state.withLock { $0.formats }
                guard Int(index) < formats.count else { throw Errno.invalidArgument }
                return formats[Int(index)]
            },
            setFormat: { _, fourcc, _, _ throws(Errno) in
                try self.record("s_fmt")
                let (w, h) = self.state.withLock { ($0.width, $0.height) }
                let bpl = fourcc == CameraCalls.yuyv ? w * 2 : 0
                return .init(width: w, height: h, fourcc: fourcc, bytesPerLine: bpl, sizeImage: w * h * 2)
            },
            setRate: { _, fps throws(Errno) in try self.record("s_parm"); return .init(numerator: 1, denominator: fps) },
            requestBuffers: { _, count throws(Errno) in try self.record("reqbufs \(count)"); return count },
            queryBuffer: { _, index throws(Errno) in
                try self.record("querybuf")
                let ring = self.state.withLock { $0.ring }
                return .init(offset: (ring.map { index % $0 } ?? index) * 65536, length: FakeDevice.length)
            },
            map: { _, place throws(Errno) in
                try self.record("mmap")
                let p = UnsafeMutableRawPointer.allocate(byteCount: Int(place.length), alignment: 16)
                self.state.withLock { $0.memory.append(p) }
                return p
            },
            unmap: { _, _ in try? self.record("munmap") },
            queue: { _, index throws(Errno) in
                try self.record("qbuf")
                self.state.withLock { $0.queued.append(index) }
            },
            dequeue: { _ throws(Errno) in
                try self.record("dqbuf")
                return self.state.withLock { s in
                    guard !s.ready.isEmpty else { return nil }
                    let f = s.ready.removeFirst()
                    s.made &+= 1
                    return .init(index: f.index, bytesUsed: UInt32(f.bytes.count), flags: f.flags, sequence: s.made)
                }
            },
            sequence: { _, index throws(Errno) in
                try self.record("querybuf sequence \(index)")
                return self.state.withLock { s in
                    if let set = s.numbered[index] { return set }
                    defer { s.refillNext = false }
                    return s.refillNext ? s.made &+ 1 : s.made
                }
            },
            streamOn: { _ throws(Errno) in try self.record("streamon") },
            streamOff: { _ throws(Errno) in try self.record("streamoff") },
            openOutput: { _ throws(Errno) in
                try self.record("open output")
                return self.state.withLock { $0.output }
            },
            setOutputFormat: { _, fourcc, width, height, sizeImage throws(Errno) in
                try self.record("s_fmt output")
                let chosen = self.state.withLock { $0.outputFourcc } ?? fourcc
                return .init(width: width, height: height, fourcc: chosen, bytesPerLine: 0, sizeImage: sizeImage)
            },
            close: { _ in try? self.record("close") }
        )
    }
}

/// State used from one test's thread only; the seam's closures are @Sendable
/// because the real calls are, not because a test shares them.
final class Confined<Value>: @unchecked Sendable {
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R { body(&value) }
}
