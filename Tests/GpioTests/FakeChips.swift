@testable import BodyHardware
import BodyCore
import BodySystem
import Glibc

/// GPIO chips in memory behind the board's seam (`GpioCalls`): lines by name,
/// the level on each wire, lines another program holds, edges the kernel
/// queued (with sequence numbers, and gaps where it dropped some), chips
/// that are removed and come back, and any call a test makes fail. It records
/// what the board asked for. Not the driver: Tests/hil/gpio-tests is.
final class FakeChips: @unchecked Sendable {
    struct Chip {
        var path: String
        var name: String
        var label: String
        var lines: [String]
        var present = true
        /// Offsets another program holds, and its name.
        var heldElsewhere: [UInt32: String] = [:]
        /// The level on each wire (1 = high), whoever drives it.
        var wire: [UInt32: Bool] = [:]
    }

    struct Request {
        var chip: String
        var offset: UInt32
        var line: String
        var output: Bool
        var activeLow: Bool
        var bias: Bias?
        /// Its chip was removed under it: every call says ENODEV, as the kernel's do.
        var gone = false
        var queued: [RawEdge] = []
        var seqno: UInt = 0
    }

    struct State {
        var chips: [Chip] = []
        var requests: [UInt: Request] = [:]
        var openChips: [UInt: String] = [:]
        var nextHandle: UInt = 1
        var watchOpen = false
        var removedSinceDrain = false
        var seqnos = true
        var failing: [String: Int32] = [:]
        var log: [String] = []
    }

    static let watchDescriptor = FileDescriptor(rawValue: 900)
    private let state = Confined(State())

    /// A Raspberry Pi's header chip: GPIO0 to GPIO27 at their own offsets.
    init(seqnos: Bool = true) {
        addChip("gpiochip0", label: "pinctrl-bcm2711", lines: (0..<28).map { "GPIO\($0)" })
        state.withLock { $0.seqnos = seqnos }
    }

    func addChip(_ name: String, label: String, lines: [String]) {
        state.withLock { $0.chips.append(Chip(path: "/dev/\(name)", name: name, label: label, lines: lines)) }
    }

    // MARK: what a test does to the world

    /// The next call named `call` ("open /dev/gpiochip0", "request GPIO17", "set GPIO17",
    /// "get GPIO22", "read GPIO22", "watch", "watch read") fails with `errno`, until `heal`.
    func fail(_ call: String, errno: Int32) { state.withLock { $0.failing[call] = errno } }
    func heal(_ call: String) { state.withLock { _ = $0.failing.removeValue(forKey: call) } }

    /// Another program (gpioset, say) requests `line`.
    func hold(_ line: String, by program: String) {
        state.withLock { s in
            let (c, offset) = Self.locate(line, in: s)
            s.chips[c].heldElsewhere[offset] = program
        }
    }

    func letGo(_ line: String) {
        state.withLock { s in
            let (c, offset) = Self.locate(line, in: s)
            s.chips[c].heldElsewhere[offset] = nil
        }
    }

    /// The chip is removed (unplugged, its overlay unloaded): its node goes,
    /// the watch hears it, and every request on it is dead for good.
    func remove(_ chip: String) {
        state.withLock { s in
            guard let c = s.chips.firstIndex(where: { $0.name == chip }) else { return }
            s.chips[c].present = false
            for (h, r) in s.requests where r.chip == chip { s.requests[h]?.gone = true }
            s.removedSinceDrain = true
        }
    }

    /// The chip is back, its lines free and low.
    func restore(_ chip: String) {
        state.withLock { s in
            guard let c = s.chips.firstIndex(where: { $0.name == chip }) else { return }
            s.chips[c].present = true
            s.chips[c].wire = [:]
        }
    }

    /// The outside world moves a button's line; the kernel queues the edge
    /// for the request on it, stamped `at` seconds.
    func edge(_ line: String, active: Bool, at seconds: Double) {
        state.withLock { s in
            guard let h = s.requests.first(where: { $0.value.line == line && !$0.value.gone })?.key, var r = s.requests[h] else { return }
            let (c, offset) = Self.locate(line, in: s)
            s.chips[c].wire[offset] = active != r.activeLow
            r.seqno += 1
            r.queued.append(RawEdge(nanoseconds: UInt64((seconds * 1e9).rounded()), active: active, seqno: s.seqnos ? r.seqno : 0))
            s.requests[h] = r
        }
    }

    /// The kernel's queue overflowed: `count` edges on `line` never reach the reader.
    func drop(_ line: String, count: UInt) {
        state.withLock { s in
            guard let h = s.requests.first(where: { $0.value.line == line && !$0.value.gone })?.key else { return }
            s.requests[h]?.seqno += count
        }
    }

    // MARK: what a test reads back

    var log: [String] { state.withLock { $0.log } }
    /// Lines this process holds now.
    var held: [String] { state.withLock { $0.requests.values.map(\.line).sorted() } }
    var openChipCount: Int { state.withLock { $0.openChips.count } }
    var watchOpen: Bool { state.withLock { $0.watchOpen } }

    /// The wire's level: 1 high, 0 low.
    func wire(_ line: String) -> Int {
        state.withLock { s in
            let (c, offset) = Self.locate(line, in: s)
            return s.chips[c].wire[offset] == true ? 1 : 0
        }
    }

    /// The descriptor the board reads `line`'s edges from.
    func descriptor(_ line: String) -> FileDescriptor? {
        state.withLock { s in s.requests.first { $0.value.line == line && !$0.value.gone }.map { Self.descriptor($0.key) } }
    }

    // MARK: the seam

