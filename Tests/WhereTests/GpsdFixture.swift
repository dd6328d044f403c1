import Foundation
import Glibc
import BodyTestSupport

/// A real gpsd on loopback for one test: fed by gpsfake from a freshly
/// generated NMEA log, or bare with no receiver. Its own log (-D 3) is kept so
/// a test can count the watches gpsd saw and the clients it let go.
final class GpsdFixture: @unchecked Sendable {
    let port: UInt16
    let dir: URL
    let logFile: URL
    private let process: Process

    static let testsDir = Repository.url("Tests")
    static let generator = testsDir.appendingPathComponent("gps/nmea.py").path

    private init(port: UInt16, dir: URL, process: Process) {
        self.port = port
        self.dir = dir
        self.logFile = dir.appendingPathComponent("gpsd.log")
        self.process = process
    }

    /// gpsfake playing `nmea.py ARGS` into a real gpsd, five sentences a second.
    /// Timestamps are fresh from now, and gpsfake plays from now: ask at once.
    static func fake(_ args: [String]) async throws -> GpsdFixture {
        // gpsfake adds its pty through gpsd's control socket as soon as the socket
        // file exists; under load gpsd is not listening yet and the add is silently
        // lost. Then gpsd has no receiver, so start again.
        var last: (any Error)?
        for _ in 0..<3 {
            let dir = try tempDir()
            let log = dir.appendingPathComponent("receiver.nmea")
            try run("/usr/bin/env", ["python3", generator] + args, stdout: log)
            let port = try freePort()
            let f = try spawn(dir: dir, port: port, "/usr/bin/gpsfake",
                              ["-c", "0.2", "-P", String(port), "-D", "3", log.path])
            do {
                try await f.waitFor("adding /dev/", within: 20)
                return f
            } catch {
                last = error
                f.stop()
            }
        }
        throw last ?? FixtureError("gpsfake did not start")
    }

    /// gpsd with no receiver attached (a control socket, so it agrees to start).
    static func bare() async throws -> GpsdFixture {
        let dir = try tempDir()
        let port = try freePort()
        let f = try spawn(dir: dir, port: port, "/usr/sbin/gpsd",
                          ["-N", "-D", "3", "-S", String(port), "-F", dir.appendingPathComponent("ctl.sock").path])
        try await f.waitFor("listening on port")
        return f
    }

    /// A port nothing listens on.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        guard let port = bindLoopback(fd) else {
            throw FixtureError("cannot find a free port: \(String(cString: strerror(errno)))")
        }
        return port
    }

    /// True when the NMEA log gpsfake plays has an RMC with a fix at `epoch` (to the hundredth).
    func logHasFix(at epoch: Double) -> Bool {
        var t = time_t(epoch.rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        let hundredths = Int(((epoch - Double(t)) * 100).rounded())
        let stamp = String(format: "$GPRMC,%02d%02d%02d.%02d,A,", tm.tm_hour, tm.tm_min, tm.tm_sec, hundredths)
        let nmea = (try? String(contentsOf: dir.appendingPathComponent("receiver.nmea"), encoding: .utf8)) ?? ""
        return nmea.contains(stamp)
    }

    /// gpsd's own log so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Watches gpsd was asked for, by its own log.
    var watchesStarted: Int { log.components(separatedBy: #"?WATCH={"enable":true"#).count - 1 }
    /// Clients gpsd let go, by its own log.
    var clientsDetached: Int { log.components(separatedBy: "in detach_client").count - 1 }

    /// Established TCP connections to gpsd's port right now, as the kernel sees them.
    func connections() throws -> Int {
        let out = try Self.capture("/usr/bin/ss", ["-Htn", "state", "established", "( sport = :\(port) )"])
        return out.split(separator: "\n").count
    }

    /// Kills gpsd itself (not gpsfake), found by the port it listens on.
    func killGpsd() throws {
        let out = try Self.capture("/usr/bin/ss", ["-Hltnp", "( sport = :\(port) )"])
        guard let r = out.range(of: #"pid=([0-9]+)"#, options: .regularExpression),
              let pid = Int32(out[r].dropFirst(4)) else {
            throw FixtureError("cannot find gpsd's pid on port \(port): \(out)")
        }
        kill(pid, SIGKILL)
    }

    /// Ends gpsfake (which ends its gpsd) or the bare gpsd; never waits long.
    func stop() {
        if process.isRunning { process.terminate() }
        for _ in 0..<60 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? killGpsd()
        try? FileManager.default.removeItem(at: dir)
    }

    deinit { stop() }

    private func waitFor(_ words: String, within seconds: Double = 10) async throws {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if log.contains(words) { return }
            if !process.isRunning { throw FixtureError("gpsd fixture ended early:\n\(log)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FixtureError("gpsd fixture did not say \"\(words)\" within \(seconds) s:\n\(log)")
    }

    /// The test runner's threads block SIGTERM and a spawned child inherits
    /// that mask, so the child starts through a one-line unblocker.
    static let unblock = "import os,signal,sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); os.execv(sys.argv[1], sys.argv[1:])"

    private static func spawn(dir: URL, port: UInt16, _ exe: String, _ args: [String]) throws -> GpsdFixture {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", unblock, exe] + args
        p.currentDirectoryURL = dir
        let logURL = dir.appendingPathComponent("gpsd.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: logURL)
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        p.standardOutput = out
        p.standardError = out
        try p.run()
        return GpsdFixture(port: port, dir: dir, process: p)
    }

    private static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("where-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private static func run(_ exe: String, _ args: [String], stdout: URL) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: stdout)
        try p.run()
        p.waitUntilExit()
        if p.terminationStatus != 0 { throw FixtureError("\(exe) \(args) failed: \(p.terminationStatus)") }
    }

    private static func capture(_ exe: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
