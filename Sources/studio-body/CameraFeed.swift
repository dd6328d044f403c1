import BodyCore
import BodyHardware
import BodySystem

/// `studio-body camera-feed [--wake-fd N] --source COMMAND DEVICE`: runs
/// COMMAND (`rpicam-vid --codec mjpeg -o -`), cuts the MJPEG it writes into
/// frames and writes each into a v4l2loopback node, at the size of the first
/// frame. A Pi camera on Bookworm or Trixie has no V4L2 node of its own that
/// gives MJPEG or YUYV (libcamera's give raw Bayer).
///
/// With `--wake-fd`, the listening socket systemd hands over
/// (studio-body-picamera.socket): it takes the body's connection, starts the
/// camera only then, says `ready` once the first frame is in the node, and
/// stops the camera and ends as soon as the body closes the connection (the
/// eyes closed, or the body died). So the sensor runs only during a tap.
enum CameraFeed {
    /// How long a feeder started with no connection waiting (at boot, or by
    /// hand) waits for one before it ends.
    static let connectionWait = 5.0

    static func run(device: String, source: String, wake: FileDescriptor?) -> Int32 {
        var body: FileDescriptor?
        if let wake {
            do throws(Errno) {
                try wake.makeNonBlocking()
                body = try acceptBody(wake)
            } catch {
                fail("camera-feed: cannot take the body's connection on \(wake): \(error.words)")
            }
            guard body != nil else {
                say("camera-feed: nobody asked for the camera within \(Int(connectionWait)) s, so it stays off (the body wakes this through studio-body-picamera.socket)")
                return 0
            }
        }
        var feed = Feed(device: device, body: body)
        let stream: FileDescriptor, camera: ChildProcess
        do throws(Errno) {
            let pipe = try FileDescriptor.pipe()
            defer { try? pipe.write.close() }
            do throws(Errno) {
                camera = try ChildProcess.spawnShell("exec \(source)", output: pipe.write)
            } catch {
                try? pipe.read.close()
                throw error
            }
            stream = pipe.read
        } catch {
            return feed.end("cannot start the camera's source (\(source)): \(error.words)")
        }
        say("camera-feed: started the camera: \(source)")
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let watched = [stream] + (body.map { [$0] } ?? [])
            let ready: [Bool]
            do throws(Errno) { ready = try FileDescriptor.waitReadable(watched, seconds: nil) } catch {
                return stopping(camera, feed.end("cannot wait for the camera or the body: \(error.words)"))
            }
            if let body, ready.count > 1, ready[1], bodyClosed(body) {
                let ending = camera.end()
                say("camera-feed: the body closed the camera after \(feed.frames) frames; the camera stopped (\(ending?.description ?? "it did not end after SIGKILL"))")
                return 0
            }
            guard ready[0] else { continue }
            let read = buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try stream.read(into: raw) } }
            switch valueOrNilIfWouldBlock(read) {
            case .failure(let error):
                return stopping(camera, feed.end("cannot read the camera's stream: \(error.words)"))
            case .success(nil):
                continue
            case .success(0):
                let ending = camera.end()
                return feed.end("the camera's stream ended after \(feed.frames) frames: \(source) \(ending?.description ?? "did not end")")
            case .success(let n?):
                if let failed = feed.take(buffer[..<n]) { return stopping(camera, failed) }
            }
        }
    }

    /// The camera ends with the feed: nothing may keep the sensor running.
    private static func stopping(_ camera: ChildProcess, _ code: Int32) -> Int32 {
        _ = camera.end()
        return code
    }

    /// The first connection on the listening socket, waited for a while.
    private static func acceptBody(_ listening: FileDescriptor) throws(Errno) -> FileDescriptor? {
        let until = SystemClock.monotonic() + connectionWait
        while SystemClock.monotonic() < until {
            if let connection = try LocalSocket.accept(from: listening) { return connection }
            _ = try listening.waitReadable(seconds: until - SystemClock.monotonic())
        }
        return try LocalSocket.accept(from: listening)
    }

    /// Reads what the body sent (it sends nothing but its end): true once it closed.
    private static func bodyClosed(_ body: FileDescriptor) -> Bool {
        var sink = [UInt8](repeating: 0, count: 256)
        let read = sink.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try body.read(into: raw) } }
        switch valueOrNilIfWouldBlock(read) {
        case .success(nil): return false
        case .success(let n?): return n == 0
        case .failure: return true
        }
    }

    /// The frames and the loopback node; tells the body `ready` after the first.
    struct Feed {
        let device: String
        let body: FileDescriptor?
        var stream = MJPEGStream()
        var writer: LoopbackWriter?
        var frames = 0
        var saidTooLarge = false

        init(device: String, body: FileDescriptor?) {
            self.device = device
            self.body = body
        }

        /// Writes every whole frame in `bytes`; the exit code when the feed must end.
        mutating func take(_ bytes: ArraySlice<UInt8>) -> Int32? {
            for frame in stream.take(bytes) {
                do throws(CameraError) {
                    if writer == nil {
                        let size = try JPEG.decode(frame)
                        writer = try LoopbackWriter.open(device, width: size.width, height: size.height)
                        say("camera-feed: MJPEG \(size.width)x\(size.height) into \(device)")
                    }
                    guard let writer else { continue }
                    if frame.count > writer.frameLimit {
                        if !saidTooLarge { say("camera-feed: a frame of \(frame.count) bytes is larger than \(device)'s buffer (\(writer.frameLimit)); such frames are dropped") }
                        saidTooLarge = true
                        continue
                    }
                    try writer.write(frame)
                    frames += 1
                    if frames == 1 { tell(.ready) }
                } catch {
                    return end(error.description)
                }
            }
            return nil
        }

        /// Says why the feed ends, to the journal and to the body: exit code 1.
        func end(_ why: String) -> Int32 {
            tell(.failed(why))
            let line = why.hasPrefix("camera-feed: ") ? why : "camera-feed: \(why)"
            try? FileDescriptor.standardError.writeAll(Array("studio-body: \(line)\n".utf8))
            return 1
        }

        /// A body that has gone hears nothing; the feed ends on its own then.
        private func tell(_ message: FeederMessage) {
            try? body?.writeAll(Array(message.line.utf8))
        }
    }
}
