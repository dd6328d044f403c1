import Foundation
import Glibc
import BodySystem
import Testing
import BodyHardware
import BodyTestSupport

/// Helpers for the camera tests that run in the VM (Tests/hil/camera-tests):
/// real vivid and v4l2loopback drivers, no fakes.
enum CameraHIL {
    static let enabled = ProcessInfo.processInfo.environment["STUDIO_BODY_HIL"] == "1"
    static let loopback = "/dev/video42"  // guest-init loads v4l2loopback with video_nr=42

    /// The node whose V4L2 name is `name` (vivid's capture node is "vivid-000-vid-cap").
    static func node(named name: String) -> String? {
        let dir = "/sys/class/video4linux"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        for entry in entries.sorted() where entry.hasPrefix("video") {
            let said = (try? String(contentsOfFile: "\(dir)/\(entry)/name", encoding: .utf8)) ?? ""
            if said.trimmingCharacters(in: .whitespacesAndNewlines) == name { return "/dev/\(entry)" }
        }
        return nil
    }

    static func vivid() throws -> String {
        try #require(node(named: "vivid-000-vid-cap"), "vivid's capture node is missing")
    }

    /// Waits for the descriptor and reads frames until one comes or `seconds` pass.
    static func nextFrame(_ camera: Camera, within seconds: Double) throws(CameraError) -> [UInt8]? {
        let deadline = now() + seconds
        while true {
            let left = deadline - now()
            if left <= 0 { return nil }
            var pfd = pollfd(fd: camera.descriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32(left * 1000) + 1)
            if pfd.revents != 0, let frame = try camera.readFrame()?.jpeg { return frame }
        }
    }

    /// Frames and their arrival times over `seconds`, counted from the first frame.
    static func frames(_ camera: Camera, for seconds: Double) throws -> [(at: Double, jpeg: [UInt8])] {
        var got: [(Double, [UInt8])] = []
        guard let first = try nextFrame(camera, within: 5) else { return [] }
        let start = now()
        got.append((start, first))
        while now() - start < seconds {
            if let frame = try nextFrame(camera, within: start + seconds - now()) { got.append((now(), frame)) }
        }
        return got
    }

    /// Frames per second between the first and the last arrival.
    static func rate(_ frames: [(at: Double, jpeg: [UInt8])]) -> Double {
        guard frames.count > 1, let first = frames.first, let last = frames.last else { return 0 }
        return Double(frames.count - 1) / (last.at - first.at)
    }

    /// True when this process holds a descriptor for `device`.
    static func holds(_ device: String) -> Bool {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == device }
    }

    /// Runs a command; its exit status and what it said.
    @discardableResult
    static func sh(_ command: String) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        let end = p.waitForExit()
        return (end.code, String(decoding: data, as: UTF8.self))
    }

    static func now() -> Double { monotonicNow() }
}
