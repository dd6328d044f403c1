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
