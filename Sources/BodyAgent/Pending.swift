// Stand-in until the eyes branch lands; removed at its merge.
import BodyHTTP

final class PreviewService {
    var running: Bool { false }
    var words: String { "stopped: the camera is not built yet" }
    init(loop: EventLoop, device: String?, width: Int, height: Int, fps: Int, log: @escaping (String) -> Void) {}
    func run(_ shouldRun: Bool, why: String) {}
    func serveStream(_ reply: HTTPReply) { reply.send(.error(409, "the preview is not running: the camera is not built yet")) }
    func serveJPEG(_ reply: HTTPReply) { serveStream(reply) }
}
