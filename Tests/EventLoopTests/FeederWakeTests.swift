import Testing
import Glibc
@testable import BodyAgent
import BodySystem
import BodyTestSupport

/// The preview with a Pi camera's feeder (`[camera] wake`): the test plays
/// studio-body-picamera.socket, listening where the body connects.
@Suite("The preview wakes the Pi camera's feeder only while it runs")
final class FeederWakeTests {
    let feeder: FeederSocket
    var path: String { feeder.path }
    let listening: FileDescriptor
    let loop: EventLoop
    var lines: [String] = []
    var gone: [String] = []

    init() throws {
        loop = try EventLoop()
        feeder = try FeederSocket()
        listening = FileDescriptor(rawValue: feeder.descriptor)
    }

    func preview(device: String = "/nonexistent/studio-camera") -> PreviewService {
        // Each event a turn at the system clock's moment, as the body's agent would make it.
        let service = PreviewService(loop: loop, turn: { _, work in work(AgentClock.system.now()) },
                                     device: device, wake: path, width: 64, height: 48, fps: 15) { [unowned self] in self.lines.append($0) }
        service.onGone = { [unowned self] in self.gone.append($0); self.loop.stop() }
        return service
    }

    /// The feeder's side of the body's connection, once the body made it.
    func feederSide() throws -> FileDescriptor {
        try #require(try LocalSocket.accept(from: listening))
    }

    /// Runs the loop until the preview says it is gone (a guard ends a loop that never would).
    func runUntilGone() throws {
        let guardTimer = loop.schedule(at: EventLoop.monotonic() + 10) { [loop] in loop.stop() }
        try loop.run()
        loop.cancel(guardTimer)
    }

    func ended(_ side: FileDescriptor) throws -> Bool {
        guard try FileDescriptor.waitReadable([side], seconds: 5) == [true] else { return false }
        var byte: UInt8 = 0
        return try withUnsafeMutableBytes(of: &byte) { try side.read(into: $0) } == 0
    }

    @Test("no connection before the eyes open; opening connects and waits for ready")
    func wakes() throws {
        let service = preview()
        #expect(try LocalSocket.accept(from: listening) == nil)
        service.run(true, why: "opened by Oriel", at: AgentClock.system.now())
        #expect(service.running)
        #expect(service.words == "starting: waking the camera's feeder (\(path))")
        let side = try feederSide()
        defer { try? side.close() }
        service.run(true, why: "opened by Oriel", at: AgentClock.system.now())  // a second verdict does not connect twice
        #expect(try LocalSocket.accept(from: listening) == nil)
        service.run(false, why: "closed by Oriel", at: AgentClock.system.now())
        #expect(try ended(side), "closing the eyes ends the connection, and so the camera")
        #expect(service.words == "stopped: closed by Oriel")
    }

    @Test("the feeder's error reaches the preview's words and the gate, in the feeder's words")
    func feederFails() throws {
        let service = preview()
        service.run(true, why: "opened by Oriel", at: AgentClock.system.now())
        let side = try feederSide()
        try side.writeAll(Array("error the camera's stream ended after 0 frames: rpicam-vid exited with status 255\n".utf8))
        try side.close()
        try runUntilGone()
        let why = "camera: the camera's feeder stopped: the camera's stream ended after 0 frames: rpicam-vid exited with status 255"
        #expect(gone == [why])
        #expect(!service.running)
        #expect(service.words == "stopped: \(why)")
    }

    @Test("a feeder that ends without a word is said so, with where to look")
    func feederSilent() throws {
        let service = preview()
        service.run(true, why: "opened by Oriel", at: AgentClock.system.now())
        try feederSide().close()
        try runUntilGone()
        #expect(gone == ["camera: the camera's feeder ended without a word (journalctl -u studio-body-picamera)"])
    }

    @Test("a feeder that floods garbage is read in bounded pieces, and its last words still count")
    func flood() throws {
        let service = preview()
        service.run(true, why: "opened by Oriel", at: AgentClock.system.now())
        let side = try feederSide()
        try side.writeAll([UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10) + Array("\nready now\nerror the sensor is gone\n".utf8))
        try side.close()
        try runUntilGone()
        #expect(gone == ["camera: the camera's feeder stopped: the sensor is gone"])
        #expect(!service.running)
    }

    @Test("ready opens the node; a node that cannot be opened ends the feeder too")
    func readyButNoNode() throws {
        let service = preview()
        service.run(true, why: "opened by Oriel", at: AgentClock.system.now())
        let side = try feederSide()
        defer { try? side.close() }
        try side.writeAll(Array("ready\n".utf8))
        try runUntilGone()
        #expect(gone == ["camera not found (/nonexistent/studio-camera)"])
        #expect(try ended(side), "the camera must not run for a preview that is not running")
        #expect(!service.running)
    }

    @Test("no socket, or nobody listening: not started, in words that say what to enable")
    func unreachable() throws {
        feeder.close()
        let service = preview()
        service.run(true, why: "opened by Oriel", at: AgentClock.system.now())
        #expect(!service.running)
        #expect(service.words == "stopped: camera: nothing listens on \(path) (studio-body-picamera.socket stopped or failed? systemctl status studio-body-picamera.socket)")
        unlink(path)
        service.run(true, why: "opened by Oriel", at: AgentClock.system.now())
        #expect(service.words.hasPrefix("stopped: camera: no feeder socket at \(path) (is studio-body-picamera.socket enabled?"))
    }
}
