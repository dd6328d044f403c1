import Testing
@testable import BodyAgent
@testable import AgentHarness

/// `GET /preview.jpg` while the eyes are open and the camera has given no
/// whole frame: it waits for the first, and a wait that runs out is a 503 in
/// words, on the agent's clock. The camera is `FakeCamera`: it opens, and
/// gives only what the test hands it.
@Suite("A preview's first frame that does not come is a 503 in words", .serialized)
struct FirstFrameTests {
    static let device = "/dev/studio-test-camera"
    let camera: FakeCamera

    init() throws { camera = try FakeCamera() }

    /// The body with `more` configured, the test's camera in place of the
    /// device's (and its feeder, if given), and the eyes opened at 1000.
    func opened(more: String = "", feeder: FakeFeeder? = nil) throws -> AgentRig {
        let rig = try AgentRig(at: 1000, more: "[camera]\ndevice = \(Self.device)\n" + more)
        rig.agent.preview.cameraMaker = camera.open
        rig.agent.preview.feederConnect = feeder?.connect
        let oriel = rig.client()
        // Seen closed first: a gate already open at the first push opens nothing.
        for face in [#"{"onair":{"on":false},"eyes":{"open":false}}"#,
                     #"{"onair":{"on":true,"phase":"live","by":"studio"},"eyes":{"open":true,"why":"Dad's tap on the studio body"}}"#] {
            #expect(try rig.push(oriel, face)?.status == 200)
        }
        #expect(rig.agent.preview.running, "\(rig.deeds) \(rig.agent.preview.words)")
        return rig
    }

    /// A `GET /preview.jpg` asked at the clock's time, left waiting.
    func ask(_ rig: AgentRig) throws -> Client {
        let jpeg = rig.client()
        jpeg.send("GET", "/preview.jpg")
        try rig.settle()
        #expect(rig.agent.preview.waitingForFirstFrame == 1)
        return jpeg
    }

    func noFrame(within seconds: Int, _ more: String = "") -> String {
        #"{"error":"camera: no frame from \#(Self.device) within \#(seconds) s\#(more)"}"#
    }

    @Test("a camera that opens and gives no frame is answered 503 five seconds after the asking, naming the device; once a frame came the next asking gets it")
    func noFrameIs503() throws {
        let rig = try opened()
        #expect(rig.agent.preview.words == "running: MJPEG 640x480 @15 (passthrough)")
        // Asked later than the opening: the wait runs from the asking.
        rig.clock.mono = 1002
        let jpeg = try ask(rig)
        try rig.advance(to: 1006.9)
        #expect(try rig.answer(jpeg) == nil)
        try rig.advance(to: 1007)
        let got = try #require(try rig.answer(jpeg))
        #expect(got.status == 503)
        #expect(got.body == noFrame(within: 5))
        #expect(rig.agent.preview.waitingForFirstFrame == 0)
        // The 503 is the request's, not the camera's end.
        #expect(rig.agent.preview.running)

        try camera.deliver(FakeCamera.jpeg)
        try rig.settle()
        let again = rig.client()
        again.send("GET", "/preview.jpg")
        try rig.settle()
        // The bytes as sent: `answer()` reads a body as text.
        let frame = try #require(again.asked.last?.response)
        #expect(frame.status == 200)
        #expect(frame.contentType == "image/jpeg")
        #expect(frame.body == FakeCamera.jpeg)
    }

    @Test("bad frames are no first frame: the 503 says what the camera delivered, in the first bad one's words")
    func badFramesAreSaid() throws {
        let rig = try opened()
        let jpeg = try ask(rig)
        try camera.deliver([1, 2, 3])
        try camera.deliver(FakeCamera.jpeg, damaged: true)
        try rig.settle()
        #expect(try rig.answer(jpeg) == nil)
        try rig.advance(to: 1005)
        let got = try #require(try rig.answer(jpeg))
        #expect(got.status == 503)
        #expect(got.body == noFrame(within: 5, " (it delivered a frame of 3 bytes that is not a whole JPEG)"))
    }

    @Test("a request that waits for the Pi camera's feeder too waits its 15 s more: the 503 comes at 20 s and says so")
    func feederWaitAddsUp() throws {
        let wake = "/run/studio-body-test/picamera.sock"
        let feeder = FakeFeeder()
        let rig = try opened(more: "wake = \(wake)\n", feeder: feeder)
        #expect(rig.agent.preview.words == "starting: waking the camera's feeder (\(wake))")
        #expect(feeder.woken == [wake])
        let jpeg = try ask(rig)
        try feeder.say("ready")
        try rig.settle()
        #expect(rig.agent.preview.words == "running: MJPEG 640x480 @15 (passthrough)")
        try rig.advance(to: 1019.9)
        #expect(try rig.answer(jpeg) == nil)
        try rig.advance(to: 1020)
        let got = try #require(try rig.answer(jpeg))
        #expect(got.status == 503)
        #expect(got.body == noFrame(within: 20))
    }
}
