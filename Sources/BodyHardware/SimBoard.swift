public import BodyCore
public import BodySystem

/// The simulated board (`board.file = sim`): every role present, outputs
/// kept as levels a page or a test can read, and presses delivered on the
/// very same `readEdges` path as a real chip's edges.
///
/// Like a real line, each edge arrives when its time comes and a read says
/// the level at that moment: the edge descriptor is a timerfd armed for the
/// next edge due, so a press is confirmed by the contact's reading at its
/// window's end as a finger's is, not by edges handed over early.
public final class SimBoard: Board {
    public let outputs = OutputRole.allCases
    public let buttons = ButtonRole.allCases
    public let lostEdges = 0
    /// How long a simulated press stays down: a deliberate finger's, not a
    /// graze. A loop later than this past the window's end loses the press
    /// (Contact: only a reading confirms), as on a real line.
    public static let pressLength = 0.2

    /// The lines' state, one value reached once a call: the fields of a class,
    /// reached one by one, are each checked for exclusive access.
    private var lines = Lines()
    private var timer: MonotonicTimer?
    /// The timer's descriptor as a list, kept: the agent asks for it at every reading.
    public private(set) var edgeDescriptors: [FileDescriptor] = []

    public init() throws(BoardError) {
        do throws(Errno) { timer = try MonotonicTimer() } catch {
            throw BoardError(.other, "sim board: cannot create its edge timer: \(error.words)")
        }
        edgeDescriptors = timer?.descriptor.map { [$0] } ?? []
    }

    deinit { release() }

    public var found: [(role: String, line: FoundLine)] {
        outputs.enumerated().map { (i, r) in (r.rawValue, FoundLine(chip: "sim", offset: UInt32(i), name: "SIM-\(r.rawValue)")) }
            + buttons.enumerated().map { (i, b) in
                ("button \(b.rawValue)", FoundLine(chip: "sim", offset: UInt32(outputs.count + i), name: "SIM-\(b.rawValue)"))
            }
    }

    public func drive(_ role: OutputRole, lit: Bool) throws(BoardError) {
        guard timer != nil else { throw BoardError(.chipGone, "sim board: cannot drive \(role.rawValue): the board was released") }
        lines.levels[role] = lit
    }

    /// What `role` is driven to now (true = lit).
    public func level(_ role: OutputRole) -> Bool { lines.levels[role] ?? false }

    /// A press: down at `at`, up `pressLength` later.
    public func press(_ button: ButtonRole, at: Double) {
        set(button, pressed: true, at: at)
        set(button, pressed: false, at: at + Self.pressLength)
    }

    /// Moves a button's line at `at` (monotonic seconds): held down until
    /// told otherwise, e.g. to show the held report.
    public func set(_ button: ButtonRole, pressed: Bool, at: Double) {
        guard let timer else { return }
        lines.schedule(ButtonEdge(button: button, pressed: pressed, at: at), on: timer)
    }

    /// The edges whose time has come, in order; the timer is armed for the next.
    public func readEdges(from fd: FileDescriptor) throws(BoardError) -> [ButtonEdge] {
        guard let timer, fd == timer.descriptor else { return [] }
        return try lines.take(dueBy: SystemClock.monotonic(), on: timer)
    }

    /// The line's level now: the last edge whose time has come, delivered or not.
    public func isPressed(_ button: ButtonRole) throws(BoardError) -> Bool {
        lines.isPressed(button, at: SystemClock.monotonic())
    }

    public func release() {
        timer?.close()
        timer = nil
        edgeDescriptors = []
        lines.release(outputs)
    }
}

/// The sim board's lines: the outputs' levels, and the edges delivered and to come.
private struct Lines {
    // Tables by the role's place, not sets or dictionaries: no hashing at every edge.
    var levels = RoleTable<OutputRole, Bool>()
    /// The levels the delivered edges left.
    var down = RoleTable<ButtonRole, Bool>()
    /// Edges not delivered yet, in time order.
    var due: [ButtonEdge] = []
    /// When the timer is armed for (nil: not armed), so an unchanged next edge costs no
    /// `timerfd_settime` (a two-press schedules four edges at once).
    var armedFor: Double?
    /// What `take` hands over, reused from read to read, so a read allocates nothing.
    var delivered: [ButtonEdge] = []

    mutating func schedule(_ edge: ButtonEdge, on timer: MonotonicTimer) {
        var i = due.endIndex
        while i > due.startIndex, due[i - 1].at > edge.at { i -= 1 }
        due.insert(edge, at: i)
        arm(timer)
    }

    mutating func take(dueBy now: Double, on timer: MonotonicTimer) throws(BoardError) -> [ButtonEdge] {
        // No edge due: the timer has not fired (it is armed for the first edge, and
        // re-armed whenever that changes), so there is nothing to read. A reading at
        // a window's end asks here first: no read and no re-arm then.
        guard let first = due.first, first.at <= now else { return [] }
        do throws(Errno) { _ = try timer.drain() } catch {
            throw BoardError(.other, "sim board: cannot read its edge timer: \(error.words)")
        }
        armedFor = nil  // it fired, or will not now: a drained timer is armed afresh below
        delivered.removeAll(keepingCapacity: true)
        var taken = 0
        for e in due {
            guard e.at <= now else { break }
            down[e.button] = e.pressed
            delivered.append(e)
            taken += 1
        }
        due.removeFirst(taken)
        arm(timer)
        return delivered
    }

    /// Mutating only to be reached in place: a read of the board's `lines`
    /// for a call would copy them, a retain and release of each list.
    mutating func isPressed(_ button: ButtonRole, at now: Double) -> Bool {
        var i = due.endIndex
        while i > due.startIndex {
            i -= 1
            let e = due[i]
            if e.button == button && e.at <= now { return e.pressed }
        }
        return down[button] ?? false
    }

    mutating func release(_ outputs: [OutputRole]) {
        for role in outputs { levels[role] = false }
        armedFor = nil
        due.removeAll()
    }

    private mutating func arm(_ timer: MonotonicTimer) {
        let next = due.first?.at
        guard next != armedFor else { return }
        // A timerfd on a live board cannot fail to be set; if it did, the
        // edges would wait for the next read, which the reading of a window does.
        do throws(Errno) {
            try timer.arm(at: next)
            armedFor = next
        } catch {
            armedFor = nil
        }
    }
}
