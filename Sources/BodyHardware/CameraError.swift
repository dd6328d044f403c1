import BodySystem

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
        let errno = Errno(code)
        return CameraError(kind(errno, streaming: streaming), "camera: cannot \(action) \(path): \(errno.words)")
    }

    /// The kind a camera error takes from an errno (BodySystem's one table):
    /// a device gone mid-stream is unplugged; before streaming it is absent.
    static func kind(_ errno: Errno, streaming: Bool) -> Kind {
        switch errno.kind {
        case .gone: streaming ? .unplugged : .absent
        case .inputOutput: streaming ? .unplugged : .failed
        case .absent: .absent
        case .busy: .busy
        default: .failed
        }
    }
}
