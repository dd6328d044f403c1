import BodyAgent
import BodyConfig
import BodyCore
import BodyHardware
import BodySystem

/// `studio-body watch`: the board's lines held for a person wiring
/// it, with the service stopped. What an edge, a reading or a key means is
/// `WiringWatch`'s; this loop only waits on the lines, the keys, the clock and
/// the signals, and carries out its steps. Every way out darkens and releases.
enum Watch {
    static let consumer = "studio-body watch"

    static func run(_ setup: AgentSetup) -> Int32 {
        guard !setup.board.simulated else {
            fail("watch: \(setup.config.file) names no board file ([board] file): the simulated board has no lines to watch")
        }
        // A closed pipe on the output must not end the process with the lamp lit.
        SignalDescriptor.ignoreBrokenPipe()
        // Blocked before the lines are taken, so a Ctrl-C from then on waits for the loop.
        let signals: SignalDescriptor
        do {
            signals = try SignalDescriptor(SignalDescriptor.endingSignals)
        } catch {
            fail("watch: cannot hear signals: \(error.words)")
        }
        let board: GpioBoard
        do {
            board = try GpioBoard(outputs: setup.board.outputs, buttons: setup.board.buttons, consumer: consumer)
        } catch {
            switch error.kind {
            case .busy: fail("watch: \(WiringWatch.inUse(error.words))")
            case .permission: fail("watch: \(error.words) (run it as a member of the gpio group, or with sudo)")
            default: fail("watch: \(error.words)")
            }
        }
        let loop = WatchLoop(setup: setup, board: board, signals: signals)
        return loop.run()
    }
}

/// The loop itself: one epoll set over the signals, the keys, one timer and
/// each button's edge descriptor.
final class WatchLoop {
    /// Each registration's number in the epoll set; the lines' are `firstLine + i`.
    private enum Registration {
        static let signals: UInt64 = 0, keys: UInt64 = 1, timer: UInt64 = 2, firstLine: UInt64 = 16
    }

    private let setup: AgentSetup
    private let board: GpioBoard
    private let signals: SignalDescriptor
    private var watch: WiringWatch
    private let input = FileDescriptor(rawValue: 0)
    private var keys: TerminalKeys?
    /// Keys from a pipe or a file come a line at a time.
    private var pending: [UInt8] = []

    init(setup: AgentSetup, board: GpioBoard, signals: SignalDescriptor) {
        self.setup = setup
        self.board = board
        self.signals = signals
        let down = Set(board.buttons.filter { (try? board.isPressed($0)) ?? false })
        watch = WiringWatch(
            outputs: board.outputs.compactMap { r in setup.board.outputs[r].map { (r, $0.name) } },
            buttons: board.buttons.compactMap { r in
                setup.board.buttons[r].map { WiringWatch.Button(role: r, line: $0.name, debounce: $0.debounce) }
            },
            down: down, at: SystemClock.monotonic())
    }

    /// Until q, a signal or a line that fails; the exit code.
    func run() -> Int32 {
        let epoll: Epoll
        let timer: MonotonicTimer
        do throws(Errno) {
            epoll = try Epoll()
            timer = try MonotonicTimer()
            if let s = signals.descriptor { try epoll.add(s, registration: Registration.signals) }
            if let t = timer.descriptor { try epoll.add(t, registration: Registration.timer) }
            for (i, fd) in board.edgeDescriptors.enumerated() {
                try epoll.add(fd, registration: Registration.firstLine + UInt64(i))
            }
        } catch {
            return end("watch: cannot wait on the lines: \(error.words)", code: 1)
        }
        say("studio-body watch: \(setup.board.file), libgpiod \(GpioBoard.libgpiodVersion); the lines are held as \"\(Watch.consumer)\"")
        for line in watch.legend { say(line) }
        if TerminalKeys.isTerminal(input) {
            keys = try? TerminalKeys(input)
        } else {
            say("standard input is not a terminal: one key a line (1, lamp, q)")
        }
        do throws(Errno) {
            try epoll.add(input, registration: Registration.keys)
        } catch {
            // A regular file (or /dev/null) cannot be waited on: its keys are all there now.
            keysOpen = false
            if let code = readAllKeys() { return code }
            say("standard input ended: Ctrl-C or SIGTERM ends the watch")
        }
        while true {
            do {
                try timer.arm(at: watch.nextDeadline())
                for event in try epoll.wait() {
                    if let code = try turn(event.registration, epoll: epoll, timer: timer) { return code }
                }
            } catch let error as BoardError {
                return end("watch: \(error.words)", code: 1)
            } catch {
                return end("watch: the loop cannot go on: \(error)", code: 1)
            }
        }
    }

