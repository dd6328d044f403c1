import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import BodyTestSupport
import BodyHub

/// The real `studio-body` binary, started on 127.0.0.1 with a port the kernel
/// picks, a token file and a configuration written for the test. It serves
/// HTTPS, as a body does by default, and `request` reaches it as Oriel will:
/// libcurl in this process (BodyHub's HubConnection) trusting the body's own
/// certificate file as the only authority and its pin (CURLOPT_CAINFO,
/// CURLOPT_PINNEDPUBLICKEY), connections kept alive between requests so a
/// request pays no handshake (a curl process a request starved the sim board's
/// real-time presses on the shared host). URLSession on Linux can be given
/// neither the certificate nor the pin. A test that writes the bytes itself
/// (PageTests' Raw) uses BodyHub's HubStream, trusted the same way. `tls: false`
/// states `tls = no` and asks over plain HTTP with URLSession: only for a test
/// about plain HTTP, and that test says so.
final class BodyProcess: @unchecked Sendable {
    private let run: BodyRun
    var token: String { run.token }
    var process: Process { run.process }
    var log: String { run.log }
    /// The pin the body said at start (`sha256:…`), when it serves HTTPS.
    var pin: String? { run.pin }
    /// curl's form of the pin (`sha256//…`), for CURLOPT_PINNEDPUBLICKEY.
    var curlPin: String? { run.curlPin }
    /// The body's certificate file, the one authority its clients trust.
    var certificate: String { run.dir.appendingPathComponent("tls.crt").path }
    private(set) var port: Int = 0
    let tls: Bool

    /// Starts a body and waits (without blocking a test thread) until it serves.
    static func start(config: String = "", oriel: String? = nil, silence: String? = nil,
                      board: String? = nil, environment: [String: String] = [:], stallLog: Bool = false,
                      tls: Bool = true) async throws -> BodyProcess {
        let body = try BodyProcess(config: config, oriel: oriel, silence: silence, board: board,
                                   environment: environment, stallLog: stallLog, tls: tls)
        try await body.ready()
        return body
    }

    /// `config` is appended to a working configuration; `board` is a board file's text, or nil for `sim`.
    private init(config: String = "", oriel: String? = nil, silence: String? = nil, board: String? = nil,
                 environment: [String: String] = [:], stallLog: Bool = false, tls: Bool) throws {
        self.tls = tls
        run = try BodyRun("e2e", token: "e2e-token-0123456789abcdef", environment: environment, stallLog: stallLog) { dir, tokenFile in
            var boardLine = "sim"
            if let board {
                let f = dir.appendingPathComponent("board.conf")
                try board.write(to: f, atomically: true, encoding: .utf8)
                boardLine = f.path
            }
            return """
            [body]
            tls = \(tls ? "yes" : "no")
            name = studio
            listen = 127.0.0.1:0
            token-file = \(tokenFile)
            announce = no
            [oriel]
            \(oriel.map { "url = \($0)" } ?? "")
            \(silence.map { "silence = \($0)" } ?? "")
            [board]
            file = \(boardLine)
            \(config)
            """
        }
    }

    /// Waits up to 20 s for the body to say it serves (and its pin, with TLS),
    /// then looks once more: a test process the machine stalled past the
    /// deadline (a whole parallel run once stood still 26 s) judges what the
    /// body said, not the time it lost.
    private func ready() async throws {
        let said = { self.run.servingPort != nil && (!self.tls || self.run.pin != nil) }
        _ = await eventually(within: 20, every: 0.02) { said() || self.process.ending != nil }
        guard said(), let p = run.servingPort else { throw BodyFailed(words: "studio-body did not start: \(log)") }
        port = p
    }

    /// Reads the body's standard error again after `stallLog`.
    func resumeLog() { run.resumeLog() }

    // MARK: HTTP

    struct Answer {
        var status: Int
        var body: Data
        var contentType: String? = nil
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func request(_ method: String, _ path: String, body: Data? = nil, token: String?? = .none,
                 timeout: Double = 30) async throws -> Answer {
        if tls { return try await pinnedRequest(method, path, body: body, token: token ?? self.token, timeout: timeout) }
        var r = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        r.httpMethod = method
        r.timeoutInterval = timeout
        let t: String? = token ?? self.token
        if let t { r.setValue("Bearer \(t)", forHTTPHeaderField: "Authorization") }
        r.setValue("end-to-end test", forHTTPHeaderField: "X-Cordelia-Doing")
        if let body {
            r.httpBody = body
            r.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: r)
        let http = response as? HTTPURLResponse
        return Answer(status: http?.statusCode ?? 0, body: data, contentType: http?.value(forHTTPHeaderField: "Content-Type"))
    }

