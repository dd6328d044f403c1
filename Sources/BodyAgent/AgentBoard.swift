import BodyCore
import BodyConfig
import BodyHardware
import BodySystem

/// The board side of the agent: lines by name, raw edges into the rules
/// (`Body.edge`: the contact filter is theirs), and a chip that goes away as a
/// state, not a crash.
extension Agent {
    static let boardRetryEvery: Double = 1

    func makeBoard() throws(BoardError) -> any Board {
        if let boardMaker { return try boardMaker() }
        if isSim { return try SimBoard() }
        return try GpioBoard(outputs: setup.board.outputs, buttons: setup.board.buttons)
    }

    /// Opens the board (`lines`), and tells the rules each button's level now.
    func openBoard() throws(BoardError) {
        let board = try lines.open(makeBoard) { [unowned self] fd in
            self.turn("button edges") { [unowned self] now in self.edgesReadable(fd, at: now) }
        }
        let now = (turnNow ?? clock.now()).mono
        for role in board.buttons {
            let down = (try? board.isPressed(role)) ?? false
            let debounce = setup.board.buttons[role]?.debounce ?? Contact.defaultDebounce
            changeBody { $0.wire(role, debounce: debounce, down: down, at: now) }
        }
    }

    /// Every edge waiting on `fd` into the rules (each carries the kernel's own timestamp).
    func edgesReadable(_ fd: FileDescriptor, at now: Moment) -> [BodyAction] {
        guard let board = lines.board else { return [] }
        do {
            var actions: [BodyAction] = []
            try feedEdges(from: fd, of: board, at: now, into: &actions)
            return actions
        } catch {
            boardLost(error)
            return []
        }
    }

    /// Every edge waiting on `fd` into the rules, in order; their actions.
    func feedEdges(from fd: FileDescriptor, of board: any Board, at now: Moment,
                   into actions: inout [BodyAction]) throws(BoardError) {
        for edge in try board.readEdges(from: fd) {
            changeBody { $0.edge(edge, at: now, ids: { Ids.fresh() }, into: &actions) }
        }
        if let lost = lines.newlyLost() {
            metrics.lost(edges: lost)
            say("gpio: the kernel dropped \(lost) button edges (gaps in its sequence numbers); presses may have been missed", .warning)
        }
    }

    /// `.readLevel`: a button's bounce window ended or its hold is due. The
    /// edges still waiting in the kernel go in first (they are older than
    /// the reading), then the line's real level, read now, settles the
    /// contact. The reading's own moment is read after the line: a reading
    /// is never stamped before an edge it has seen.
    /// Its actions are appended to `actions`; none when the board fails.
    func readLevel(_ role: ButtonRole, into actions: inout [BodyAction]) {
        guard let board = lines.board else { return }
        let start = actions.count
        do {
            let before = clock.now()
            for fd in board.edgeDescriptors { try feedEdges(from: fd, of: board, at: before, into: &actions) }
            let pressed = try board.isPressed(role)
            let read = clock.now()
            changeBody { $0.level(role, pressed: pressed, at: read, ids: { Ids.fresh() }, into: &actions) }
        } catch {
            actions.removeSubrange(start...)
            boardLost(error)
        }
    }

    /// The chip went away (or a line call failed): say so once, let go of
    /// everything, and try again every second.
    func boardLost(_ error: BoardError) {
        guard lines.board != nil else { return }
        _ = faults.say(error.words, about: "board")
        say("\(error.words); the lamp's state is unknown until the lines are back", .error)
        lines.letGo(because: error.words)
        retryBoard()
    }

    func retryBoard() {
        lines.retry(at: (turnNow ?? clock.now()).mono + Self.boardRetryEvery) { [unowned self] in
            guard !self.stopping, self.lines.board == nil else { return }
            self.turn("the board's retry came") { [unowned self] _ in
                do throws(BoardError) {
                    try self.openBoard()
                    self.faults.clear("board")
                    self.say("gpio: the lines are back (\(self.setup.board.file)); showing the state again")
                } catch {
                    if let words = self.faults.say(error.words, about: "board") { self.say(words, .warning) }
                    self.retryBoard()
                }
                return []
            }
        }
    }
}
