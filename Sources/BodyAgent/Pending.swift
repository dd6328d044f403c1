// Stand-ins until the gps and eyes branches land; removed at their merge.
import BodyHTTP

final class WhereService {
    let allowed: Bool
    var watching: Bool { false }
    init(loop: EventLoop, allowed: Bool, host: String, port: UInt16, log: @escaping (String) -> Void) {
        self.allowed = allowed
    }
    func ask(answer: @escaping (_ status: Int, _ json: [UInt8]) -> Void) {
        answer(403, Array(#"{"error":"location is not allowed for this body; a person allows it in the configuration"}"#.utf8))
    }
}

final class PreviewService {
    var running: Bool { false }
    var words: String { "stopped: the camera is not built yet" }
    init(loop: EventLoop, device: String?, width: Int, height: Int, fps: Int, log: @escaping (String) -> Void) {}
    func run(_ shouldRun: Bool, why: String) {}
    func serveStream(_ reply: HTTPReply) { reply.send(.error(409, "the preview is not running: the camera is not built yet")) }
    func serveJPEG(_ reply: HTTPReply) { serveStream(reply) }
}
