// The one file that calls CGpiod: the libgpiod calls the board makes, as a
// struct of functions (the seam where a test holds a line in another program,
// removes a chip or fails a read, as CameraCalls is for V4L2), and the small
// owners over them that release on every path.
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
struct RawEdge: Equatable, Sendable {
    var nanoseconds: UInt64
    var active: Bool
    /// 0 where the API has none (libgpiod 1.x).
    var seqno: UInt
}

/// The GPIO calls, each returning Swift values or throwing a typed `Errno`.
/// The live ones go through BodySystem's `valueOrErrno` (its one EINTR rule).
struct GpioCalls: Sendable {
    /// An open chip or a requested line as the calls know it: the C pointer's
    /// bits for the live calls (`sb_gpio_chip`, `sb_gpio_request`), a number for a fake.
    struct Handle: Hashable, Sendable {
        var raw: UInt
    }

    /// What a chip says of itself, for messages.
    struct ChipInfo: Equatable, Sendable {
        /// The kernel's name, e.g. "gpiochip0".
        var name: String
        var label: String
        var lineCount: UInt32
    }

    /// The chip nodes in a directory, each chip once (`GpioChipNodes`).
    var chipNodes: @Sendable (_ directory: String) -> [DeviceNode]
    /// The C function is `sb_gpio_chip_open`.
    var openChip: @Sendable (_ path: String) throws(Errno) -> Handle
    var chipInfo: @Sendable (_ chip: Handle) -> ChipInfo
    /// Offsets of every line called `name`. The C function is `sb_gpio_find_line`.
    var findLines: @Sendable (_ chip: Handle, _ name: String) throws(Errno) -> [UInt32]
    /// The C function is `sb_gpio_chip_close`.
    var closeChip: @Sendable (_ chip: Handle) -> Void
    /// One output driven to `lit` (logical). The C function is `sb_gpio_request_output`.
    var requestOutput: @Sendable (_ chipPath: String, _ offset: UInt32, _ consumer: String,
                                  _ activeLow: Bool, _ lit: Bool) throws(Errno) -> Handle
    /// One input with both edges, no kernel debounce. The C function is `sb_gpio_request_input_edges`.
    var requestEdges: @Sendable (_ chipPath: String, _ offset: UInt32, _ consumer: String,
                                 _ activeLow: Bool, _ bias: Bias) throws(Errno) -> Handle
    /// The non-blocking descriptor that is readable when edges wait. The C function is `sb_gpio_fd`.
    var edgeDescriptor: @Sendable (_ request: Handle) -> FileDescriptor
    /// The C function is `sb_gpio_set`.
    var set: @Sendable (_ request: Handle, _ active: Bool) throws(Errno) -> Void
    /// The C function is `sb_gpio_get`.
    var get: @Sendable (_ request: Handle) throws(Errno) -> Bool
    /// Appends the edges waiting now, at most `max`; how many came (0: none wait).
    /// The C function is `sb_gpio_read_edge_events`.
    var readEdges: @Sendable (_ request: Handle, _ into: inout [RawEdge], _ max: Int) throws(Errno) -> Int
    /// The C function is `sb_gpio_release`.
    var release: @Sendable (_ request: Handle) -> Void
    /// A descriptor readable when a chip node in `directory` is deleted. The C function is `sb_gpio_chip_watch`.
    var watchChips: @Sendable (_ directory: String) throws(Errno) -> FileDescriptor
    /// Drains the watch; true when a chip node went away. The C function is `sb_gpio_chip_watch_read`.
    var chipsRemoved: @Sendable (_ watch: FileDescriptor) throws(Errno) -> Bool
    var closeWatch: @Sendable (_ watch: FileDescriptor) -> Void

    /// libgpiod, through the CGpiod module (API 1.x or 2.x, whichever the build found).
    static let live = GpioCalls(
        chipNodes: { directory in GpioChipNodes.unique(GpioChipNodes.scan(directory)) },
        openChip: { path throws(Errno) in Handle(try pointerOrErrno { sb_gpio_chip_open(path) }.get()) },
        chipInfo: { chip in
            let p = chip.pointer
            return ChipInfo(name: String(cString: sb_gpio_chip_name(p)), label: String(cString: sb_gpio_chip_label(p)),
                            lineCount: UInt32(sb_gpio_chip_num_lines(p)))
        },
        findLines: { chip, name throws(Errno) in
            var buffer = [UInt32](repeating: 0, count: 4)
            let n = try valueOrErrno {
                buffer.withUnsafeMutableBufferPointer { sb_gpio_find_line(chip.pointer, name, $0.baseAddress, UInt32($0.count)) }
            }.get()
            // More matches than the buffer holds still count: two is already ambiguous.
            return Array(buffer.prefix(Int(n))) + Array(repeating: UInt32.max, count: max(0, Int(n) - buffer.count))
        },
        closeChip: { chip in sb_gpio_chip_close(chip.pointer) },
        requestOutput: { path, offset, consumer, activeLow, lit throws(Errno) in
            Handle(try pointerOrErrno { sb_gpio_request_output(path, offset, consumer, activeLow ? 1 : 0, lit ? 1 : 0) }.get())
        },
        requestEdges: { path, offset, consumer, activeLow, bias throws(Errno) in
            Handle(try pointerOrErrno { sb_gpio_request_input_edges(path, offset, consumer, activeLow ? 1 : 0, bias.cValue) }.get())
        },
        edgeDescriptor: { request in FileDescriptor(rawValue: sb_gpio_fd(request.pointer)) },
        set: { request, active throws(Errno) in try nothingOrErrno { sb_gpio_set(request.pointer, active ? 1 : 0) }.get() },
        get: { request throws(Errno) in try valueOrErrno { sb_gpio_get(request.pointer) }.get() != 0 },
        readEdges: { request, edges, max throws(Errno) in
            // On the stack: a button's read allocates nothing but the edges it returns. The
            // closure returns a Result, not a typed throw: Swift 6.2's withUnsafeTemporaryAllocation
            // takes no closure that throws(Errno) ("invalid conversion of thrown error type").
            try withUnsafeTemporaryAllocation(of: sb_gpio_edge.self, capacity: max) { buffer in
                valueOrErrno { sb_gpio_read_edge_events(request.pointer, buffer.baseAddress, UInt32(buffer.count)) }.map { n in
                    for e in buffer.prefix(Int(n)) {
                        edges.append(RawEdge(nanoseconds: e.timestamp_ns, active: e.active != 0, seqno: e.line_seqno))
                    }
                    return Int(n)
                }
            }.get()
        },
        release: { request in sb_gpio_release(request.pointer) },
        watchChips: { directory throws(Errno) in FileDescriptor(rawValue: try valueOrErrno { sb_gpio_chip_watch(directory) }.get()) },
        chipsRemoved: { watch throws(Errno) in try valueOrErrno { sb_gpio_chip_watch_read(watch.rawValue) }.get() > 0 },
        closeWatch: { watch in try? watch.close() }
    )
}

