// Stand-in until the gps branch lands; removed at its merge.
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
