import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The real `studio-body` binary, started on 127.0.0.1 with a port the kernel
/// picks, a token file and a configuration written for the test.
final class BodyProcess: @unchecked Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var binary: String {
        ProcessInfo.processInfo.environment["STUDIO_BODY_BIN"] ?? root.appendingPathComponent(".build/debug/studio-body").path
    }

    let dir: URL
    let token = "e2e-token-0123456789abcdef"
    let process = Process()
    private let errors = Pipe()
    private let lock = NSLock()
    private var logText = ""
    private(set) var port: Int = 0

    /// Starts a body and waits (without blocking a test thread) until it serves.
    static func start(config: String = "", oriel: String? = nil, silence: String? = nil,
                      board: String? = nil) async throws -> BodyProcess {
        let body = try BodyProcess(config: config, oriel: oriel, silence: silence, board: board)
        try await body.ready()
        return body
    }

    /// `config` is appended to a working configuration; `board` is a board file's text, or nil for `sim`.
    private init(config: String = "", oriel: String? = nil, silence: String? = nil, board: String? = nil) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-body-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tokenFile = dir.appendingPathComponent("token")
        try (token + "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile.path)
        var boardLine = "sim"
        if let board {
            let f = dir.appendingPathComponent("board.conf")
            try board.write(to: f, atomically: true, encoding: .utf8)
            boardLine = f.path
        }
        let text = """
        [body]
        name = studio
        listen = 127.0.0.1:0
        token-file = \(tokenFile.path)
        [oriel]
        \(oriel.map { "url = \($0)" } ?? "")
        \(silence.map { "silence = \($0)" } ?? "")
        [board]
        file = \(boardLine)
        \(config)
        """
        let conf = dir.appendingPathComponent("body.conf")
        try text.write(to: conf, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["--config", conf.path]
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        errors.fileHandleForReading.readabilityHandler = { [weak self] h in
            let data = h.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.logText += String(decoding: data, as: UTF8.self)
            self.lock.unlock()
        }
        try process.run()
    }

    private func ready() async throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let range = log.range(of: #"serving on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(log[range].split(separator: ":").last!)!
                return
            }
            if !process.isRunning { break }
            await pause(0.02)
        }
        throw BodyFailed(words: "studio-body did not start: \(log)")
    }

    var log: String {
        lock.lock(); defer { lock.unlock() }
        return logText
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: dir)
    }

    // MARK: HTTP

    struct Answer {
        var status: Int
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func request(_ method: String, _ path: String, body: Data? = nil, token: String?? = .none,
                 timeout: Double = 30) async throws -> Answer {
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
        return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
    }

    func get(_ path: String, timeout: Double = 30) async throws -> Answer { try await request("GET", path, timeout: timeout) }

    @discardableResult
    func push(_ json: String) async throws -> Answer { try await request("POST", "/face", body: Data(json.utf8)) }

    func status() async throws -> [String: Any] { try await get("/status").json }

    func onair() async throws -> [String: Any] { try await status()["onair"] as? [String: Any] ?? [:] }

    /// Presses on the sim board; `times` presses `gap` seconds apart by their edge timestamps.
    func press(_ button: String, times: Int = 1, gap: Double = 0.6) async throws {
        let a = try await request("POST", "/sim/press?button=\(button)&presses=\(times)&gap=\(gap)")
        #expect(a.status == 200, "pressing \(button): \(a.text)")
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
}

struct BodyFailed: Error, CustomStringConvertible { var words: String; var description: String { words } }

/// Waits on the test's own clock (these tests run a real process in real time).
func pause(_ seconds: Double) async {
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
}

/// Polls `condition` until it holds or `within` seconds pass.
func eventually(within: Double, every: Double = 0.05, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(within)
    while Date() < deadline {
        if try await condition() { return true }
        await pause(every)
    }
    return try await condition()
}

extension Dictionary where Key == String, Value == Any {
    func string(_ k: String) -> String? { self[k] as? String }
    func bool(_ k: String) -> Bool? { self[k] as? Bool }
    func object(_ k: String) -> [String: Any] { self[k] as? [String: Any] ?? [:] }
    func items() -> [[String: Any]] { self["items"] as? [[String: Any]] ?? [] }
}
