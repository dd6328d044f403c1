import BodySystem

/// Every signal that would end the body (SIGTERM, SIGINT, SIGHUP, SIGQUIT, ...)
/// as a file descriptor the loop watches, so a stop runs on the loop thread like
/// every other event and darkens the lamp before the process exits.
final class Signals {
    private let signals: SignalDescriptor
    /// What the loop watches (nil only once closed).
    var descriptor: FileDescriptor? { signals.descriptor }

    init() throws(LoopError) {
        SignalDescriptor.ignoreBrokenPipe()
        do { signals = try SignalDescriptor(SignalDescriptor.endingSignals) } catch {
            throw LoopError("hear the signals that end the body (signalfd)", error)
        }
    }

    /// "SIGHUP", for the log.
    static func name(of signal: Int32) -> String { SignalDescriptor.name(of: signal) }

    /// The signal that arrived, if any; a failed read ends the loop.
    func take() throws(LoopError) -> Int32? {
        do { return try signals.take() } catch { throw LoopError("read the signalfd", error) }
    }
}

/// Fresh ids for requests and the boot: 16 hex digits from the system's
/// generator, one `getrandom` an id (a byte at a time was eight, on the
/// confirming press's path).
enum Ids {
    static func fresh() -> String {
        var g = SystemRandomNumberGenerator()
        let digits = String(g.next(), radix: 16)
        // Counted as bytes: hex digits are one each, and counting characters
        // walks the graphemes (a third of an id's cost).
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }
}
