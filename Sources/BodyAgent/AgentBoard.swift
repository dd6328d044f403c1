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
        if isSim { return try SimBoard() }
        return try GpioBoard(outputs: setup.board.outputs, buttons: setup.board.buttons)
    }

    func openBoard() throws(BoardError) {
        let board = try makeBoard()
        self.board = board
        lostEdgesSaid = 0
        boardProblem = nil
        driven = [:]
        let now = EventLoop.monotonic()
        for role in board.buttons {
            let down = (try? board.isPressed(role)) ?? false
            body.wire(role, debounce: setup.board.buttons[role]?.debounce ?? Contact.defaultDebounce, down: down, at: now)
        }
        for fd in board.edgeDescriptors {
            do {
                edgeWatches.append(try loop.watch(fd: fd.rawValue) { [unowned self] in self.edgesReadable(fd) })
            } catch {
                throw BoardError(.other, "gpio: cannot watch the edge events: \(error)")
            }
        }
    }

    func edgesReadable(_ fd: FileDescriptor) {
        guard let board else { return }
        // One moment for the edges read and the settling after them (each edge
        // carries the kernel's own timestamp).
        let now = Agent.moment()
        do {
            try feedEdges(from: fd, of: board, at: now)
        } catch {
            boardLost(error)
        }
        settle(at: now)
    }

    /// Every edge waiting on `fd` into the rules, in order.
    func feedEdges(from fd: FileDescriptor, of board: any Board, at now: Moment? = nil) throws(BoardError) {
        for edge in try board.readEdges(from: fd) {
            perform(body.edge(edge, at: now ?? Agent.moment(), ids: { Ids.fresh() }))
        }
        if board.lostEdges != lostEdgesSaid {
            metrics.lost(edges: board.lostEdges - lostEdgesSaid)
            log("gpio: the kernel dropped \(board.lostEdges - lostEdgesSaid) button edges (gaps in its sequence numbers); presses may have been missed", .warning)
            lostEdgesSaid = board.lostEdges
        }
    }

    /// `.readLevel`: a button's bounce window ended or its hold is due. The
    /// edges still waiting in the kernel go in first (they are older than
    /// the reading), then the line's real level, read now, settles the contact.
    func readLevel(_ role: ButtonRole) {
        guard let board else { return }
        do {
            for fd in board.edgeDescriptors { try feedEdges(from: fd, of: board) }
            let pressed = try board.isPressed(role)
            perform(body.level(role, pressed: pressed, at: Agent.moment(), ids: { Ids.fresh() }))
        } catch {
            boardLost(error)
        }
    }

    /// The chip went away (or a line call failed): say so once, let go of
    /// everything, and try again every second.
    func boardLost(_ error: BoardError) {
        guard let board else { return }
        boardProblem = error.words
        log("\(error.words); the lamp's state is unknown until the lines are back", .error)
        for w in edgeWatches { loop.unwatch(w) }
        edgeWatches.removeAll()
        board.release()
        self.board = nil
        driven = [:]
        retryBoard()
    }

    func retryBoard() {
        loop.cancel(boardRetry)
        boardRetry = loop.schedule(at: EventLoop.monotonic() + Self.boardRetryEvery) { [unowned self] in
            self.boardRetry = nil
            guard !self.stopping, self.board == nil else { return }
            do throws(BoardError) {
                try self.openBoard()
                self.log("gpio: the lines are back (\(self.setup.board.file)); showing the state again")
                self.settle()
            } catch {
                if error.words != self.boardProblem {
                    self.boardProblem = error.words
                    self.log(error.words, .warning)
                }
                self.retryBoard()
            }
        }
    }
}
