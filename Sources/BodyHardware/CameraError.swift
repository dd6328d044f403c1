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
    static func call(_ action: String, _ path: String, _ errno: Errno, streaming: Bool = false) -> CameraError {
        CameraError(kind(errno, streaming: streaming), "camera: cannot \(action) \(path): \(errno.words)")
    }

    /// Makes one V4L2 call; its `Errno` is thrown as `call(action, path, ...)`.
    static func attempt<T>(_ action: @autoclosure () -> String, _ path: String, streaming: Bool = false,
                           _ body: () throws(Errno) -> T) throws(CameraError) -> T {
        do throws(Errno) {
            return try body()
        } catch {
            throw call(action(), path, error, streaming: streaming)
        }
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
