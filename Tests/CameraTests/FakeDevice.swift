@testable import BodyHardware
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
    }

    let state = Confined(State())
    static let length: UInt32 = 64 * 48 * 2 + 8192

    deinit {
        state.withLock { s in for p in s.memory { p.deallocate() } }
    }

    func fail(_ call: String, errno: Int32) { state.withLock { $0.failing[call] = errno } }
    var log: [String] { state.withLock { $0.log } }

    /// Makes one frame ready in the next queued buffer.
    func produce(_ bytes: [UInt8], flags: UInt32 = 0) {
        state.withLock { s in
            let index = s.queued.removeFirst()
            s.memory[Int(index)].copyMemory(from: bytes, byteCount: min(bytes.count, Int(FakeDevice.length)))
            s.ready.append((index, bytes, flags))
        }
    }

    private func record(_ call: String) -> Int32 {
        state.withLock { s in
            s.log.append(call)
            return s.failing[call].map { -$0 } ?? 0
        }
    }

    var calls: CameraCalls {
        CameraCalls(
            open: { path in let rc = self.record("open"); return rc < 0 ? rc : 7 },
            capabilities: { _ in (self.record("querycap"), true, true) },
            enumFormat: { _, index in
                let formats = self.state.withLock { $0.formats }
                return Int(index) < formats.count ? (0, formats[Int(index)]) : (-EINVAL, 0)
            },
            setFormat: { _, fourcc, _, _ in
                let rc = self.record("s_fmt")
                let (w, h) = self.state.withLock { ($0.width, $0.height) }
                let bpl = fourcc == CameraCalls.yuyv ? w * 2 : 0
                return (rc, .init(width: w, height: h, fourcc: fourcc, bytesPerLine: bpl, sizeImage: w * h * 2))
            },
            setRate: { _, fps in (self.record("s_parm"), 1, fps) },
            requestBuffers: { _, count in
                let rc = self.record("reqbufs \(count)")
                return (rc, count)
            },
            queryBuffer: { _, index in (self.record("querybuf"), index * 65536, FakeDevice.length) },
            map: { _, _, length in
                let rc = self.record("mmap")
                if rc < 0 { return (nil, rc) }
                let p = UnsafeMutableRawPointer.allocate(byteCount: Int(length), alignment: 16)
                self.state.withLock { $0.memory.append(p) }
                return (p, 0)
            },
            unmap: { _, _ in _ = self.record("munmap") },
            queue: { _, index in
                let rc = self.record("qbuf")
                if rc == 0 { self.state.withLock { $0.queued.append(index) } }
                return rc
            },
            dequeue: { _ in
                let rc = self.record("dqbuf")
                if rc < 0 { return (rc, .init(index: 0, bytesUsed: 0, flags: 0)) }
                return self.state.withLock { s in
                    guard !s.ready.isEmpty else { return (-EAGAIN, .init(index: 0, bytesUsed: 0, flags: 0)) }
                    let f = s.ready.removeFirst()
                    return (0, .init(index: f.index, bytesUsed: UInt32(f.bytes.count), flags: f.flags))
                }
            },
            streamOn: { _ in self.record("streamon") },
            streamOff: { _ in self.record("streamoff") },
            close: { _ in self.record("close") }
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
