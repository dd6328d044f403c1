import Glibc

/// A camera failure in words: the part, the action, the device and the cause.
public struct CameraError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The device went away while open (ENODEV, ENXIO, EIO): unplugged, or its driver unloaded.
        case unplugged
        /// The device node does not exist.
        case absent
        /// Another process holds the device.
        case busy
        /// The device cannot give what the body needs (no capture, no MJPEG or YUYV).
        case unsupported
        /// Anything else.
        case failed
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// "camera: cannot <action> <device>: <strerror>", with the kind read from errno.
    static func call(_ action: String, _ path: String, errno code: Int32, streaming: Bool = false) -> CameraError {
        let words = "camera: cannot \(action) \(path): \(String(cString: strerror(code)))"
        return CameraError(kind(errno: code, streaming: streaming), words)
    }

    static func kind(errno code: Int32, streaming: Bool) -> Kind {
        switch code {
        case ENODEV, ENXIO, EIO: return streaming ? .unplugged : (code == EIO ? .failed : .absent)
        case ENOENT: return .absent
        case EBUSY: return .busy
        default: return .failed
        }
    }
}