    /// Connections kept alive for the next request (one handshake, not one a
    /// request); a request made while all are busy (a long poll) opens another.
    private let idle = NSLock()
    private var connections: [HubConnection] = []

    /// The request over HTTPS through libcurl in this process, trusting the
    /// body's certificate alone and its pin; waits without blocking a test thread.
    private func pinnedRequest(_ method: String, _ path: String, body: Data?, token: String?,
                               timeout: Double) async throws -> Answer {
        var headers = [("X-Cordelia-Doing", "end-to-end test")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let connection = idle.withLock { connections.popLast() }
            ?? HubConnection(part: "end-to-end test", pin: curlPin ?? "", trust: certificate)
        let url = "https://localhost:\(port)\(path)", bytes = body.map { [UInt8]($0) }, sent = headers
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<HubResponse, HubError>, Never>) in
            Thread {
                done.resume(returning: connection.send(method, url, headers: sent, body: bytes, timeout: timeout))
            }.start()
        }
        idle.withLock { connections.append(connection) }
        let answer = try result.get()
        return Answer(status: answer.status, body: Data(answer.body), contentType: answer.contentType)
    }

    func get(_ path: String, timeout: Double = 30) async throws -> Answer { try await request("GET", path, timeout: timeout) }

    @discardableResult
    func push(_ json: String) async throws -> Answer { try await request("POST", "/face", body: Data(json.utf8)) }

    func status() async throws -> [String: Any] { try await get("/status").json }

    func onair() async throws -> [String: Any] { try await status()["onair"] as? [String: Any] ?? [:] }

    /// Presses on the sim board; `times` presses `gap` seconds apart by their
    /// edge timestamps. Returns once the last one was released and confirmed:
    /// the sim board plays its edges in real time, as a finger would, and the
    /// body answers when the last has landed.
    @discardableResult
    func press(_ button: String, times: Int = 1, gap: Double = 0.6) async throws -> Answer {
        let a = try await request("POST", "/sim/press?button=\(button)&presses=\(times)&gap=\(gap)")
        #expect(a.status == 200, "pressing \(button): \(a.text)")
        return a
    }

    /// The outbox without waiting; `after` acknowledges.
    func ears(after: UInt64 = 0, wait: Double = 0) async throws -> [String: Any] {
        try await get("/ears?after=\(after)&wait=\(wait)", timeout: wait + 10).json
    }

    /// SIGTERM, then waits for the exit without blocking a test thread.
    func terminate() async -> Int32 {
        process.terminate()
        let end = await ended()
        await logRead()
        return end.code
    }

    /// After the exit: the reader thread may not have read the last lines yet
    /// (the stop's own); waits for the pipe's end, a few seconds at most.
    private func logRead() async {
        _ = await eventually(within: 5, every: 0.01) { run.logIsWhole }
    }

    /// Sends `signal`, then waits for the exit: true and the code when the body exited
    /// itself, false and the signal when the signal ended it.
    func stop(with signal: Int32) async -> (exited: Bool, code: Int32) {
        kill(process.processIdentifier, signal)
        let end = await ended()
        await logRead()
        return (end.exited, end.code)
    }

    /// Its end as the kernel says (`Process.ending`), looked at every 10 ms;
    /// a body still running 60 s on is killed (SIGKILL), and one that outlives
    /// that by 5 s is a failure, so no test waits for ever.
    private func ended() async -> ProcessEnd {
        let killAt = monotonicNow() + 60
        var killed = false
        while true {
            if let end = process.ending { return end }
            let now = monotonicNow()
            if !killed, now >= killAt {
                Issue.record("studio-body (pid \(process.processIdentifier)) still ran 60 s after the signal: killed")
                kill(process.processIdentifier, SIGKILL)
                killed = true
            } else if killed, now >= killAt + 5 {
                Issue.record("studio-body (pid \(process.processIdentifier)) still ran 5 s after SIGKILL")
                return ProcessEnd(exited: false, code: SIGKILL)
            }
            await pause(0.01)
        }
    }
}

struct BodyFailed: Error, CustomStringConvertible { var words: String; var description: String { words } }

extension Dictionary where Key == String, Value == Any {
    func string(_ k: String) -> String? { self[k] as? String }
    func bool(_ k: String) -> Bool? { self[k] as? Bool }
    func object(_ k: String) -> [String: Any] { self[k] as? [String: Any] ?? [:] }
    func items() -> [[String: Any]] { self["items"] as? [[String: Any]] ?? [] }
}
