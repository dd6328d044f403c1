/// What the Pi camera's feeder says to the body on the wake connection, one
/// line each: `ready` once its first frame is in the loopback node (the body
/// opens the node then), `error WORDS` just before it ends for a reason. The
/// body says nothing: its closing the connection is the feeder's "stop".
public enum FeederMessage: Equatable, Sendable {
    case ready
    case failed(String)
    /// A line that is neither: said in words, not obeyed.
    case unknown(String)

    /// The line as sent, newline included.
    public var line: String {
        switch self {
        case .ready: "ready\n"
        case .failed(let words): "error \(Self.oneLine(words))\n"
        case .unknown(let text): "\(Self.oneLine(text))\n"
        }
    }

    public static func parse<S: StringProtocol>(_ line: S) -> FeederMessage {
        if line == "ready" { return .ready }
        if line.hasPrefix("error ") { return .failed(String(line.dropFirst(6))) }
        return .unknown(String(line))
    }

    private static func oneLine(_ words: String) -> String {
        String(words.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    /// Cuts a byte stream into messages. A line longer than `limit` bytes is
    /// cut there: a feeder cannot make the body hold more.
    public struct Lines: Sendable {
        private var pending: [UInt8] = []
        public static let limit = 512

        public init() {}

        public mutating func take(_ bytes: some Sequence<UInt8>) -> [FeederMessage] {
            var messages: [FeederMessage] = []
            for byte in bytes {
                if byte == UInt8(ascii: "\n") || pending.count == Lines.limit {
                    messages.append(FeederMessage.parse(String(decoding: pending, as: UTF8.self)))
                    pending.removeAll(keepingCapacity: true)
                    if byte == UInt8(ascii: "\n") { continue }
                }
                pending.append(byte)
            }
            return messages
        }
    }
}
