import BodyCore
import BodyHardware
import BodySystem

/// The board as the agent holds it, on the loop thread: the lines while they
/// are had, what each output was last driven to, the edges the kernel dropped
/// that were already said, why the lines are not had, and the retry that
/// asks for them again. Opening, driving and letting go are here; what the
/// rules make of the edges, and what is said, are the agent's.
final class BoardLines {
    private let loop: EventLoop
    /// The lines, while they are had.
    private(set) var board: (any Board)?
    /// Why the lines are not had, in words (nil while they are, or before the first try).
    private(set) var problem: String?
    /// Each output's level as last driven: a line is written only when it changes.
    /// A table, not a dictionary: read for every line at every turn.
    private(set) var driven = RoleTable<OutputRole, Bool>()
    private var lostSaid = 0
    private var watches: [EventLoop.WatchID] = []
    private var retry: EventLoop.TimerID?

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Opens the board `maker` makes (the configured one, or a test's) and
    /// watches each of its edge descriptors, `edges` hearing the one that is
    /// readable. What cannot be had is let go whole and thrown in words (and
    /// kept as `problem`).
    func open(_ maker: () throws(BoardError) -> any Board,
              edges: @escaping (FileDescriptor) -> Void) throws(BoardError) -> any Board {
        let board: any Board
        do { board = try maker() } catch {
            problem = error.words
            throw error
        }
        self.board = board
        problem = nil
        driven = [:]
        lostSaid = 0
        for fd in board.edgeDescriptors {
            do {
                watches.append(try loop.watch(fd: fd) { edges(fd) })
            } catch {
                let failed = BoardError(.other, "gpio: cannot watch the edge events: \(error)")
                letGo(because: failed.words)
                throw failed
            }
        }
        return board
    }

    /// Each output whose level at `mono` in `shown` is not the one last driven,
    /// driven; `drove` hears each. A line that fails throws, and the caller
    /// lets the board go.
    func drive(_ shown: Indicators, at mono: Double, drove: (OutputRole, Bool) -> Void) throws(BoardError) {
        guard let board else { return }
        for role in board.outputs {
            let lit = shown.level(role, at: mono)
            guard driven[role] != lit else { continue }
            try board.drive(role, lit: lit)
            driven[role] = lit
            drove(role, lit)
        }
    }

    /// How many edges the kernel dropped since this was last asked (nil: none).
    func newlyLost() -> Int? {
        guard let board, board.lostEdges != lostSaid else { return nil }
        defer { lostSaid = board.lostEdges }
        return board.lostEdges - lostSaid
    }

    /// Lets go of the lines: `problem` says why, and nothing is driven until they are had again.
    func letGo(because problem: String) {
        self.problem = problem
        for w in watches { loop.unwatch(w) }
        watches.removeAll()
        board?.release()
        board = nil
        driven = [:]
    }

    /// The stop: every output darkened (`darkened` hears each, with the
    /// failure when one could not be), then the lines let go.
    func darken(_ darkened: (OutputRole, BoardError?) -> Void) {
        loop.cancel(retry)
        retry = nil
        guard let board else { return }
        for role in board.outputs {
            do throws(BoardError) {
                try board.drive(role, lit: false)
                darkened(role, nil)
            } catch {
                darkened(role, error)
            }
        }
        letGo(because: "the body stopped")
    }

    /// `again` runs at `due`, once, in place of any retry already waiting.
    func retry(at due: Double, _ again: @escaping () -> Void) {
        loop.cancel(retry)
        retry = loop.schedule(at: due) { [unowned self] in
            self.retry = nil
            again()
        }
    }
}
