// The one file that calls CGpiod: C results in, Swift values and a typed
// Errno out, through BodySystem's valueOrErrno (its one EINTR rule).
internal import CGpiod
import BodySystem
import BodyCore

extension BoardError.Kind {
    /// The kind a board error takes from a GPIO call's errno (BodySystem's one table).
    init(_ errno: Errno) {
        switch errno.kind {
        // What reads and writes on a request return once its chip is removed.
        case .gone: self = .chipGone
        case .busy: self = .busy
        case .permission: self = .permission
        default: self = .other
        }
    }
}

/// One edge as the kernel gave it.
struct RawEdge: Equatable {
    var nanoseconds: UInt64
    var active: Bool
    /// 0 where the API has none (libgpiod 1.x).
    var seqno: UInt
}

enum GpioLibrary {
    /// 1 or 2: the libgpiod API this build compiled against.
    static var api: Int { Int(sb_gpio_api()) }
    static var version: String { String(cString: sb_gpio_library_version()) }
    static var hasSeqno: Bool { sb_gpio_has_seqno() != 0 }
}

/// An open chip, for finding lines by name. The C type is `sb_gpio_chip`.
final class GpioChip {
    private var handle: OpaquePointer?
    let path: String

    init(path: String) throws(Errno) {
        self.path = path
        handle = try pointerOrErrno { sb_gpio_chip_open(path) }.get()
    }

    deinit { close() }

    func close() {
        sb_gpio_chip_close(handle)
        handle = nil
    }

    var name: String { handle.map { String(cString: sb_gpio_chip_name($0)) } ?? "" }
    var label: String { handle.map { String(cString: sb_gpio_chip_label($0)) } ?? "" }
    var lineCount: UInt32 { handle.map { UInt32(sb_gpio_chip_num_lines($0)) } ?? 0 }

    /// Offsets of every line called `name` on this chip.
    func offsets(named name: String) throws(Errno) -> [UInt32] {
        guard let handle else { throw Errno.badFileDescriptor }
        var buffer = [UInt32](repeating: 0, count: 4)
        let n = try valueOrErrno {
            buffer.withUnsafeMutableBufferPointer { sb_gpio_find_line(handle, name, $0.baseAddress, UInt32($0.count)) }
        }.get()
        // More matches than the buffer holds still count: two is already ambiguous.
        return Array(buffer.prefix(Int(n))) + Array(repeating: UInt32.max, count: max(0, Int(n) - buffer.count))
    }
}

/// One requested line; released on `release()` or deinit, safe twice.
/// The C type is `sb_gpio_request`.
final class GpioRequest {
    private var handle: OpaquePointer?
    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { release() }

    /// The C function is `sb_gpio_request_output`.
    static func output(chipPath: String, offset: UInt32, consumer: String, activeLow: Bool, lit: Bool) throws(Errno) -> GpioRequest {
        GpioRequest(handle: try pointerOrErrno {
            sb_gpio_request_output(chipPath, offset, consumer, activeLow ? 1 : 0, lit ? 1 : 0)
        }.get())
    }

    /// Both edges, no kernel debounce. The C function is `sb_gpio_request_input_edges`.
    static func input(chipPath: String, offset: UInt32, consumer: String, activeLow: Bool, bias: Bias) throws(Errno) -> GpioRequest {
        GpioRequest(handle: try pointerOrErrno {
            sb_gpio_request_input_edges(chipPath, offset, consumer, activeLow ? 1 : 0, bias.cValue)
        }.get())
    }

    var fd: Int32 { handle.map { sb_gpio_fd($0) } ?? -1 }

    func set(_ active: Bool) throws(Errno) {
        guard let handle else { throw Errno.badFileDescriptor }
        try nothingOrErrno { sb_gpio_set(handle, active ? 1 : 0) }.get()
    }

    func get() throws(Errno) -> Bool {
        guard let handle else { throw Errno.badFileDescriptor }
        return try valueOrErrno { sb_gpio_get(handle) }.get() != 0
    }

    /// Edges waiting now, at most `limit`; never blocks.
    func readEdges(limit: Int = 64) throws(Errno) -> [RawEdge] {
        guard let handle else { throw Errno.badFileDescriptor }
        var edges: [RawEdge] = []
        var buffer = [sb_gpio_edge](repeating: sb_gpio_edge(), count: 16)
        while edges.count < limit {
            let n = try valueOrErrno {
                buffer.withUnsafeMutableBufferPointer { sb_gpio_read_edge_events(handle, $0.baseAddress, UInt32($0.count)) }
            }.get()
            for e in buffer.prefix(Int(n)) {
                edges.append(RawEdge(nanoseconds: e.timestamp_ns, active: e.active != 0, seqno: e.line_seqno))
            }
            if n < Int32(buffer.count) { break }
        }
        return edges
    }

    func release() {
        sb_gpio_release(handle)
        handle = nil
    }
}

/// Hears GPIO chip nodes being deleted from `/dev` (inotify): the one sign an
/// epoll loop gets at once on kernels that do not wake a gone chip's line
/// descriptors. Closed on `close()` or deinit, safe twice.
final class GpioChipWatch {
    private(set) var fd: Int32

    init(directory: String) throws(Errno) {
        fd = try valueOrErrno { sb_gpio_chip_watch(directory) }.get()
    }

    deinit { close() }

    /// Drains the watch; true when a chip node went away.
    func chipRemoved() throws(Errno) -> Bool {
        guard fd >= 0 else { return false }
        return try valueOrErrno { sb_gpio_chip_watch_read(fd) }.get() > 0
    }

    func close() {
        if fd >= 0 { try? FileDescriptor(rawValue: fd).close() }
        fd = -1
    }
}

extension Bias {
    fileprivate var cValue: Int32 {
        switch self {
        case .asIs: Int32(SB_GPIO_BIAS_AS_IS.rawValue)
        case .pullUp: Int32(SB_GPIO_BIAS_PULL_UP.rawValue)
        case .pullDown: Int32(SB_GPIO_BIAS_PULL_DOWN.rawValue)
        case .disabled: Int32(SB_GPIO_BIAS_DISABLED.rawValue)
        }
    }
}
