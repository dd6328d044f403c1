import Glibc
internal import CSystem

/// SIGTERM and SIGINT as a file descriptor the loop watches, so a stop runs on
/// the loop thread like every other event.
final class Signals {
    let descriptor: Int32

    init() throws(LoopError) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        sigprocmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        descriptor = signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        if descriptor < 0 { throw LoopError("signalfd", errno) }
    }

    /// The signal that arrived, if any.
    func take() -> Int32? {
        var info = signalfd_siginfo()
        let n = read(descriptor, &info, MemoryLayout<signalfd_siginfo>.size)
        return n == MemoryLayout<signalfd_siginfo>.size ? Int32(info.ssi_signo) : nil
    }

    deinit { close(descriptor) }
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
