import BodyHardware
import BodySystem

/// `studio-body camera-feed DEVICE`: MJPEG on standard input (one JPEG after
/// another, as `rpicam-vid --codec mjpeg -o -` writes it) into a v4l2loopback
/// node, at the size of the first frame. A Pi camera on Bookworm or Trixie has
/// no V4L2 node of its own that gives MJPEG or YUYV (libcamera's give raw
/// Bayer); studio-body-picamera.service runs this. Ends with 1 and words when
/// the stream or the node ends, so systemd starts the pair again.
enum CameraFeed {
    static func run(device: String) -> Int32 {
        var stream = MJPEGStream()
        var writer: LoopbackWriter?
        var frames = 0
        var saidTooLarge = false
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let input = FileDescriptor.standardInput
        while true {
            let read = buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try input.read(into: raw) } }
            guard case .success(let n) = read else {
                if case .failure(let e) = read { fail("camera-feed: cannot read the camera's stream on standard input: \(e.words)") }
                return 1
            }
            if n == 0 {
                fail("camera-feed: the camera's stream on standard input ended after \(frames) frames (did rpicam-vid stop?)")
            }
            for frame in stream.take(buffer[..<n]) {
                do {
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
                } catch {
                    fail(error.description)
                }
            }
        }
    }
}
