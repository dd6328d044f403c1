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
    public init(_ name: String, token: String, configuration: (URL, String) throws -> String) throws {
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
        errors.fileHandleForReading.readabilityHandler = { [weak self] h in
            let data = h.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.logText += String(decoding: data, as: UTF8.self)
            self.lock.unlock()
        }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: dir)
    }

    /// What the body wrote to standard error so far.
    public var log: String {
        lock.lock(); defer { lock.unlock() }
        return logText
    }

    /// The port of "serving on 127.0.0.1:N" once the log says it.
    public var servingPort: Int? {
        let log = log
        guard let r = log.range(of: #"serving on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return nil }
        return Int(log[r].split(separator: ":").last ?? "")
    }
}