    var calls: GpioCalls {
        GpioCalls(
            chipNodes: { directory in
                self.state.withLock { s in
                    s.chips.enumerated().filter { $0.element.present && $0.element.path.hasPrefix(directory + "/") }
                        .map { DeviceNode(path: $0.element.path, device: UInt64(254 << 20 | $0.offset), isLink: false) }
                }
            },
            openChip: { path throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    try Self.check("open \(path)", &s)
                    guard s.chips.contains(where: { $0.path == path && $0.present }) else { throw Errno(ENOENT) }
                    let h = Self.take(&s)
                    s.openChips[h] = path
                    return GpioCalls.Handle(raw: h)
                }
            },
            chipInfo: { chip in
                self.state.withLock { s in
                    let c = s.chips.first { $0.path == s.openChips[chip.raw] }!
                    return GpioCalls.ChipInfo(name: c.name, label: c.label, lineCount: UInt32(c.lines.count))
                }
            },
            findLines: { chip, name throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    guard let c = s.chips.first(where: { $0.path == s.openChips[chip.raw] }) else { throw Errno.badFileDescriptor }
                    guard c.present else { throw Errno.noSuchDevice }
                    return c.lines.indices.filter { c.lines[$0] == name }.map { UInt32($0) }
                }
            },
            closeChip: { chip in self.state.withLock { _ = $0.openChips.removeValue(forKey: chip.raw) } },
            requestOutput: { path, offset, consumer, activeLow, lit throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    let h = try Self.request(path, offset, output: true, activeLow: activeLow, bias: nil, &s)
                    let c = s.chips.firstIndex { $0.path == path }!
                    s.chips[c].wire[offset] = lit != activeLow
                    s.log[s.log.count - 1] += lit ? " lit" : " dark"
                    return h
                }
            },
            requestEdges: { path, offset, consumer, activeLow, bias throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    try Self.request(path, offset, output: false, activeLow: activeLow, bias: bias, &s)
                }
            },
            edgeDescriptor: { request in Self.descriptor(request.raw) },
            set: { request, active throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    let r = try Self.live(request, "set", &s)
                    s.log.append("set \(r.line) \(active ? "lit" : "dark")")
                    let c = s.chips.firstIndex { $0.name == r.chip }!
                    s.chips[c].wire[r.offset] = active != r.activeLow
                }
            },
            get: { request throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    let r = try Self.live(request, "get", &s)
                    let c = s.chips.first { $0.name == r.chip }!
                    return (c.wire[r.offset] ?? false) != r.activeLow
                }
            },
            readEdges: { request, edges, max throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    let r = try Self.live(request, "read", &s)
                    let n = min(max, r.queued.count)
                    edges.append(contentsOf: r.queued.prefix(n))
                    s.requests[request.raw]?.queued.removeFirst(n)
                    return n
                }
            },
            release: { request in
                self.state.withLock { s in
                    if let r = s.requests.removeValue(forKey: request.raw) { s.log.append("release \(r.line)") }
                }
            },
            watchChips: { directory throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    try Self.check("watch", &s)
                    s.watchOpen = true
                    return Self.watchDescriptor
                }
            },
            chipsRemoved: { watch throws(Errno) in
                try self.state.withLock { s throws(Errno) in
                    try Self.check("watch read", &s)
                    defer { s.removedSinceDrain = false }
                    return s.removedSinceDrain
                }
            },
            closeWatch: { watch in self.state.withLock { $0.watchOpen = false } }
        )
    }

    private static func descriptor(_ handle: UInt) -> FileDescriptor { FileDescriptor(rawValue: 100 + Int32(handle)) }

    private static func take(_ s: inout State) -> UInt {
        defer { s.nextHandle += 1 }
        return s.nextHandle
    }

    private static func check(_ call: String, _ s: inout State) throws(Errno) {
        if let e = s.failing[call] { throw Errno(e) }
    }

    private static func locate(_ line: String, in s: State) -> (chip: Int, offset: UInt32) {
        for (c, chip) in s.chips.enumerated() {
            if let i = chip.lines.firstIndex(of: line) { return (c, UInt32(i)) }
        }
        fatalError("the fake has no line \(line)")
    }

    private static func request(_ path: String, _ offset: UInt32, output: Bool, activeLow: Bool, bias: Bias?,
                                _ s: inout State) throws(Errno) -> GpioCalls.Handle {
        guard let c = s.chips.firstIndex(where: { $0.path == path }) else { throw Errno(ENOENT) }
        let line = s.chips[c].lines[Int(offset)]
        s.log.append("request \(line) \(output ? "output" : "edges")")
        try check("request \(line)", &s)
        guard s.chips[c].present else { throw Errno(ENOENT) }
        if s.chips[c].heldElsewhere[offset] != nil || s.requests.values.contains(where: { $0.chip == s.chips[c].name && $0.offset == offset }) {
            throw Errno(EBUSY)
        }
        let h = take(&s)
        s.requests[h] = Request(chip: s.chips[c].name, offset: offset, line: line, output: output, activeLow: activeLow, bias: bias)
        return GpioCalls.Handle(raw: h)
    }

    /// The request, if it can still be used: a removed chip's says ENODEV.
    private static func live(_ request: GpioCalls.Handle, _ call: String, _ s: inout State) throws(Errno) -> Request {
        guard let r = s.requests[request.raw] else { throw Errno.badFileDescriptor }
        if r.gone { throw Errno.noSuchDevice }
        try check("\(call) \(r.line)", &s)
        return r
    }
}

/// State used from one test's thread only; the seam's closures are @Sendable
/// because the real calls are, not because a test shares them.
final class Confined<Value>: @unchecked Sendable {
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R { try body(&value) }
}
