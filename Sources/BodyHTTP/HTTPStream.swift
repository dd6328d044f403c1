/// A body produced over time and paced to the client: the producer pushes,
/// the server pulls. At most one chunk is in flight and one waits behind it;
/// a newer offer replaces the waiting one, so a slow client sees fewer
/// frames rather than an ever-growing queue. Loop thread only.
public final class HTTPStream {
    private var current: [UInt8] = []
    private var offset = 0
    private var next: [UInt8]? = nil
    enum Phase { case open, finishing, closed }
    private(set) var phase: Phase = .open
    /// Set by the server: its exchange, woken to resume the connection if it waits for data.
    unowned var wakes: (any Waking)?

    /// The client went away or the stream ended; called once.
    public var onClose: (() -> Void)?

    public init() {}

    /// Queues `bytes` as the next chunk, replacing one not yet started.
    public func offer(_ bytes: [UInt8]) {
        guard phase == .open, !bytes.isEmpty else { return }
        if offset == 0 {
            current = bytes
        } else {
            next = bytes
        }
        wakes?.wake()
    }

    /// Ends the stream cleanly once what was offered has gone out.
    public func finish() {
        guard phase == .open else { return }
        phase = .finishing
        wakes?.wake()
    }

    /// True until the client went away or the stream ended.
    public var isOpen: Bool { phase != .closed }

    /// True when every offered chunk has gone to the server.
    var isDrained: Bool { current.isEmpty }

    enum Read: Equatable { case bytes(Int), later, end }

    /// Copies the next bytes of the chunk in flight into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        guard !current.isEmpty else { return phase == .open ? .later : .end }
        let n = min(buffer.count, current.count - offset)
        current.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + offset, byteCount: n)
        }
        offset += n
        if offset == current.count {
            current = next ?? []
            next = nil
            offset = 0
        }
        return .bytes(n)
    }

    func close() {
        guard phase != .closed else { return }
        phase = .closed
        wakes = nil
        current = []
        next = nil
        let done = onClose
        onClose = nil
        done?()
    }
}
