import Foundation
import Testing
import BodyTestSupport

/// Issue 22: the loop never waits for the journal. The body's standard error
/// is a pipe that nobody reads once the body serves (journald stalled on a
/// slow SD card, or restarting), and every request writes a log line
/// (`STUDIO_BODY_DEBUG=1`): far more than the pipe and the outlet's buffer hold.
@Suite("A journal that stops reading", .serialized)
struct LogStallTests {
    @Test("pushes and a press's answer keep coming while the log is not read; the drop is said once it reads again",
          .timeLimit(.minutes(2)))
    func stalledJournal() async throws {
        let body = try await BodyProcess.start(environment: ["STUDIO_BODY_DEBUG": "1"], stallLog: true)
        // About 60 bytes a line: 6,000 lines are 360 KB, past a 64 KiB pipe and the 256 KiB buffer.
        for i in 0..<6000 {
            let a = try await body.get("/status", timeout: 5)
            if a.status != 200 { Issue.record("request \(i): \(a.status)"); return }
        }
        // Oriel's push and a two-press still go through, each bounded by a
        // 5 s timeout: a loop blocked in write(2) would answer none of them.
        let pushed = try await body.request("POST", "/face", body: Data(#"{"onair":{"on":false}}"#.utf8), timeout: 5)
        #expect(pushed.status == 200)
        async let poll = body.get("/ears?after=0&wait=20", timeout: 25)
        try await body.press("onair", times: 2, gap: 0.6)
        let answered = try await poll
        #expect(answered.status == 200)
        #expect((answered.json["items"] as? [[String: Any]])?.first?["kind"] as? String == "onair",
                "the press's request reached the waiting poll: \(answered.text)")
        // The journal reads again: what waited goes out, then the next line says what was dropped.
        // The reader's thread wakes when it will: a line the body writes
        // before the journal took anything is still dropped, so ask again.
        body.resumeLog()
        var said = false
        for _ in 0..<20 where !said {
            _ = try await body.get("/hello", timeout: 5)
            said = await eventually(within: 1) { body.log.contains("GET /hello 200") }
        }
        #expect(said, "the line after the stall reached the log: \(body.log.suffix(600))")
        let log = body.log
        let note = log.range(of: #"log: [0-9,]+ lines dropped in [0-9.,]+ s: the journal was not reading"#, options: .regularExpression)
        #expect(note != nil, "the drop is said")
        if let note {
            #expect(log[..<note.lowerBound].contains("GET /status 200"), "lines before the drop kept, in order")
            #expect(!log[..<note.lowerBound].contains("GET /hello 200"), "the drop is said before the next line")
            #expect(log[note.upperBound...].contains("GET /hello 200"))
        }
        _ = await body.terminate()
    }
}
