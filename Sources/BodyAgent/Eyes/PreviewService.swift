import BodyCore
import BodyHardware
import BodyHTTP
import BodySystem

/// The camera preview: one capture shared by every `/preview` client, the
/// newest frame for `/preview.jpg`. The agent says when it runs (the eyes
/// gate's verdict); this only obeys. Frames live in memory only.
/// Loop thread only; a YUYV camera's frames are encoded on a worker thread
/// (`FrameEncoder`), whose JPEGs come back through `loop.post`.
///
/// Every event of its own (frames ready, a JPEG encoded, the feeder's word
/// or its wait, a first frame's wait) is one of the agent's turns: what it
/// offers its clients leaves in that turn's server run, its lines are written
/// after, and its timers run on the agent's clock.
public final class PreviewService: @unchecked Sendable {
    private let loop: EventLoop
    private let turn: AgentTurn
    private let device: String?
    /// The Pi camera's feeder socket: woken for each opening, its camera off otherwise.
    private let wake: String?
    private let width: Int
    private let height: Int
    private let fps: Int
    private let log: (String) -> Void

    private var camera: Camera? { didSet { words = Self.words(camera, feeder, stoppedWhy) } }
    /// While the feeder is woken (before and while the camera runs).
    private var feeder: FeederWake? { didSet { words = Self.words(camera, feeder, stoppedWhy) } }
    private var encoder: FrameEncoder?
    /// Counts camera opens: a JPEG the worker finishes after a stop is dropped.
    private var opening = 0
    private var watch: EventLoop.WatchID?
    private var latest: [UInt8]?
    private var streams: [ObjectIdentifier: HTTPStream] = [:]
    private var waiting: [UInt64: (reply: HTTPReply, timer: EventLoop.TimerID)] = [:]
    private var nextWaiting: UInt64 = 0
    /// Why the preview is not running, in words (what `words` says after "stopped: ").
    public private(set) var stoppedWhy: String { didSet { words = Self.words(camera, feeder, stoppedWhy) } }
    /// Wakeups in a row that brought no frame: a descriptor that keeps saying
    /// "readable" without frames must not spin the loop.
    private var idleWakeups = 0
    static let idleWakeupLimit = 500
    private var said = RepeatFilter()
    /// Bad frames in a row since the last whole one (0: the camera is fine), and the first one's words.
    private var badFrames = 0
    private var lastBad: String?

    /// A test's camera in place of the device's own (V4L2 behind `CameraCalls`):
    /// called as `Camera.open` would be, with the configured path, size and rate.
    var cameraMaker: ((_ path: String, _ width: Int, _ height: Int, _ fps: Int) throws(CameraError) -> Camera)?
    /// A test's feeder in place of the socket's: called as `LocalSocket.connect`
    /// would be, with the configured path; the connection it gives is read as the socket's.
    var feederConnect: ((_ path: String) throws(Errno) -> FileDescriptor)?

    /// How long `/preview.jpg` waits for a first frame after the camera opened.
    static let firstFrameWait = 5.0
    static let boundary = "frame"
    public static let streamContentType = "multipart/x-mixed-replace; boundary=\(boundary)"

    /// Called when the capture stops by itself (unplugged, or a read failed),
    /// with the words `words` now says after "stopped: ": the gate hears of it
    /// (`EyesGate.cameraGone`) and runs again only after a fresh opening.
    public var onGone: ((_ why: String) -> Void)?

    init(loop: EventLoop, turn: @escaping AgentTurn, device: String?, wake: String? = nil, width: Int, height: Int, fps: Int,
         log: @escaping (String) -> Void) {
        self.loop = loop
        self.turn = turn
        self.device = device
        self.wake = wake
        self.width = width
        self.height = height
        self.fps = fps
        self.log = log
        stoppedWhy = device == nil ? "no camera configured" : "the eyes are closed"
        words = Self.words(nil, nil, stoppedWhy)
    }

    // Releases the device without telling anyone: the owner is going away too.
    deinit {
        if let watch { loop.unwatch(watch) }
        encoder?.stop()
        camera?.close()
        feeder?.close()
    }

    /// Running, or waking the camera's feeder: a request waits for its first frame.
    public var running: Bool { camera != nil || feeder != nil }

    /// `GET /preview.jpg` requests waiting for a first frame (tests read it).
    var waitingForFirstFrame: Int { waiting.count }

    /// "running: YUYV 640x480 @15 (encoded)", "stopped: closed by Oriel",
    /// "stopped: camera unplugged (/dev/video0)", "stopped: no camera configured".
    /// Kept as the camera and the reason change, not made at every read: the
    /// status document says it at every request.
    public private(set) var words: String

    private static func words(_ camera: Camera?, _ feeder: FeederWake?, _ stoppedWhy: String) -> String {
        if let camera { return "running: \(camera.format)" }
        if let feeder { return "starting: waking the camera's feeder (\(feeder.path))" }
        return "stopped: \(stoppedWhy)"
    }

