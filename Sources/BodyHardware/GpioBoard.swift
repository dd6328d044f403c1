public import BodyCore
public import BodySystem

/// The real board: lines found by name on the GPIO character devices and
/// requested through libgpiod (1.x or 2.x, whichever the build found).
///
/// Outputs are requested dark. Buttons deliver edge events on their own
/// descriptors with the kernel's CLOCK_MONOTONIC timestamps, never
/// kernel-debounced (on either API); the caller's `Contact` filters bounce
/// from them on the leading edge and reads `isPressed` when a window ends. When the chip goes away, calls throw
/// `.chipGone`: release this board and open a new one when it is back.
public final class GpioBoard: Board {
    public let outputs: [OutputRole]
    public let buttons: [ButtonRole]
    public let found: [(role: String, line: FoundLine)]
    public private(set) var lostEdges = 0

    /// 1 or 2: the libgpiod API this build uses.
    public static var libgpiodAPI: Int { GpioLibrary.api }
    /// The libgpiod version string, e.g. "1.6.3".
    public static var libgpiodVersion: String { GpioLibrary.version }

    private struct Line {
        var request: GpioRequest
        var found: FoundLine
        var what: String
    }

    private var outputLines: [OutputRole: Line]
    private var buttonLines: [ButtonRole: Line]
    private var buttonByFD: [FileDescriptor: ButtonRole]
    private var lastSeqno: [ButtonRole: UInt] = [:]
    private let chipWatch: GpioChipWatch?
    private var released = false

    /// Finds every line by name and requests it. Buttons get no kernel
    /// debounce: on libgpiod 2.x it would stamp every edge once the line had
    /// been stable for the period, a press that late (docs/decisions.md).
    public convenience init(outputs: [OutputRole: LineWiring], buttons: [ButtonRole: LineWiring],
                            consumer: String = "studio-body", devDirectory: String = "/dev") throws(BoardError) {
        try self.init(outputs: outputs, buttons: buttons, consumer: consumer, devDirectory: devDirectory, calls: .live)
    }

    /// The same over other calls: a test's fake chip.
    init(outputs: [OutputRole: LineWiring], buttons: [ButtonRole: LineWiring],
         consumer: String = "studio-body", devDirectory: String = "/dev", calls: GpioCalls) throws(BoardError) {
        let outputRoles = OutputRole.allCases.filter { outputs[$0] != nil }
        let buttonRoles = ButtonRole.allCases.filter { buttons[$0] != nil }
        var uses: [String: String] = [:]
        for (role, wiring) in outputs.sorted(by: { $0.key < $1.key }) { try Self.claim(wiring.name, for: role.rawValue, in: &uses) }
        for (role, wiring) in buttons.sorted(by: { $0.key < $1.key }) { try Self.claim(wiring.name, for: "button \(role.rawValue)", in: &uses) }

        // Before the lines, so a chip that goes between finding and watching is still heard.
        // Without inotify (limits reached) the loss shows at the next drive instead.
        let chipWatch = try? GpioChipWatch(directory: devDirectory, calls: calls)
        let places = try GpioFinder(directory: devDirectory, calls: calls).find(Array(uses.keys).sorted())

        var outputLines: [OutputRole: Line] = [:]
        var buttonLines: [ButtonRole: Line] = [:]
        // Whatever was requested before a failure is released on the way out, last first.
        var taken: [GpioRequest] = []
        func releaseTaken() {
            for request in taken.reversed() { request.release() }
        }
        for role in outputRoles {
            guard let wiring = outputs[role], let place = places[wiring.name] else { continue }
            do throws(Errno) {
                let request = try GpioRequest.output(chipPath: place.path, offset: place.line.offset, consumer: consumer,
                                                     activeLow: wiring.activeLow, lit: false, calls: calls)
                outputLines[role] = Line(request: request, found: place.line, what: role.rawValue)
                taken.append(request)
            } catch {
                releaseTaken()
                throw Self.requestFailure(error, place.line, role.rawValue)
            }
        }
        for role in buttonRoles {
            guard let wiring = buttons[role], let place = places[wiring.name] else { continue }
            do throws(Errno) {
                let request = try GpioRequest.input(chipPath: place.path, offset: place.line.offset, consumer: consumer,
                                                    activeLow: wiring.activeLow, bias: wiring.bias, calls: calls)
                buttonLines[role] = Line(request: request, found: place.line, what: "button \(role.rawValue)")
                taken.append(request)
            } catch {
                releaseTaken()
                throw Self.requestFailure(error, place.line, "button \(role.rawValue)")
            }
        }

        self.outputs = outputRoles
        self.buttons = buttonRoles
        self.outputLines = outputLines
        self.buttonLines = buttonLines
        self.chipWatch = chipWatch
        self.buttonByFD = Dictionary(uniqueKeysWithValues: buttonLines.compactMap { role, line in line.request.descriptor.map { ($0, role) } })
        self.found = outputRoles.compactMap { r in outputLines[r].map { (r.rawValue, $0.found) } }
            + buttonRoles.compactMap { r in buttonLines[r].map { ("button \(r.rawValue)", $0.found) } }
    }

