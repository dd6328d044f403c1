import Glibc
import BodySystem

/// SIGTERM and SIGINT as a file descriptor the loop watches, so a stop runs on
/// the loop thread like every other event.
final class Signals {
    private let signals: SignalDescriptor
    let descriptor: Int32

    init() throws(LoopError) {
        SignalDescriptor.ignoreBrokenPipe()
        do { signals = try SignalDescriptor([SIGTERM, SIGINT]) } catch { throw LoopError("hear SIGTERM and SIGINT (signalfd)", error) }
        descriptor = signals.descriptor?.rawValue ?? -1
    }

    /// The signal that arrived, if any; a failed read ends the loop.
    func take() throws(LoopError) -> Int32? {
        do { return try signals.take() } catch { throw LoopError("read the signalfd", error) }
    }
}

/// Fresh ids for requests and the boot: random hex from the system's generator.
enum Ids {
    static func fresh(_ bytes: Int = 8) -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let b = UInt8.random(in: 0...255, using: &g)
            return String(b, radix: 16).count == 1 ? "0" + String(b, radix: 16) : String(b, radix: 16)
        }.joined()
    }
}
