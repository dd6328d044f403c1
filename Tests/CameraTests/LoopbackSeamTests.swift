import Testing
@testable import BodyHardware
import BodySystem
import Glibc

@Suite("the loopback writer's failures and lifetime, through the seam")
struct LoopbackSeamTests {
    func open(_ device: FakeDevice) throws -> LoopbackWriter {
        try LoopbackWriter.open("/dev/video9", width: 64, height: 48, calls: device.calls)
    }

    @Test("a node that is missing, or refuses the format (is it a loopback node?), is said in words; what was opened is closed",
          arguments: [
              ("open output", ENOENT, CameraError(.absent, "camera: cannot open /dev/video9: No such file or directory"),
               ["open output"]),
              ("s_fmt output", EINVAL,
               CameraError(.failed, "camera-feed: cannot set MJPEG 64x48 on /dev/video9 (is it a v4l2loopback node?): Invalid argument"),
               ["open output", "s_fmt output", "close"]),
          ])
    func refused(call: String, errno: Int32, said: CameraError, log: [String]) {
        let device = FakeDevice()
        device.fail(call, errno: errno)
        #expect(throws: said) { try open(device) }
        #expect(device.log == log)
    }

    @Test("a node that settles on another format is refused, and closed")
    func otherFormat() {
        let device = FakeDevice()
        device.state.withLock { $0.outputFourcc = CameraCalls.yuyv }
        #expect(throws: CameraError(.unsupported, "camera-feed: /dev/video9 does not take MJPEG frames")) {
            try open(device)
        }
        #expect(device.log.last == "close")
    }

    @Test("a frame goes out in one write; close closes once, and a closed writer says so")
    func writeAndClose() throws {
        let device = FakeDevice()
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.read.close(); try? pipe.write.close() }
        device.state.withLock { $0.output = pipe.write }
        let writer = try open(device)
        #expect(writer.frameLimit == 64 * 48 * 2)
        try writer.write([0xFF, 0xD8, 0xFF, 0xD9])
        var got = [UInt8](repeating: 0, count: 16)
        let n = try got.withUnsafeMutableBytes { raw in try pipe.read.read(into: raw) }
        #expect(Array(got.prefix(n)) == [0xFF, 0xD8, 0xFF, 0xD9])
        writer.close()
        writer.close()
        #expect(device.log == ["open output", "s_fmt output", "close"])
        #expect(throws: CameraError(.failed, "camera-feed: /dev/video9 is closed")) { try writer.write([0]) }
    }
}
