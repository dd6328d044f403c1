import Glibc

/// The errno a failed system call left behind, typed: its number, its words
/// (`strerror`) and the kind of failure it is, decided here once for every
/// adapter. Modelled on apple/swift-system's `Errno`.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The C value, e.g. `ENODEV`.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's errno now. The C variable is `errno`.
    public static var current: Errno {
        get { Errno(rawValue: system_errno) }
        set { system_errno = newValue.rawValue }
    }

    /// "No such device": the C function is `strerror`.
    public var words: String { system_strerror(rawValue) }

    public var description: String { words }

    /// What a failure means to the body, whatever the device.
    public enum Kind: Sendable, Equatable {
        /// The device went away while open (ENODEV, ENXIO, ESHUTDOWN): unplugged,
        /// its chip removed, its driver unloaded.
        case gone
        /// An input/output error (EIO): a device gone mid-stream says this too.
        case inputOutput
        /// The file or device node does not exist (ENOENT).
        case absent
        /// Someone else holds it (EBUSY).
        case busy
        /// Not allowed (EACCES, EPERM).
        case permission
        /// Nothing to read or no room to write now, on a non-blocking descriptor (EAGAIN).
        case wouldBlock
        /// A signal interrupted the call (EINTR); `valueOrErrno` retries these.
        case interrupted
        /// Anything else.
        case other
    }

    /// The one errno-to-kind table.
    public var kind: Kind {
        switch rawValue {
        case ENODEV, ENXIO, ESHUTDOWN: .gone
        case EIO: .inputOutput
        case ENOENT: .absent
        case EBUSY: .busy
        case EACCES, EPERM: .permission
        case EAGAIN, EWOULDBLOCK: .wouldBlock
        case EINTR: .interrupted
        default: .other
        }
    }

    /// EINTR
    public static let interrupted = Errno(EINTR)
    /// EAGAIN (EWOULDBLOCK is the same value on Linux)
    public static let wouldBlock = Errno(EAGAIN)
    /// EBADF
    public static let badFileDescriptor = Errno(EBADF)
    /// ENOENT
    public static let noSuchFileOrDirectory = Errno(ENOENT)
    /// EEXIST
    public static let fileExists = Errno(EEXIST)
    /// EISDIR: `unlink` of a folder.
    public static let isADirectory = Errno(EISDIR)
    /// EINVAL
    public static let invalidArgument = Errno(EINVAL)
    /// EIO
    public static let ioError = Errno(EIO)
    /// ENODEV
    public static let noSuchDevice = Errno(ENODEV)
    /// ENOMEM
    public static let noMemory = Errno(ENOMEM)
    /// ENAMETOOLONG
    public static let nameTooLong = Errno(ENAMETOOLONG)
    /// ECONNREFUSED
    public static let connectionRefused = Errno(ECONNREFUSED)
}
