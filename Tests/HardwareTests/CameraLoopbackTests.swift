import Foundation
import Glibc
import Testing
@testable import BodyHardware
import BodySystem
import BodyTestSupport
import Synchronization

/// How many dequeues still stall, shared with the seam's @Sendable closures.
private final class Stalls: Sendable {
    let left: Atomic<Int>
    init(_ n: Int) { left = Atomic(n) }
}

/// v4l2loopback fed with JPEG frames by Tests/hil/jpeg-feeder: an MJPEG
/// camera, whose frames pass through untouched.
@Suite("camera on v4l2loopback (VM)", .serialized, .enabled(if: CameraHIL.enabled, "set STUDIO_BODY_HIL=1 (Tests/hil/camera-tests)"))
struct CameraLoopbackTests {
    /// Distinct JPEGs, written where the feeder reads them (a tmpfs in the VM).
    func fixtures() throws -> (dir: String, frames: [[UInt8]]) {
        let dir = "/tmp/camera-frames-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let encoder = try YUYVEncoder(width: 640, height: 480)
        var frames: [[UInt8]] = []
        for n in 0..<8 {
            var yuyv = [UInt8](repeating: 128, count: 640 * 480 * 2)
            for i in stride(from: 0, to: yuyv.count, by: 2) { yuyv[i] = UInt8((i / 2 + n * 29) % 256) }
            let jpeg = try encoder.encode(yuyv)
            try Data(jpeg).write(to: URL(fileURLWithPath: "\(dir)/\(n).jpg"))
            frames.append(jpeg)
        }
        return (dir, frames)
    }

    @Test("MJPEG frames pass through byte for byte, cut at their end-of-image marker, at the feeder's rate")
    func passthrough() throws {
        let (dir, fed) = try fixtures()
        let feeder = Process()
        let hil = Repository.url("Tests/hil/jpeg-feeder")
        feeder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        feeder.arguments = [hil.path, CameraHIL.loopback, "640", "480", "15"] + (0..<fed.count).map { "\(dir)/\($0).jpg" }
        try feeder.run()
        // SIGKILL: the feeder inherits the test runner's blocked SIGTERM and would ignore terminate().
        defer { kill(feeder.processIdentifier, SIGKILL); feeder.waitForExit() }

        // With exclusive_caps the node offers capture only once the feeder writes.
        var camera: Camera? = nil
        var lastError: CameraError? = nil
        let deadline = CameraHIL.now() + 10
        while camera == nil && CameraHIL.now() < deadline {
            do { camera = try Camera.open(path: CameraHIL.loopback, width: 640, height: 480, fps: 15) }
            catch { lastError = error; usleep(100_000) }
        }
        let cam = try #require(camera, "no capture on \(CameraHIL.loopback): \(lastError.map(String.init(describing:)) ?? "?")")
        defer { cam.close() }
        #expect(cam.passthrough)
        #expect(cam.format.hasPrefix("MJPEG 640x480 @"))

        // Judged only over seconds the VM did not stand still through (StallMeter): a stalled
        // feeder writes its missed frames back to back, and the buffers keep only the newest.
        let measured = try StallMeter.unspoiled("v4l2loopback MJPEG 640x480") { try CameraHIL.frames(cam, for: 3) }
        let frames = try #require(measured, "every try's rate was spoiled by the VM's stalls (see above)")
        let rate = CameraHIL.rate(frames)
        print("v4l2loopback MJPEG 640x480: \(frames.count) frames, \(rate) fps, format \(cam.format)")
        #expect(frames.count > 10)
        #expect(abs(rate - 15) <= 1.5, "\(rate) fps is not 15 within 10%")
        // Compared outside #expect, which would print every byte of both sides.
        let strangers = frames.filter { !fed.contains($0.jpeg) }.map(\.jpeg.count)
        #expect(strangers.isEmpty, "\(strangers.count) of \(frames.count) frames were not ones fed (sizes \(strangers.prefix(5)))")
        cam.close()
        #expect(!CameraHIL.holds(CameraHIL.loopback))
        try? FileManager.default.removeItem(atPath: dir)
    }

    @Test("a reader that stalls between dequeue and copy (the feeder refills the buffer) gets a bad frame in words, not a torn one; read in time, frames are whole")
    func refilledWhileRead() throws {
        let (dir, fed) = try fixtures()
        let feeder = Process()
        feeder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        feeder.arguments = [Repository.url("Tests/hil/jpeg-feeder").path, CameraHIL.loopback, "640", "480", "15"]
            + (0..<fed.count).map { "\(dir)/\($0).jpg" }
        try feeder.run()
        defer { kill(feeder.processIdentifier, SIGKILL); feeder.waitForExit() }

        // The kernel's own calls; the first three dequeues then stall, where
        // a busy computer stalls, until the feeder has refilled the buffer
        // (its sequence moved: the refill is whole), 10 s at most: a feeder
        // the busy VM holds back only makes the stall longer, not the verdict.
        let stalls = Stalls(3)
        var calls = CameraCalls.live
        let dequeue = calls.dequeue, sequence = calls.sequence
        calls.dequeue = { fd throws(Errno) in
            let got = try dequeue(fd)
            if let got, stalls.left.subtract(1, ordering: .relaxed).oldValue > 0 {
                let until = CameraHIL.now() + 10
                while CameraHIL.now() < until, (try? sequence(fd, got.index)) == got.sequence { usleep(10_000) }
            }
            return got
        }
        var camera: Camera? = nil
        let deadline = CameraHIL.now() + 10
        while camera == nil && CameraHIL.now() < deadline {
            camera = try? Camera.open(path: CameraHIL.loopback, width: 640, height: 480, fps: 15, calls: calls)
            if camera == nil { usleep(100_000) }
        }
        let cam = try #require(camera, "no capture on \(CameraHIL.loopback)")
        defer { cam.close() }

        // Three stalled reads, then until ten whole frames (a catch-up after a
        // stall may drop a few more: how many depends on the host, not the code).
        var read: [CameraFrame] = []
        let until = CameraHIL.now() + 45
        while read.dropFirst(3).compactMap(\.jpeg).count < 10 && read.count < 40 && CameraHIL.now() < until {
            var pfd = pollfd(fd: cam.descriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 1000)
            if pfd.revents != 0, let frame = try cam.readFrame() { read.append(frame) }
        }
        let overwritten = CameraFrame.bad(Camera.overwritten)
        print("refilled while read: \(read.map { $0 == overwritten ? "overwritten" : $0.jpeg.map { "\($0.count) bytes" } ?? "\($0)" })")
        #expect(read.count >= 13)
        #expect(read.prefix(3).allSatisfy { $0 == overwritten }, "the stalled reads: \(read.prefix(3))")
        // Read in time, a frame is a whole one fed. The feeder catches up after
        // a stall of its own with frames back to back, which can refill a
        // buffer even in a short read: such a frame is dropped too, never torn.
        let after = read.dropFirst(3)
        let whole = after.compactMap(\.jpeg)
        #expect(whole.allSatisfy(fed.contains), "a frame read in time was not one fed")
        #expect(after.allSatisfy { $0.jpeg != nil || $0 == overwritten }, "the frames after: \(after.filter { $0.jpeg == nil })")
        #expect(whole.count >= 10, "\(whole.count) whole frames in \(after.count) reads after the stalls")
        try? FileManager.default.removeItem(atPath: dir)
    }
}
