import Foundation
import Glibc
import Testing
import BodyHardware
import BodyTestSupport

/// A camera that delivers garbage (issue 12 section 3): v4l2loopback fed by
/// Tests/hil/jpeg-feeder with whole JPEGs between runs of random bytes, JPEGs
/// cut in half and zero-length frames, read by the real `studio-body` over
/// `/preview`. VM only.
@Suite("bad frames from a camera (VM)", .serialized, .enabled(if: CameraHIL.enabled, "set STUDIO_BODY_HIL=1 (Tests/hil/camera-tests)"))
struct CameraBadFramesTests {
    /// Four whole JPEGs, then ten of each bad kind: one round is 38 frames, 2.5 s at 15 fps.
    func fixtures() throws -> (files: [String], good: [[UInt8]]) {
        let dir = "/tmp/camera-bad-frames-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let encoder = try YUYVEncoder(width: 640, height: 480)
        var good: [[UInt8]] = []
        for n in 0..<4 {
            var yuyv = [UInt8](repeating: 128, count: 640 * 480 * 2)
            for i in stride(from: 0, to: yuyv.count, by: 2) { yuyv[i] = UInt8((i / 2 + n * 41) % 256) }
            good.append(try encoder.encode(yuyv))
        }
        var random = [UInt8](repeating: 0, count: 20_000)
        for i in random.indices { random[i] = UInt8.random(in: 0...255) }
        let files: [(String, [UInt8])] = good.enumerated().map { ("good\($0.offset).jpg", $0.element) }
            + [("random.bin", random), ("half.jpg", Array(good[0].prefix(good[0].count / 2))), ("empty.jpg", [])]
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: "\(dir)/\(name)")) }
        let round = (0..<8).map { "\(dir)/good\($0 % 4).jpg" }
            + Array(repeating: "\(dir)/random.bin", count: 10)
            + Array(repeating: "\(dir)/half.jpg", count: 10)
            + Array(repeating: "\(dir)/empty.jpg", count: 10)
        return (round, good)
    }

    @Test("random bytes, JPEGs cut in half and empty frames: /preview goes on, says each run of bad frames once, and serves whole frames after")
    func badFrames() throws {
        // A fresh v4l2loopback: an earlier suite's feeder leaves its format in the device
        // (seen: MJPG refused). (A stranger of 71,230 bytes once blamed on its last frames
        // came again after this reload: most likely a torn frame, docs/eyes.md.)
        let reload = try CameraHIL.sh("rmmod v4l2loopback && modprobe v4l2loopback video_nr=42 card_label=hil-loopback exclusive_caps=1 max_buffers=4")
        try #require(reload.status == 0, "cannot reload v4l2loopback: \(reload.output)")
        let (files, good) = try fixtures()
        let feeder = Process()
        feeder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        feeder.arguments = [Repository.url("Tests/hil/jpeg-feeder").path, CameraHIL.loopback, "640", "480", "15"] + files
        let fed = CameraHIL.now()
        try feeder.run()
        // SIGKILL: the feeder inherits the test runner's blocked SIGTERM and would ignore terminate().
        defer { kill(feeder.processIdentifier, SIGKILL); feeder.waitForExit() }

        let body = try CameraBody(camera: CameraHIL.loopback, size: "640x480", fps: 15)
        // With exclusive_caps the node offers capture only once the feeder writes: retry the opening.
        var running = false
        for _ in 0..<20 where !running {
            try body.push(open: false)
            try body.push(open: true, why: "Dad's tap on the studio body", until: Date().timeIntervalSince1970 + 120)
            running = (try body.status()["eyes"] as? [String: Any])?["preview"] as? String == "running"
            if !running { usleep(300_000) }
        }
        try #require(running, "the preview did not start on \(CameraHIL.loopback): \(body.log)")

        let client = try CameraHTTPClient(port: body.port, path: "/preview", token: body.token)
        #expect(try client.head().status == 200)
        // Ten seconds of parts, judged only when the VM did not stand still for more than a
        // second of them (StallMeter): a gap's slack over a bad run's 2 s is 1.5 s. Every
        // part of every try must be a whole frame fed.
        var ended = false
        var every: [[UInt8]] = []
        let measured = try StallMeter.unspoiled("bad frames", allowed: 1.0) { () throws -> [(at: Double, jpeg: [UInt8])] in
            var parts: [(at: Double, jpeg: [UInt8])] = []
            let start = CameraHIL.now()
            while CameraHIL.now() - start < 10 && !ended {
                switch try client.nextPart(within: 5) {
                case .jpeg(let j): parts.append((CameraHIL.now() - start, j))
                case .end: ended = true
                case .notYet: break
                }
            }
            every += parts.map(\.jpeg)
            return parts
        }
        let parts = try #require(measured, "every try's 10 s was spoiled by the VM's stalls (see above)")
        let strangers = every.filter { !good.contains($0) }.map(\.count)
        let gaps = zip(parts.dropFirst(), parts).map { $0.at - $1.at }
        print("bad frames: \(parts.count) parts in 10 s, the longest gap \(gaps.max() ?? 0) s; the feeder \(feeder.ending.map { "ended: \($0)" } ?? "runs")")
        if parts.count < 12 {
            for _ in 0..<3 {
                let jpg = try body.get("/preview.jpg")
                print("bad frames: /preview.jpg \(jpg.status) \(jpg.body.count) bytes; \((try body.status()["eyes"] as? [String: Any])?["preview_why"] ?? "?")")
                usleep(500_000)
            }
            print("bad frames: the body's log:\n\(body.log.suffix(3000))")
        }
        #expect(!ended, "the stream ended")
        #expect(strangers.isEmpty, "\(strangers.count) parts were not whole JPEGs fed (sizes \(strangers.prefix(5)))")
        // About 4 rounds: 8 whole frames a round, each a part (a client may drop some).
        #expect(parts.count >= 12, "\(parts.count) parts in 10 s")
        // A run of bad frames is 2 s at 15 fps: whole frames come again after each.
        #expect((gaps.max() ?? 99) < 3.5, "a gap of \(gaps.max() ?? 0) s between whole frames")
        #expect((parts.last?.at ?? 0) > 7, "no whole frame in the last 3 s")
        #expect(body.process.ending == nil)
        let eyes = try body.status()["eyes"] as? [String: Any]
        #expect(eyes?["preview"] as? String == "running", "\(eyes ?? [:])")
        #expect(try body.get("/preview.jpg").status == 200)

        // In words, once a run (not once a frame: 30 bad frames a round).
        // The feeder's round is 2.53 s with one run of 30 bad frames: one line a run, not
        // one a frame, over the rounds the feeder wrote (it keeps to its schedule and never
        // runs ahead of it, so its start bounds them, whatever stalled). A frame the loopback's
        // writer overwrote while a stalled body read it (docs/eyes.md) is a run of its own, counted apart.
        let lines = body.log.split(separator: "\n").filter { $0.contains("eyes: camera ") }
        let ran = CameraHIL.now() - fed
        for l in lines { print("bad frames: log: \(l)") }
        let beginning = lines.filter { $0.contains("the preview goes on with the last whole frame") }
        let began = beginning.count
        let overwritten = beginning.filter { $0.contains("overwrote") }.count
        let rounds = Int((ran / 2.53).rounded(.up))
        let over = lines.filter { $0.contains("delivers whole frames again, after") }.count
        #expect(began >= 3 && began - overwritten <= rounds + 1,
                "\(began) runs of bad frames said (\(overwritten) of an overwritten frame) in the feeder's \(Int(ran)) s, \(rounds) rounds")
        #expect(over >= began - 1 && over <= began, "\(over) ends of \(began) runs said")
        #expect(lines.contains { $0.contains("not a whole JPEG") })
        try? FileManager.default.removeItem(atPath: (files[0] as NSString).deletingLastPathComponent)
    }
}