    /// The gate's verdict. True opens the camera unless it runs already (and
    /// retries an open that failed, e.g. after an unplug); false closes it, so
    /// the device is not held. `why` is said while stopped ("closed by Oriel");
    /// `now` is the turn's moment, from which the feeder's wait runs.
    public func run(_ shouldRun: Bool, why: String, at now: Moment) {
        if !shouldRun {
            stop(why: why)
            return
        }
        guard camera == nil, feeder == nil else { return }
        guard let device else {
            stoppedWhy = "no camera configured"
            say("eyes: preview not started (\(why)): no camera configured")
            return
        }
        guard let wake else { return open(device, why: why) }
        do throws(CameraWakeError) {
            feeder = try FeederWake(path: wake, loop: loop, at: now, turn: turn, connect: feederConnect, onReady: { [weak self] in self?.feederReady(device, why: why) },
                                    onEnded: { [weak self] in self?.feederEnded($0) })
            say("eyes: preview starting (\(why)): waking the camera's feeder at \(wake)")
        } catch {
            stoppedWhy = error.description
            say("eyes: preview not started (\(why)): \(error)")
        }
    }

    /// The feeder has a frame in the node: the capture opens as any camera's.
    /// A node that cannot be opened ends the feeder too, and the gate hears it.
    private func feederReady(_ device: String, why: String) {
        open(device, why: why)
        guard camera == nil else { return }
        feeder?.close()
        feeder = nil
        onGone?(stoppedWhy)
    }

    /// The feeder ended (or never became ready): the capture stops in its words.
    private func feederEnded(_ why: String) {
        stop(why: why)
        onGone?(why)
    }

    private func open(_ device: String, why: String) {
        do {
            let opened = if let cameraMaker { try cameraMaker(device, width, height, fps) }
                         else { try Camera.open(path: device, width: width, height: height, fps: fps) }
            opening += 1
            if let worker = opened.encoderForWorker {
                let this = opening
                do {
                    encoder = try FrameEncoder(encoder: worker.encoder, bytesPerLine: worker.bytesPerLine) { [weak self, loop] result in
                        guard let service = self else { return }
                        loop.post { service.turn("a camera frame was encoded") { _ in service.encoded(result, opening: this) } }
                    }
                } catch {
                    opened.close()
                    throw error
                }
            }
            do {
                watch = try loop.watch(fd: opened.descriptor) { [weak self] in self?.framesReady() }
            } catch {
                encoder?.stop()
                encoder = nil
                opened.close()
                throw error
            }
            camera = opened
            idleWakeups = 0
            badFrames = 0
            say("eyes: preview running: \(opened.format) (\(why))")
        } catch let error as CameraError {
            stoppedWhy = error.kind == .absent ? "camera not found (\(device))" : error.description
            say("eyes: preview not started (\(why)): \(error)")
        } catch {
            // The loop could not watch the descriptor: the capture must not run unwatched.
            stoppedWhy = "\(error)"
            say("eyes: preview not started (\(why)): \(error)")
        }
    }

    /// `GET /preview`: multipart MJPEG, paced per client (a slow client drops
    /// frames), ended cleanly when the preview stops. 409 while stopped.
    public func serveStream(_ reply: HTTPReply) {
        guard running else {
            reply.send(.error(409, "preview stopped: \(stoppedWhy)"))
            return
        }
        let stream = HTTPStream()
        let id = ObjectIdentifier(stream)
        stream.onClose = { [weak self] in self?.streams[id] = nil }
        streams[id] = stream
        reply.stream(contentType: PreviewService.streamContentType, stream)
        if let latest, stream.isOpen { stream.offer(PreviewService.part(latest)) }
    }

    /// `GET /preview.jpg`: the newest frame (or the first one, if none came
    /// yet), asked at `now` (the serving turn's moment). 409 while stopped.
    public func serveJPEG(_ reply: HTTPReply, at now: Moment) {
        guard running else {
            reply.send(.error(409, "preview stopped: \(stoppedWhy)"))
            return
        }
        if let latest {
            reply.send(PreviewService.jpeg(latest))
            return
        }
        nextWaiting += 1
        let id = nextWaiting
        // A woken feeder has its own time to say ready before the first frame's.
        let wait = PreviewService.firstFrameWait + (camera == nil ? FeederWake.readyWait : 0)
        let timer = loop.schedule(at: now.mono + wait) { [weak self] in
            guard let self else { return }
            self.turn("a preview's first frame was late") { _ in self.firstFrameTimedOut(id, after: wait) }
        }
        waiting[id] = (reply, timer)
        reply.onClose = { [weak self] in
            guard let self, let gone = self.waiting.removeValue(forKey: id) else { return }
            self.loop.cancel(gone.timer)
        }
    }

    // MARK: - the capture

    /// The device is readable: its frames are one turn.
    private func framesReady() {
        turn("camera frames are ready") { _ in readable() }
    }