    deinit { release() }

    /// Each button's edge descriptor, then the chip watch's.
    public var edgeDescriptors: [FileDescriptor] {
        buttons.compactMap { buttonLines[$0]?.request.descriptor } + (chipWatchDescriptor.map { [$0] } ?? [])
    }

    /// The descriptor that turns readable when a GPIO chip node is deleted
    /// (nil without one); `readEdges` on it throws `.chipGone` if one of this
    /// board's lines went with it.
    public var chipWatchDescriptor: FileDescriptor? { chipWatch?.descriptor }

    public func drive(_ role: OutputRole, lit: Bool) throws(BoardError) {
        guard let line = outputLines[role] else {
            throw BoardError(.other, "gpio: cannot drive \(role.rawValue): the board has no line for it")
        }
        do throws(Errno) {
            try line.request.set(lit)
        } catch {
            throw Self.failure(error, "drive", line)
        }
    }

    public func readEdges(from fd: FileDescriptor) throws(BoardError) -> [ButtonEdge] {
        if let chipWatch, fd == chipWatch.descriptor {
            try checkChips(chipWatch)
            return []
        }
        guard let role = buttonByFD[fd], let line = buttonLines[role] else { return [] }
        let raw: [RawEdge]
        do throws(Errno) {
            raw = try line.request.readEdges()
        } catch {
            throw Self.failure(error, "read edges from", line)
        }
        var edges: [ButtonEdge] = []
        edges.reserveCapacity(raw.count)
        for e in raw {
            if e.seqno != 0 {
                // A request's first edge is number 1: a gap before it counts too.
                let last = lastSeqno[role] ?? 0
                if e.seqno > last + 1 { lostEdges += Int(e.seqno - last - 1) }
                lastSeqno[role] = e.seqno
            }
            edges.append(ButtonEdge(button: role, pressed: e.active, at: Double(e.nanoseconds) / 1e9))
        }
        return edges
    }

    public func isPressed(_ button: ButtonRole) throws(BoardError) -> Bool {
        guard let line = buttonLines[button] else {
            throw BoardError(.other, "gpio: cannot read button \(button.rawValue): the board has no line for it")
        }
        do throws(Errno) {
            return try line.request.get()
        } catch {
            throw Self.failure(error, "read", line)
        }
    }

    /// A chip node went away: asks every line, so a lost one says which.
    private func checkChips(_ watch: GpioChipWatch) throws(BoardError) {
        do throws(Errno) {
            guard try watch.chipRemoved() else { return }
        } catch {
            throw BoardError(.init(error), "gpio: cannot read the chip watch on the device directory: \(error.words)")
        }
        for line in outputs.compactMap({ outputLines[$0] }) + buttons.compactMap({ buttonLines[$0] }) {
            do throws(Errno) {
                _ = try line.request.get()
            } catch {
                throw Self.failure(error, "read", line)
            }
        }
    }

    /// Drives every output dark, then releases every line; safe twice.
    public func release() {
        if released { return }
        released = true
        for line in outputs.compactMap({ outputLines[$0] }) {
            try? line.request.set(false)
            line.request.release()
        }
        for line in buttons.compactMap({ buttonLines[$0] }) { line.request.release() }
        chipWatch?.close()
        buttonByFD = [:]
    }

    private static func claim(_ name: String, for role: String, in uses: inout [String: String]) throws(BoardError) {
        if let other = uses[name] {
            throw BoardError(.lineAmbiguous, "gpio: cannot use line \"\(name)\" for \(role): the board already uses it for \(other)")
        }
        uses[name] = role
    }

    private static func quote(_ line: FoundLine) -> String { "\"\(line.name)\" on \(line.chip)" }

    /// A request refused. A busy line says what to do about it: on a headless
    /// board the journal is the only screen.
    private static func requestFailure(_ error: Errno, _ line: FoundLine, _ what: String) -> BoardError {
        let kind = BoardError.Kind(error)
        let cause = kind == .busy
            ? "\(error.words); another program holds the line (gpioinfo shows which): stop that program, or wire \(what) to a free line"
            : error.words
        return BoardError(kind, "gpio: cannot request line \(quote(line)) for \(what): \(cause)")
    }

    private static func failure(_ error: Errno, _ action: String, _ line: Line) -> BoardError {
        let kind = BoardError.Kind(error)
        let cause = kind == .chipGone ? "\(error.words) (the chip went away)" : error.words
        return BoardError(kind, "gpio: cannot \(action) line \(quote(line.found)) (\(line.what)): \(cause)")
    }
}
