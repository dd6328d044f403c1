import Foundation

/// The real studio-body binary (`Repository.studioBody`), started with a token
/// file and a configuration written into a directory of its own, its standard
/// error kept as its log. Released, it stops the body and removes the directory.
public final class BodyRun: @unchecked Sendable {
    public let dir: URL
    public let token: String
    public let process = Process()
    private let errors = Pipe()
    private let lock = NSLock()
    private var logText = ""

    /// Writes `token` to `dir/token` (0600) and what `configuration` returns for
    /// (the directory, the token file's path) to `dir/body.conf`, then starts the body.
    /// `environment` is added to the test's own. With `stallLog`, nobody reads
    /// the body's standard error once it said where it serves (a journal that
    /// stopped reading) until `resumeLog()`.
    public init(_ name: String, token: String, environment: [String: String] = [:], stallLog: Bool = false,
                configuration: (URL, String) throws -> String) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-body-\(name)-\(UUID().uuidString)")
        self.token = token
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tokenFile = dir.appendingPathComponent("token")
        try (token + "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile.path)
        let conf = dir.appendingPathComponent("body.conf")
        try configuration(dir, tokenFile.path).write(to: conf, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Repository.studioBody)
        process.arguments = ["--config", conf.path]
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        self.stallLog = stallLog
        try process.run()
        // A thread of its own reads the log, so a stalled log is a reader
        // that really stops (a dispatch source re-armed later did not resume).
        let fd = errors.fileHandleForReading.fileDescriptor
        Thread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0, let self else {
                    self?.lock.lock(); self?.logEnded = true; self?.lock.unlock()
                    return
                }
                self.lock.lock()
                self.logText += String(decoding: buffer[..<n], as: UTF8.self)
                // After the start's lines: where it serves, and what (HTTPS and its pin, or plain).
                let stall = self.stallLog && !self.resumed && self.logText.contains("serving on")
                    && self.logText.contains("tls: serving")
                self.lock.unlock()
                if stall {
                    self.gate.lock()
                    while !self.resumed { self.gate.wait() }
                    self.gate.unlock()
                }
            }
        }.start()
    }

    private let stallLog: Bool
    private var logEnded = false

    /// True once the log's pipe closed (the body and every child holding it
    /// exited) and all it held was read.
    public var logIsWhole: Bool {
        lock.lock(); defer { lock.unlock() }
        return logEnded
    }
    private var resumed = false
    private let gate = NSCondition()

    /// Reads the body's standard error again (after `stallLog`).
    public func resumeLog() {
        gate.lock()
        lock.lock(); resumed = true; lock.unlock()
        gate.broadcast()
        gate.unlock()
    }

    deinit {
        if process.processIdentifier > 0, process.ending == nil { process.terminate(); process.waitForExit() }
        try? FileManager.default.removeItem(at: dir)
    }

    /// What the body wrote to standard error so far.
    public var log: String {
        lock.lock(); defer { lock.unlock() }
        return logText
    }

    /// The pin the body said at start ("Oriel pins sha256:…"), when it serves HTTPS.
    public var pin: String? {
        let log = log
        guard let r = log.range(of: #"Oriel pins sha256:[A-Za-z0-9+/=]+"#, options: .regularExpression) else { return nil }
        return String(log[r].dropFirst("Oriel pins ".count))
    }

    /// The pin in curl's form (`sha256//BASE64`), for `--pinnedpubkey` and CURLOPT_PINNEDPUBLICKEY.
    public var curlPin: String? { pin.map { "sha256//" + $0.dropFirst("sha256:".count) } }

    /// The port of "serving on 127.0.0.1:N" once the log says it.
    public var servingPort: Int? {
        let log = log
        guard let r = log.range(of: #"serving on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return nil }
        return Int(log[r].split(separator: ":").last ?? "")
    }
}