    /// Reads every frame the driver has ready, then watches the descriptor
    /// afresh. v4l2loopback's poll joins its wait queue only when no frame is
    /// ready, so an epoll watch added while one was ready is never woken again
    /// (seen in the VM: one frame, then silence). Added again once the queue
    /// is dry, the watch either joins the queue or reports a frame at once.
    private func readable() {
        guard let camera else { return }
        var frames = 0
        for _ in 0...Int(Camera.bufferCount) {
            let read: CameraFrame?
            do {
                read = try camera.readRaw()
            } catch {
                let why = error.kind == .unplugged ? "camera unplugged (\(camera.path))" : error.description
                stop(why: why, cause: error.kind == .unplugged ? error.description : nil)
                onGone?(why)
                return
            }
            guard let read else { break }
            frames += 1
            take(read, from: camera.path)
            guard self.camera === camera else { return }
        }
        if frames == 0 {
            idleWakeups += 1
            if idleWakeups >= PreviewService.idleWakeupLimit {
                let why = "camera: \(camera.path) keeps waking the loop without frames"
                stop(why: why)
                onGone?(why)
                return
            }
        } else {
            idleWakeups = 0
        }
        rewatch(camera)
    }

    private func rewatch(_ camera: Camera) {
        if let watch { loop.unwatch(watch) }
        do {
            watch = try loop.watch(fd: camera.descriptor) { [weak self] in self?.framesReady() }
        } catch {
            // The capture must not run unwatched.
            watch = nil
            let why = "camera: cannot watch \(camera.path) again: \(error)"
            stop(why: why)
            onGone?(why)
        }
    }

    /// One dequeued frame: a whole JPEG goes to every client, a YUYV frame to
    /// the worker, a bad one is dropped in words.
    private func take(_ read: CameraFrame, from path: String) {
        switch read {
        case .jpeg(let frame): show(frame, from: path)
        case .yuyv(let raw): encoder?.offer(raw)
        case .bad(let words): badFrame(words, from: path)
        }
    }

    /// A JPEG from the worker: shown if it is of the capture still running. A
    /// frame that cannot be encoded (too short) is one bad frame, not the end.
    private func encoded(_ result: Result<[UInt8], CameraError>, opening this: Int) {
        guard this == opening, let camera else { return }
        switch result {
        case .success(let frame): show(frame, from: camera.path)
        case .failure(let error): badFrame(error.description, from: camera.path)
        }
    }

    private func show(_ frame: [UInt8], from path: String) {
        if badFrames > 0 {
            say("eyes: camera \(path) delivers whole frames again, after \(badFrames) bad ones")
            badFrames = 0
        }
        latest = frame
        for w in waiting.values {
            loop.cancel(w.timer)
            w.reply.send(PreviewService.jpeg(frame))
        }
        waiting.removeAll()
        if !streams.isEmpty {
            let part = PreviewService.part(frame)
            for stream in streams.values { stream.offer(part) }
        }
    }

    private func stop(why: String, cause: String? = nil) {
        stoppedWhy = why
        let wasRunning = camera != nil || feeder != nil
        if let watch { loop.unwatch(watch) }
        watch = nil
        encoder?.stop()
        encoder = nil
        opening += 1
        camera?.close()
        camera = nil
        feeder?.close()
        feeder = nil
        latest = nil
        let ending = streams.values
        streams.removeAll()
        for stream in ending {
            stream.offer(Array("--\(PreviewService.boundary)--\r\n".utf8))
            stream.finish()
        }
        for w in waiting.values {
            loop.cancel(w.timer)
            w.reply.send(.error(409, "preview stopped: \(why)"))
        }
        waiting.removeAll()
        if wasRunning {
            say("eyes: preview stopped: \(why)" + (cause.map { " (\($0))" } ?? ""))
        }
    }

    /// A frame to drop: clients keep the last good one, and the run of bad
    /// frames is said once when it begins (and once when it ends), never a line a frame.
    private func badFrame(_ words: String, from path: String) {
        if badFrames == 0 {
            lastBad = words
            say("eyes: camera \(path) delivered \(words); the preview goes on with the last whole frame")
        }
        badFrames += 1
    }

    private func firstFrameTimedOut(_ id: UInt64, after wait: Double) {
        guard let w = waiting.removeValue(forKey: id) else { return }
        let path = device ?? "the camera"
        let bad = badFrames > 0 ? " (it delivered \(lastBad ?? "bad frames"))" : ""
        w.reply.send(.error(503, "camera: no frame from \(path) within \(Int(wait)) s\(bad)"))
    }

    /// Logs a line only when it differs from the last one: changes, not repeats.
    private func say(_ line: String) {
        if let line = said.say(line, about: "preview") { log(line) }
    }

    static func part(_ jpeg: [UInt8]) -> [UInt8] {
        let head = "--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n"
        return Array(head.utf8) + jpeg + Array("\r\n".utf8)
    }

    static func jpeg(_ frame: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "image/jpeg", body: frame,
                     headers: [("Cache-Control", "no-store")])
    }
}