extension GpioCalls.Handle {
    fileprivate init(_ pointer: OpaquePointer) { raw = UInt(bitPattern: pointer) }
    fileprivate var pointer: OpaquePointer? { OpaquePointer(bitPattern: raw) }
}

enum GpioLibrary {
    /// 1 or 2: the libgpiod API this build compiled against.
    static var api: Int { Int(sb_gpio_api()) }
    static var version: String { String(cString: sb_gpio_library_version()) }
    static var hasSeqno: Bool { sb_gpio_has_seqno() != 0 }
}

/// An open chip, for finding lines by name; closed on `close()` or deinit, safe twice.
final class GpioChip {
    private let calls: GpioCalls
    private var handle: GpioCalls.Handle?
    let path: String
    let info: GpioCalls.ChipInfo

    init(path: String, calls: GpioCalls) throws(Errno) {
        self.path = path
        self.calls = calls
        let handle = try calls.openChip(path)
        self.handle = handle
        info = calls.chipInfo(handle)
    }

    deinit { close() }

    func close() {
        if let handle { calls.closeChip(handle) }
        handle = nil
    }

    var name: String { info.name }
    var label: String { info.label }
    var lineCount: UInt32 { info.lineCount }

    /// Offsets of every line called `name` on this chip.
    func offsets(named name: String) throws(Errno) -> [UInt32] {
        guard let handle else { throw Errno.badFileDescriptor }
        return try calls.findLines(handle, name)
    }
}

/// One requested line; released on `release()` or deinit, safe twice.
final class GpioRequest {
    private let calls: GpioCalls
    private var handle: GpioCalls.Handle?
    /// Where its edges are read from, kept from the request: a released line's is nil.
    private(set) var descriptor: FileDescriptor?

    private init(calls: GpioCalls, handle: GpioCalls.Handle) {
        self.calls = calls
        self.handle = handle
        descriptor = calls.edgeDescriptor(handle)
    }

    deinit { release() }

    static func output(chipPath: String, offset: UInt32, consumer: String, activeLow: Bool, lit: Bool,
                       calls: GpioCalls) throws(Errno) -> GpioRequest {
        GpioRequest(calls: calls, handle: try calls.requestOutput(chipPath, offset, consumer, activeLow, lit))
    }

    /// Both edges, no kernel debounce.
    static func input(chipPath: String, offset: UInt32, consumer: String, activeLow: Bool, bias: Bias,
                      calls: GpioCalls) throws(Errno) -> GpioRequest {
        GpioRequest(calls: calls, handle: try calls.requestEdges(chipPath, offset, consumer, activeLow, bias))
    }

    func set(_ active: Bool) throws(Errno) {
        guard let handle else { throw Errno.badFileDescriptor }
        try calls.set(handle, active)
    }

    func get() throws(Errno) -> Bool {
        guard let handle else { throw Errno.badFileDescriptor }
        return try calls.get(handle)
    }

    /// Edges waiting now, at most `limit`; never blocks.
    func readEdges(limit: Int = 64) throws(Errno) -> [RawEdge] {
        guard let handle else { throw Errno.badFileDescriptor }
        // libgpiod 1.x reads at most 16 at a time: a full chunk means more may wait.
        let chunk = 16
        var edges: [RawEdge] = []
        while edges.count < limit {
            if try calls.readEdges(handle, &edges, chunk) < chunk { break }
        }
        return edges
    }

    func release() {
        if let handle { calls.release(handle) }
        handle = nil
        descriptor = nil
    }
}

/// Hears GPIO chip nodes being deleted from `/dev` (inotify): the one sign an
/// epoll loop gets at once on kernels that do not wake a gone chip's line
/// descriptors. Closed on `close()` or deinit, safe twice.
final class GpioChipWatch {
    private let calls: GpioCalls
    private(set) var descriptor: FileDescriptor?

    init(directory: String, calls: GpioCalls) throws(Errno) {
        self.calls = calls
        descriptor = try calls.watchChips(directory)
    }

    deinit { close() }

    /// Drains the watch; true when a chip node went away.
    func chipRemoved() throws(Errno) -> Bool {
        guard let descriptor else { return false }
        return try calls.chipsRemoved(descriptor)
    }

    func close() {
        if let descriptor { calls.closeWatch(descriptor) }
        descriptor = nil
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
