import BodyCore
import BodySystem

/// The Pi camera's feeder, woken for one opening of the eyes: a connection to
/// its socket (`studio-body-picamera.socket`), which systemd answers by
/// starting the feeder. The feeder starts the camera, puts its first frame
/// in the loopback node and says `ready`; this connection's end, whoever
/// ends it, stops the camera. So the sensor runs only while the preview
/// does. Loop thread only; `PreviewService` owns it.
final class FeederWake {
    let path: String
    private let loop: EventLoop
    private let turn: AgentTurn
    private var connection: FileDescriptor?
    private var watch: EventLoop.WatchID?
    private var timer: EventLoop.TimerID?
    private var lines = FeederMessage.Lines()
    /// The feeder's own words for why it ends (`error ...`), once said.
    private var feederSaid: String?
    private(set) var ready = false
    private let onReady: () -> Void
    private let onEnded: (String) -> Void

    /// How long the feeder may take to start the camera and say `ready`: its
    /// unit loads v4l2loopback and waits for udev (up to 10 s) the first
    /// time, and libcamera takes a second or two on a Pi.
    static let readyWait = 15.0
    /// Reads a wakeup at most: a feeder that floods the connection cannot
    /// hold the loop (the watch is level-triggered and comes back).
    static let readsPerWakeup = 8

    /// Connects and waits for `ready` (then `onReady`) or the end (then
    /// `onEnded` with why, once), each heard in a turn of the agent's; the
    /// wait for ready runs from `now`, the turn's moment. Throws the reason
    /// in words when the socket cannot be reached: nothing is held then.
    /// `connect`, a test's feeder, stands for `LocalSocket.connect` (nil: the socket's).
    init(path: String, loop: EventLoop, at now: Moment, turn: @escaping AgentTurn,
         connect: ((_ path: String) throws(Errno) -> FileDescriptor)? = nil,
         onReady: @escaping () -> Void, onEnded: @escaping (String) -> Void) throws(CameraWakeError) {
        self.path = path
        self.loop = loop
        self.turn = turn
        self.onReady = onReady
        self.onEnded = onEnded
        let connection: FileDescriptor
        do throws(Errno) {
            connection = if let connect { try connect(path) } else { try LocalSocket.connect(path: path) }
        } catch {
            throw CameraWakeError(Self.unreachable(path, error))
        }
        do throws(LoopError) {
            watch = try loop.watch(fd: connection) { [weak self] in
                guard let self else { return }
                self.turn("the camera's feeder spoke") { _ in self.readable() }
            }
        } catch {
            try? connection.close()
            throw CameraWakeError("camera: cannot watch the connection to \(path): \(error)")
        }
        self.connection = connection
        timer = loop.schedule(at: now.mono + Self.readyWait) { [weak self] in
            guard let self else { return }
            self.turn("the camera's feeder's wait ran out") { _ in self.tooSlow() }
        }
    }

    deinit { close() }

    /// Ends the connection, which stops the feeder and its camera. Safe twice.
    func close() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        loop.cancel(timer)
        timer = nil
        if let connection { try? connection.close() }
        connection = nil
    }

    static func unreachable(_ path: String, _ error: Errno) -> String {
        switch error {
        case .noSuchFileOrDirectory:
            "camera: no feeder socket at \(path) (is studio-body-picamera.socket enabled? sudo systemctl enable --now studio-body-picamera.socket)"
        case .connectionRefused:
            "camera: nothing listens on \(path) (studio-body-picamera.socket stopped or failed? systemctl status studio-body-picamera.socket)"
        default:
            "camera: cannot wake the camera's feeder at \(path): \(error.words)"
        }
    }

    private func readable() {
        guard let connection else { return }
        var buffer = [UInt8](repeating: 0, count: 512)
        for _ in 0..<Self.readsPerWakeup {
            let read = buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try connection.read(into: raw) } }
            let n: Int?
            switch valueOrNilIfWouldBlock(read) {
            case .success(let value): n = value
            case .failure(let error): return ended("the connection to \(path) failed: \(error.words)")
            }
            guard let n else { return }
            if n == 0 {
                return ended(feederSaid.map { "the camera's feeder stopped: \($0)" } ?? "the camera's feeder ended without a word (journalctl -u studio-body-picamera)")
            }
            for message in lines.take(buffer[..<n]) {
                switch message {
                case .ready where !ready:
                    ready = true
                    loop.cancel(timer)
                    timer = nil
                    onReady()
                    guard self.connection != nil else { return }
                case .ready: break
                case .failed(let words): feederSaid = words
                case .unknown: break
                }
            }
        }
    }

    private func tooSlow() {
        timer = nil
        guard connection != nil, !ready else { return }
        ended("the camera's feeder did not say ready within \(Int(Self.readyWait)) s (journalctl -u studio-body-picamera)")
    }

    private func ended(_ why: String) {
        guard connection != nil else { return }
        close()
        onEnded("camera: " + why)
    }
}

/// Why the feeder could not be woken, in words.
struct CameraWakeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
