import Synchronization

/// Where the log's lines go (standard error: journald's stream under
/// systemd), without ever making the loop wait for the reader.
///
/// A line that cannot be written at once waits in a bounded buffer, in order,
/// and goes out when the stream can take it again: the loop watches
/// `descriptor` for that (edge-triggered writable) and calls `flush`. Past the
/// bound, lines are dropped and counted; the first line that fits again is
/// preceded by one that says how many were dropped and over how long.
/// Any thread may write (the hello's worker does): one lock keeps the order.
///
/// The stream is written without waiting: a socket (the journal) with
/// `send(MSG_DONTWAIT)`; a pipe or a terminal through its own non-blocking
/// open of `/proc/self/fd/N` (setting O_NONBLOCK on the inherited one would
/// change it for the shell that shares it). A regular file is written as it
/// is: it does not stall on a reader.
public final class JournalOutlet: Sendable {
    /// How much may wait for a stalled reader before lines are dropped.
    public static let defaultBound = 256 * 1024

    private enum Way: Sendable { case send, write, blocking }

    private struct Waiting: Sendable {
        var bytes: [UInt8] = []
        var sent = 0
        var dropped = 0
        var droppedSince: Double?
        var pending: Int { bytes.count - sent }
    }

    /// Watch this (writable, edge-triggered) and call `flush` when it fires;
    /// nil when the stream never waits (a regular file, or a blocking fallback).
    public let descriptor: FileDescriptor?
    private let fd: Int32
    private let owned: Bool
    private let way: Way
    private let bound: Int
    private let waiting = Mutex(Waiting())

    /// Standard error, the process's one: every `Log` writes through it.
    public static let standardError = JournalOutlet()

    /// `stream` is where the lines go (standard error, journald's stream under systemd).
    public init(_ stream: FileDescriptor = .standardError, bound: Int = JournalOutlet.defaultBound) {
        let fd = stream.rawValue
        self.bound = bound
        switch system_stream_kind(fd) {
        case 1:
            (self.fd, owned, way, descriptor) = (fd, false, .send, FileDescriptor(rawValue: fd))
        case 2:
            let mine = system_reopen_nonblocking(fd)
            if mine >= 0 {
                (self.fd, owned, way, descriptor) = (mine, true, .write, FileDescriptor(rawValue: mine))
            } else {
                // No /proc: the old way, one blocking write a line.
                (self.fd, owned, way, descriptor) = (fd, false, .blocking, nil)
            }
        default:
            (self.fd, owned, way, descriptor) = (fd, false, .blocking, nil)
        }
    }

    deinit {
        if owned { _ = system_close(fd) }
    }

    /// Bytes waiting for the reader.
    public var pending: Int { waiting.withLock { $0.pending } }

    /// One whole line (its newline included). Never waits for the reader.
    /// `now` (monotonic seconds) dates a drop.
    public func write(_ line: [UInt8], at now: @autoclosure () -> Double = SystemClock.monotonic()) {
        guard way != .blocking else {
            _ = line.withUnsafeBytes { b in valueOrErrno { system_write(fd, b.baseAddress, b.count) } }
            return
        }
        put(line.count, at: now()) { $0 += line }
    }

    /// One line given as its prefix and its words; the newline is added here.
    /// They go straight into the waiting bytes, which keep their room: no
    /// line is built first (that would be two or three allocations a line).
    public func write(prefix: String, _ words: String, at now: @autoclosure () -> Double = SystemClock.monotonic()) {
        guard way != .blocking else {
            // The whole line in one write, from a buffer on the stack.
            let count = prefix.utf8.count + words.utf8.count + 1
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { line in
                var i = 0
                for b in prefix.utf8 { line[i] = b; i += 1 }
                for b in words.utf8 { line[i] = b; i += 1 }
                line[i] = UInt8(ascii: "\n")
                _ = valueOrErrno { system_write(fd, line.baseAddress, count) }
            }
            return
        }
        put(prefix.utf8.count + words.utf8.count + 1, at: now()) { bytes in
            bytes.append(contentsOf: prefix.utf8)
            bytes.append(contentsOf: words.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
    }

    /// A line of `count` bytes that `append` adds to the waiting bytes, or drops when they are full.
    private func put(_ count: Int, at now: @autoclosure () -> Double, _ append: (inout [UInt8]) -> Void) {
        waiting.withLock { w in
            // Full: the reader may have taken some since the loop last
            // flushed (its writable edge not yet seen), so try before dropping.
            if w.dropped > 0 || w.pending + count > bound { send(&w) }
            if w.dropped > 0 {
                let words = "log: \(Self.grouped(w.dropped)) \(w.dropped == 1 ? "line" : "lines") dropped in "
                    + "\(Self.seconds(now() - (w.droppedSince ?? now()))): the journal was not reading\n"
                let note = Array(words.utf8)
                guard w.pending + note.count + count <= bound else {
                    w.dropped += 1
                    return
                }
                w.bytes += note
                w.dropped = 0
                w.droppedSince = nil
            } else if w.pending + count > bound {
                w.dropped = 1
                w.droppedSince = now()
                return
            }
            append(&w.bytes)
            send(&w)
        }
    }

    /// Writes what waits, as far as the stream takes it now.
    public func flush() {
        guard way != .blocking else { return }
        waiting.withLock { send(&$0) }
    }

    /// At exit: waits up to `seconds` for the reader to take what waits, so
    /// the last lines (the stop's own) are not lost to a slow journal.
    public func drain(within seconds: Double) {
        let end = SystemClock.monotonic() + seconds
        while true {
            flush()
            let left = end - SystemClock.monotonic()
            guard pending > 0, left > 0 else { return }
            _ = valueOrErrno { system_poll_writable(fd, Int32(max(1, left * 1000))) }
        }
    }

    private func send(_ w: inout Waiting) {
        while w.pending > 0 {
            let n = w.bytes.withUnsafeBytes { b -> Int in
                let start = b.baseAddress! + w.sent
                let r = valueOrErrno { way == .send ? system_send_nowait(fd, start, w.pending) : system_write(fd, start, w.pending) }
                switch r {
                case .success(let n): return n
                case .failure(let e) where e == .wouldBlock: return 0
                // A reader gone for good (EPIPE) or a broken stream: nothing will take these.
                case .failure: return -1
                }
            }
            if n == 0 { break }
            if n < 0 {
                w.bytes.removeAll()
                w.sent = 0
                return
            }
            w.sent += n
        }
        if w.pending == 0 {
            w.bytes.removeAll(keepingCapacity: w.bytes.capacity <= 4096)
            w.sent = 0
        } else if w.sent > 64 * 1024 {
            w.bytes.removeFirst(w.sent)
            w.sent = 0
        }
    }

    /// 0.4 s, 42 s, 1,204 s.
    static func seconds(_ s: Double) -> String {
        let tenths = Int((max(0, s) * 10).rounded())
        return tenths < 100 ? "\(tenths / 10).\(tenths % 10) s" : "\(grouped(Int(s.rounded()))) s"
    }

    /// 1204 as 1,204.
    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }
}