    private var keysOpen = true

    /// One ready registration; the exit code when it ended the watch.
    private func turn(_ registration: UInt64, epoll: Epoll, timer: MonotonicTimer) throws -> Int32? {
        switch registration {
        case Registration.signals:
            guard let signal = try signals.take() else { return nil }
            return end(WiringWatch.ended(by: SignalDescriptor.name(of: signal)), code: 0)
        case Registration.keys:
            guard keysOpen else { return nil }
            switch try readKeys() {
            case .quit: return end(WiringWatch.ended(by: "q"), code: 0)
            case .closed:
                keysOpen = false
                try? epoll.remove(input)
                say("standard input ended: Ctrl-C or SIGTERM ends the watch")
            case .more: break
            }
        case Registration.timer:
            _ = try timer.drain()
            _ = try carry(watch.tick(at: SystemClock.monotonic()))
        default:
            let i = Int(registration) - Int(Registration.firstLine)
            guard board.edgeDescriptors.indices.contains(i) else { return nil }
            try feed(board.edgeDescriptors[i])
        }
        return nil
    }

    /// Every output dark, every line let go, the terminal as it was; the last line.
    private func end(_ words: String, code: Int32) -> Int32 {
        for case .drive(let role, _) in watch.darken() { try? board.drive(role, lit: false) }
        board.release()
        keys?.restore()
        say(words)
        return code
    }

    private enum KeysRead { case more, closed, quit }

    private func readKeys() throws -> KeysRead {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
        if n == 0 {
            return try carryLines(final: true) ? .quit : .closed
        }
        let bytes = Array(buffer.prefix(n))
        if keys != nil { return try carry(watch.keys(bytes)) ? .quit : .more }
        pending += bytes
        return try carryLines(final: false) ? .quit : .more
    }

    /// Standard input that cannot be waited on: read to its end (at most 64 KiB), now.
    private func readAllKeys() -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while pending.count < 65_536 {
            guard let n = try? buffer.withUnsafeMutableBytes({ b throws(Errno) in try input.read(into: b) }), n > 0 else { break }
            pending += buffer.prefix(n)
        }
        do {
            if try carryLines(final: true) { return end(WiringWatch.ended(by: "q"), code: 0) }
        } catch let error as BoardError {
            return end("watch: \(error.words)", code: 1)
        } catch {
            return end("watch: the keys cannot be read: \(error)", code: 1)
        }
        return nil
    }

    /// Each whole line waiting (and the rest, at the end): true when one quit.
    private func carryLines(final: Bool) throws -> Bool {
        while let nl = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<nl], as: UTF8.self)
            pending.removeSubrange(...nl)
            if try carry(watch.line(line)) { return true }
        }
        if final, !pending.isEmpty {
            let line = String(decoding: pending, as: UTF8.self)
            pending.removeAll()
            return try carry(watch.line(line))
        }
        return false
    }

    /// The edges waiting on `fd`, in order, and the kernel's count of lost ones.
    private func feed(_ fd: FileDescriptor) throws(BoardError) {
        for edge in try board.readEdges(from: fd) { _ = try carry(watch.edge(edge)) }
        _ = try carry(watch.lost(total: board.lostEdges))
    }

    /// Carries out the steps in order; true when one was `.quit`.
    private func carry(_ steps: [WiringWatch.Step]) throws(BoardError) -> Bool {
        for step in steps {
            switch step {
            case .say(let words): say(words)
            case .drive(let role, let lit): try board.drive(role, lit: lit)
            case .readLevel(let role):
                // The edges still in the kernel are older than the reading: they go in first.
                for fd in board.edgeDescriptors { try feed(fd) }
                let pressed = try board.isPressed(role)
                if try carry(watch.level(role, pressed: pressed, at: SystemClock.monotonic())) { return true }
            case .quit: return true
            }
        }
        return false
    }
}
