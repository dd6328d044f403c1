import Foundation
import Glibc
import Testing
import BodyTestSupport

// A Raspberry Pi kernel keeps a released output at its last level: a body ended by a
// signal it did not catch would leave the lamp lit. Every signal that would end it
// must stop it the way SIGTERM does, darkening the lamp first, and exit 0.
@Suite("Every signal that would end the body darkens the lamp first")
struct StopSignalsTests {
    @Test("the body stops in its own time, lamp darkened, on", arguments: [
        (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"), (SIGUSR1, "SIGUSR1"),
        (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"), (SIGPWR, "SIGPWR"), (SIGXCPU, "SIGXCPU"),
    ])
    func stops(signal: Int32, name: String) async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        #expect(try await body.status().object("lines").bool("lamp") == true)
        let (exited, code) = await body.stop(with: signal)
        #expect(exited && code == 0, "\(name): \(exited ? "exit code" : "killed by signal") \(code)")
        #expect(body.log.contains("stopping on \(name): answering waiting polls, darkening the lamp"), "\(body.log)")
    }
}

// The demo's hub keeps a long poll open in libcurl on a thread of its own. The C
// library's exit handlers (OpenSSL's cleanup) used to run under that transfer, and
// about one stop in six ended in SIGSEGV after the lamp was dark.
@Suite("The demo stops cleanly while its hub is mid-transfer")
struct DemoStopTests {
    @Test("studio-body demo exits 0 on SIGTERM, round after round")
    func demoStops() async throws {
        for round in 1...8 {
            // Another test's socket may take a port between the kernel naming it free and
            // the demo binding it: that round starts again on another port, three times at most.
            var started: (Process, Pipe, Said)?
            for _ in 1...3 where started == nil {
                let (demo, out, said) = try startDemo()
                let up = Date()
                while !said.text.contains("demo hub: the studio body answers"), demo.ending == nil, Date().timeIntervalSince(up) < 20 {
                    await pause(0.05)
                }
                if said.text.contains("Address already in use"), demo.ending != nil {
                    demo.waitForExit()
                    out.fileHandleForReading.readabilityHandler = nil
                    continue
                }
                started = (demo, out, said)
            }
            guard let (demo, out, said) = started else {
                Issue.record("round \(round): three ports taken in a row")
                return
            }
            #expect(said.text.contains("demo hub: the studio body answers"), "round \(round): \(said.text)")
            // Its hub's long poll under way, and stops at odd moments of it.
            await pause(1.0 + Double(round % 3) * 0.7)
            kill(demo.processIdentifier, SIGTERM)
            let end = demo.waitForExit()
            out.fileHandleForReading.readabilityHandler = nil
            #expect(end == ProcessEnd(exited: true, code: 0), "round \(round): \(end)")
            // Its folder (token, TLS key) named in the curl line it printed: gone with it.
            let folder = said.text.components(separatedBy: "--cacert ").dropFirst().first?
                .components(separatedBy: "/tls.crt").first ?? ""
            #expect(folder.hasPrefix("/tmp/studio-body-demo-"), "round \(round): no folder in \(said.text)")
            #expect(!FileManager.default.fileExists(atPath: folder), "round \(round): \(folder) was left behind")
        }
    }

    /// The demo on a port the kernel just named free, its output gathered.
    private func startDemo() throws -> (Process, Pipe, Said) {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let port = bindLoopback(probe, port: 0) ?? UInt16.random(in: 20_000..<40_000)
        close(probe)
        let demo = Process()
        demo.executableURL = URL(fileURLWithPath: Repository.studioBody)
        demo.arguments = ["demo", "--port", "\(port)"]
        let out = Pipe()
        demo.standardOutput = out
        demo.standardError = out
        let said = Said()
        out.fileHandleForReading.readabilityHandler = { said.add($0.availableData) }
        try demo.run()
        return (demo, out, said)
    }
}

/// What a process wrote, gathered from its pipe's handler thread.
private final class Said: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()
    func add(_ data: Data) { lock.lock(); bytes.append(data); lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: bytes, as: UTF8.self) }
}
