import Glibc

/// A listening Unix socket at a fresh path, standing where
/// studio-body-picamera.socket would: the test plays the Pi camera's feeder.
/// The descriptor is non-blocking, so an accept with nobody connecting gives
/// nothing rather than hang.
public final class FeederSocket {
    public let path = "/tmp/studio-body-wake-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    /// The listening descriptor; -1 once `close`d.
    public private(set) var descriptor: Int32

    public init() throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        descriptor = fd
        guard rc == 0, listen(fd, 4) == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            let why = String(cString: strerror(errno))
            close()
            throw FixtureError("feeder socket \(path): \(why)")
        }
    }

    /// Nobody listens any more (the path stays, refusing). Closed once, never
    /// again: by then the number may be another test's descriptor.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    deinit {
        close()
        unlink(path)
    }
}
