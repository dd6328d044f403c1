import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import BodyTestSupport

/// The real `studio-body` binary, started on 127.0.0.1 with a port the kernel
/// picks, a token file and a configuration written for the test. With `tls`
/// it serves HTTPS, as a body does by default, and `request` reaches it as
/// Oriel will: curl trusting the body's own certificate alone (`--cacert`)
/// and its pin (`--pinnedpubkey`); URLSession on Linux can be given neither.
/// Without (the default here) the configuration states `tls = no` and
/// URLSession asks over plain HTTP: a curl process a request, 30 bodies at
/// once on the shared 2-core host, starved the sim board's real-time presses
/// of the timing tests (OnAirTests saw "armed" where two presses were sent).
final class BodyProcess: @unchecked Sendable {
    private let run: BodyRun
    var token: String { run.token }
    var process: Process { run.process }
    var log: String { run.log }
    /// The pin the body said at start (`sha256:…`), when it serves HTTPS.
    var pin: String? { run.pin }
    private(set) var port: Int = 0
    let tls: Bool

    /// Starts a body and waits (without blocking a test thread) until it serves.
    static func start(config: String = "", oriel: String? = nil, silence: String? = nil,
                      board: String? = nil, environment: [String: String] = [:], stallLog: Bool = false,
                      tls: Bool = false) async throws -> BodyProcess {
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

    private func ready() async throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let p = run.servingPort, !tls || run.pin != nil {
                port = p
                return
            }
            if !process.isRunning { break }
            await pause(0.02)
        }
        throw BodyFailed(words: "studio-body did not start: \(log)")
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

    /// The request through curl over HTTPS, trusting the body's certificate
    /// alone; waits for curl without blocking a test thread.
    private func pinnedRequest(_ method: String, _ path: String, body: Data?, token: String?,
                               timeout: Double) async throws -> Answer {
        let scratch = run.dir.appendingPathComponent("curl-\(UUID().uuidString)")
        let answer = scratch.appendingPathExtension("answer"), sent = scratch.appendingPathExtension("body")
        defer {
            try? FileManager.default.removeItem(at: answer)
            try? FileManager.default.removeItem(at: sent)
        }
        var args = ["-sS", "-X", method, "--max-time", String(timeout), "-o", answer.path, "-w", "%{http_code} %{content_type}",
                    "--cacert", run.dir.appendingPathComponent("tls.crt").path, "--pinnedpubkey", run.curlPin ?? "",
                    "-H", "X-Cordelia-Doing: end-to-end test", "-H", "Expect:"]
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        if let body {
            try body.write(to: sent)
            args += ["-H", "Content-Type: application/json", "--data-binary", "@" + sent.path]
        }
        args.append("https://localhost:\(port)\(path)")
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = args
        let out = Pipe(), err = Pipe()
        curl.standardOutput = out
        curl.standardError = err
        let done = AsyncStream<Void> { continuation in
            curl.terminationHandler = { _ in continuation.yield(); continuation.finish() }
        }
        try curl.run()
        for await _ in done {}
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard curl.terminationStatus == 0 else {
            let words = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw BodyFailed(words: "curl \(method) \(path) exited \(curl.terminationStatus): \(words)")
        }
        let parts = said.split(separator: " ", maxSplits: 1)
        let type = parts.count > 1 ? String(parts[1]) : ""
        return Answer(status: Int(parts.first ?? "") ?? 0, body: (try? Data(contentsOf: answer)) ?? Data(),
                      contentType: type.isEmpty ? nil : type)
    }

    func get(_ path: String, timeout: Double = 30) async throws -> Answer { try await request("GET", path, timeout: timeout) }

    @discardableResult
    func push(_ json: String) async throws -> Answer { try await request("POST", "/face", body: Data(json.utf8)) }

    func status() async throws -> [String: Any] { try await get("/status").json }

    func onair() async throws -> [String: Any] { try await status()["onair"] as? [String: Any] ?? [:] }

    /// Presses on the sim board; `times` presses `gap` seconds apart by their
    /// edge timestamps. Returns once the last one was released and confirmed:
    /// the sim board plays its edges in real time, as a finger would.
    func press(_ button: String, times: Int = 1, gap: Double = 0.6) async throws {
        let a = try await request("POST", "/sim/press?button=\(button)&presses=\(times)&gap=\(gap)")
        #expect(a.status == 200, "pressing \(button): \(a.text)")
        await pause(Double(times - 1) * gap + min(0.1, gap / 2) + 0.15)
    }

    /// The outbox without waiting; `after` acknowledges.
    func ears(after: UInt64 = 0, wait: Double = 0) async throws -> [String: Any] {
        try await get("/ears?after=\(after)&wait=\(wait)", timeout: wait + 10).json
    }

    /// SIGTERM, then waits for the exit without blocking a test thread.
    func terminate() async -> Int32 {
        process.terminate()
        while process.isRunning { await pause(0.01) }
        return process.terminationStatus
    }

    /// Sends `signal`, then waits for the exit: true and the code when the body exited
    /// itself, false and the signal when the signal ended it.
    func stop(with signal: Int32) async -> (exited: Bool, code: Int32) {
        kill(process.processIdentifier, signal)
        while process.isRunning { await pause(0.01) }
        return (process.terminationReason == .exit, process.terminationStatus)
    }
}

struct BodyFailed: Error, CustomStringConvertible { var words: String; var description: String { words } }

extension Dictionary where Key == String, Value == Any {
    func string(_ k: String) -> String? { self[k] as? String }
    func bool(_ k: String) -> Bool? { self[k] as? Bool }
    func object(_ k: String) -> [String: Any] { self[k] as? [String: Any] ?? [:] }
    func items() -> [[String: Any]] { self["items"] as? [[String: Any]] ?? [] }
}
