import Testing
@testable import BodyHardware
import Glibc

@Suite("camera lifetimes and failures, through the seam")
struct CameraSeamTests {
    func open(_ device: FakeDevice) throws -> Camera {
        try Camera.open(path: "/dev/video0", width: 64, height: 48, fps: 15, calls: device.calls)
    }

    @Test("a missing device is said with its path and the cause")
    func missing() {
        let device = FakeDevice()
        device.fail("open", errno: ENOENT)
        #expect(throws: CameraError(.absent, "camera: cannot open /dev/video0: No such file or directory")) {
            try open(device)
        }
    }

    @Test("a device held by another process is busy")
    func busy() {
        let device = FakeDevice()
        device.fail("streamon", errno: EBUSY)
        #expect(throws: CameraError(.busy, "camera: cannot start streaming on /dev/video0: Device or resource busy")) {
            try open(device)
        }
    }

    @Test("a half-finished open releases what it took, in reverse")
    func halfOpen() {
        let device = FakeDevice()
        device.fail("streamon", errno: EBUSY)
        _ = try? open(device)
        let tail = device.log.drop { $0 != "streamon" }
        #expect(Array(tail) == ["streamon", "munmap", "munmap", "munmap", "munmap", "reqbufs 0", "close"])
    }

    @Test("a failed mmap unmaps only what was mapped")
    func failedMap() {
        let device = FakeDevice()
        device.fail("mmap", errno: ENOMEM)
        #expect(throws: CameraError.self) { try open(device) }
        #expect(device.log.filter { $0 == "munmap" }.isEmpty)
        #expect(device.log.suffix(2) == ["reqbufs 0", "close"])
    }

    @Test("MJPEG is preferred over YUYV and passes through")
    func prefersMJPEG() throws {
        let device = FakeDevice()
        device.state.withLock { $0.formats = [CameraCalls.yuyv, CameraCalls.mjpeg] }
        let camera = try open(device)
        #expect(camera.passthrough)
        #expect(camera.format == "MJPEG 64x48 @15 (passthrough)")
    }

    @Test("YUYV alone is encoded")
    func yuyvEncoded() throws {
        let camera = try open(FakeDevice())
        #expect(!camera.passthrough)
        #expect(camera.format == "YUYV 64x48 @15 (encoded)")
    }

    @Test("a camera with neither MJPEG nor YUYV is refused, naming what it offers")
    func unsupported() {
        let device = FakeDevice()
        device.state.withLock { $0.formats = [0x3231_564E, 0x3342_4752] }  // NV12, RGB3
        #expect(throws: CameraError(.unsupported, "camera: cannot use /dev/video0: it offers neither MJPEG nor YUYV (it offers NV12, RGB3)")) {
            try open(device)
        }
        #expect(device.log.last == "close")
    }

    @Test("nothing ready reads as nil, not as an error")
    func nothingReady() throws {
        let camera = try open(FakeDevice())
        #expect(try camera.readFrame() == nil)
    }

    @Test("a passthrough frame is cut at its end-of-image marker and its buffer requeued")
    func passthroughCut() throws {
        let device = FakeDevice()
        device.state.withLock { $0.formats = [CameraCalls.mjpeg] }
        let camera = try open(device)
        let jpeg = try YUYVEncoder(width: 64, height: 48).encode(rampFrame(width: 64, height: 48))
        device.produce(jpeg + [UInt8](repeating: 0, count: 1000))
        #expect(try camera.readFrame() == .jpeg(jpeg))
        #expect(device.state.withLock { $0.queued.count } == 4)
    }

    @Test("bad passthrough frames are said in words and their buffers requeued; the next whole one passes",
          arguments: [([UInt8](), "an empty frame"),
                      ([0x12, 0x34, 0x56, 0x78, 0x9A], "a frame of 5 bytes that is not a whole JPEG")])
    func badPassthrough(bytes: [UInt8], words: String) throws {
        let device = FakeDevice()
        device.state.withLock { $0.formats = [CameraCalls.mjpeg] }
        let camera = try open(device)
        let jpeg = try YUYVEncoder(width: 64, height: 48).encode(rampFrame(width: 64, height: 48))
        // The buffer the bad frame arrives in held a whole JPEG before: it must not come back.
        device.produce(jpeg)
        #expect(try camera.readFrame() == .jpeg(jpeg))
        for _ in 0..<3 { device.produce(jpeg); _ = try camera.readFrame() }
        device.produce(bytes)
        #expect(try camera.readFrame() == .bad(words))
        device.produce(Array(jpeg.prefix(jpeg.count / 2)))
        #expect(try camera.readFrame() == .bad("a frame of \(jpeg.count / 2) bytes that is not a whole JPEG"))
        #expect(device.state.withLock { $0.queued.count } == 4)
        device.produce(jpeg)
        #expect(try camera.readFrame() == .jpeg(jpeg))
    }

    @Test("a frame whose buffer a loopback writer refilled while it was read is bad (it may be torn); the next is whole; a failed query keeps the frame")
    func refilledWhileRead() throws {
        let device = FakeDevice()
        device.state.withLock { $0.formats = [CameraCalls.mjpeg] }
        let camera = try open(device)
        let jpeg = try YUYVEncoder(width: 64, height: 48).encode(rampFrame(width: 64, height: 48))
        device.produce(jpeg)
        device.state.withLock { $0.refillNext = true }
        #expect(try camera.readFrame() == .bad(Camera.overwritten))
        #expect(device.state.withLock { $0.queued.count } == 4)
        device.produce(jpeg)
        #expect(try camera.readFrame() == .jpeg(jpeg))
        // Not a loopback: only the frame's own buffer is asked.
        #expect(device.log.filter { $0.hasPrefix("querybuf sequence") } == ["querybuf sequence 0", "querybuf sequence 1"])
        device.fail("querybuf sequence 2", errno: EINVAL)
        device.produce(jpeg)
        #expect(try camera.readFrame() == .jpeg(jpeg))
    }

    @Test("a loopback frame whose buffer the writer may be refilling (the buffer before it holds frame s + n - 1) is bad; before that it is whole; a camera's other buffers say nothing")
    func refillUnderWay() throws {
        let device = FakeDevice()
        // v4l2loopback's write(): frame p in buffer p % 4, numbered from 0 (made wraps to it).
        device.state.withLock { $0.formats = [CameraCalls.mjpeg]; $0.driver = "v4l2 loopback"; $0.made = UInt32.max }
        let camera = try open(device)
        let jpeg = try YUYVEncoder(width: 64, height: 48).encode(rampFrame(width: 64, height: 48))
        // Frame 0 in buffer 0; buffer 3 still holds the frame before (-1, across the wrap): whole.
        device.state.withLock { $0.numbered = [3: UInt32.max] }
        device.produce(jpeg)
        #expect(try camera.readFrame() == .jpeg(jpeg))
        #expect(device.log.filter { $0.hasPrefix("querybuf sequence") } == ["querybuf sequence 0", "querybuf sequence 3"])
        // Frame 1 in buffer 1; buffer 0 holds frame 4 = 1 + 4 - 1: the writer's next is frame 5, here.
        device.state.withLock { $0.numbered = [0: 4] }
        device.produce(jpeg)
        #expect(try camera.readFrame() == .bad(Camera.overwritten))
        // Frame 2 in buffer 2; buffer 1 still holds frame 1 (the writer is behind): whole.
        device.state.withLock { $0.numbered = [1: 1] }
        device.produce(jpeg)
        #expect(try camera.readFrame() == .jpeg(jpeg))
        // One frame short of the threshold (buffer 2 holds 5 = 3 + 4 - 2): still whole.
        device.state.withLock { $0.numbered = [2: 5] }
        device.produce(jpeg)
        #expect(try camera.readFrame() == .jpeg(jpeg))
        // A failed query of the buffer before keeps the frame (it was asked).
        device.state.withLock { $0.numbered = [:]; $0.log = [] }
        device.fail("querybuf sequence 3", errno: EINVAL)
        device.produce(jpeg)
        #expect(try camera.readFrame() == .jpeg(jpeg))
        #expect(device.log.filter { $0.hasPrefix("querybuf sequence") } == ["querybuf sequence 0", "querybuf sequence 3"])
        // A frame not in buffer s % 4 (not write()'s order: frame 5 in buffer 2) asks its own only.
        device.state.withLock { $0.log = []; $0.numbered = [1: 99] }
        device.produce(jpeg, at: 2)
        #expect(try camera.readFrame() == .jpeg(jpeg))
        #expect(device.log.filter { $0.hasPrefix("querybuf sequence") } == ["querybuf sequence 2"])

        // Across the 32-bit wrap: frame 2^32 - 2 in buffer 2, buffer 1 holds 1 = s + 3 wrapped.
        let wrap = FakeDevice()
        wrap.state.withLock { $0.formats = [CameraCalls.mjpeg]; $0.driver = "v4l2 loopback"; $0.made = UInt32.max - 2; $0.numbered = [1: 1] }
        let wrapped = try open(wrap)
        wrap.produce(jpeg, at: 2)
        #expect(try wrapped.readFrame() == .bad(Camera.overwritten))

        // Granted 4, but another reader left the writer cycling 2 (two mappings): frame 3 in
        // buffer 1 is dropped once buffer 0 holds 4 = 3 + 2 - 1, where 4 buffers would wait for 6.
        let two = FakeDevice()
        two.state.withLock { $0.formats = [CameraCalls.mjpeg]; $0.driver = "v4l2 loopback"; $0.made = 2; $0.ring = 2; $0.numbered = [0: 4] }
        let ringed = try open(two)
        two.produce(jpeg, at: 1)
        #expect(try ringed.readFrame() == .bad(Camera.overwritten))
        #expect(two.log.filter { $0.hasPrefix("querybuf sequence") } == ["querybuf sequence 1", "querybuf sequence 0"])

        // A camera's buffers are its own until queued: far ahead is nothing to drop for.
        let uvc = FakeDevice()
        uvc.state.withLock { $0.formats = [CameraCalls.mjpeg]; $0.driver = "uvcvideo"; $0.made = UInt32.max; $0.numbered = [3: 99] }
        let cam = try open(uvc)
        uvc.produce(jpeg)
        #expect(try cam.readFrame() == .jpeg(jpeg))
        #expect(uvc.log.filter { $0.hasPrefix("querybuf sequence") } == ["querybuf sequence 0"])
    }

    @Test("a YUYV frame whose buffer was refilled while it was read is bad too, encoded here or by a worker")
    func refilledYUYV() throws {
        let device = FakeDevice()
        let camera = try open(device)
        let overwritten = CameraFrame.bad(Camera.overwritten)
        device.produce(rampFrame(width: 64, height: 48))
        device.state.withLock { $0.refillNext = true }
        #expect(try camera.readFrame() == overwritten)
        device.produce(rampFrame(width: 64, height: 48))
        device.state.withLock { $0.refillNext = true }
        #expect(try camera.readRaw() == overwritten)
        device.produce(rampFrame(width: 64, height: 48))
        #expect(try camera.readRaw() == .yuyv(rampFrame(width: 64, height: 48)))
    }

    @Test("a YUYV frame too short to encode is one bad frame, not the end of the capture")
    func shortYUYV() throws {
        let device = FakeDevice()
        let camera = try open(device)
        device.produce([UInt8](repeating: 128, count: 100))
        #expect(try camera.readFrame() == .bad("camera: cannot encode a YUYV frame of 100 bytes as 64x48"))
        device.produce(rampFrame(width: 64, height: 48))
        #expect(try camera.readFrame()?.jpeg != nil)
    }

    @Test("a YUYV frame comes out as a JPEG of the negotiated size")
    func encodedFrame() throws {
        let device = FakeDevice()
        let camera = try open(device)
        device.produce(rampFrame(width: 64, height: 48))
        let jpeg = try #require(try camera.readFrame()?.jpeg)
        #expect(try JPEG.decode(jpeg) == (64, 48))
    }

    @Test("a frame the driver marks as corrupt is dropped in words and its buffer requeued")
    func corruptDropped() throws {
        let device = FakeDevice()
        let camera = try open(device)
        device.produce(rampFrame(width: 64, height: 48), flags: CameraCalls.flagError)
        #expect(try camera.readFrame() == .bad("a frame the driver marked as damaged"))
        #expect(device.state.withLock { $0.queued.count } == 4)
    }

    @Test("a device gone mid-stream is unplugged", arguments: [ENODEV, ENXIO, ESHUTDOWN, EIO])
    func unplugged(code: Int32) throws {
        let device = FakeDevice()
        let camera = try open(device)
        device.fail("dqbuf", errno: code)
        let error = try #require(throws: CameraError.self) { try camera.readFrame() }
        #expect(error.kind == .unplugged)
        #expect(error.description.hasPrefix("camera: cannot dequeue a frame from /dev/video0: "))
    }

    @Test("close stops, unmaps, frees and closes once, however often it is called")
    func closeTwice() throws {
        let device = FakeDevice()
        let camera = try open(device)
        camera.close()
        camera.close()
        let tail = device.log.drop { $0 != "streamon" }.dropFirst()
        #expect(Array(tail) == ["streamoff", "munmap", "munmap", "munmap", "munmap", "reqbufs 0", "close"])
        #expect(camera.descriptor == nil)
    }
}
