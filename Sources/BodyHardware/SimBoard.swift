public import BodyCore
public import BodySystem

/// The simulated board (`board.file = sim`): every role present, outputs
/// kept as levels a page or a test can read, and presses delivered on the
/// very same `readEdges` path as a real chip's edges.
///
/// Like a real line, each edge arrives when its time comes and a read says
/// the level at that moment: the edge descriptor is a timerfd armed for the
/// next edge due, so a press is confirmed by the contact's reading at its
/// window's end as a finger's is (issue 18), not by edges handed over early.
public final class SimBoard: Board {
    public let outputs = OutputRole.allCases
    public let buttons = ButtonRole.allCases
    public let lostEdges = 0
    /// How long a simulated press stays down.
    public static let pressLength = 0.1

    private var levels: [OutputRole: Bool] = [:]
    /// The levels the delivered edges left.
    private var down: Set<ButtonRole> = []
    /// Edges not delivered yet, in time order.
    private var due: [ButtonEdge] = []
    private var timer: MonotonicTimer?
    /// When the timer is armed for (nil: not armed), so an unchanged next edge costs no
    /// `timerfd_settime` (a two-press schedules four edges at once; issue 21).
    private var armedFor: Double?
    /// The timer's descriptor as a list, kept: the agent asks for it at every reading (issue 21).
    public private(set) var edgeDescriptors: [FileDescriptor] = []
    /// What `readEdges` hands over, reused from read to read (issue 21).
    private var delivered: [ButtonEdge] = []

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
        levels[role] = lit
    }

    /// What `role` is driven to now (true = lit).
    public func level(_ role: OutputRole) -> Bool { levels[role] ?? false }

    /// A press: down at `at`, up `pressLength` later.
    public func press(_ button: ButtonRole, at: Double) {
        set(button, pressed: true, at: at)
        set(button, pressed: false, at: at + Self.pressLength)
    }

    /// Moves a button's line at `at` (monotonic seconds): held down until
    /// told otherwise, e.g. to show the held report.
    public func set(_ button: ButtonRole, pressed: Bool, at: Double) {
        guard timer != nil else { return }
        let edge = ButtonEdge(button: button, pressed: pressed, at: at)
        due.insert(edge, at: due.firstIndex { $0.at > at } ?? due.endIndex)
        arm()
    }

    /// The edges whose time has come, in order; the timer is armed for the next.
    public func readEdges(from fd: FileDescriptor) throws(BoardError) -> [ButtonEdge] {
        guard let timer, fd == timer.descriptor else { return [] }
        delivered.removeAll(keepingCapacity: true)
        let now = SystemClock.monotonic()
        // No edge due: the timer has not fired (it is armed for the first edge, and
        // re-armed whenever that changes), so there is nothing to read. A reading at
        // a window's end asks here first: no read and no re-arm then (issue 21).
        guard let first = due.first, first.at <= now else { return delivered }
        do throws(Errno) { _ = try timer.drain() } catch {
            throw BoardError(.other, "sim board: cannot read its edge timer: \(error.words)")
        }
        armedFor = nil  // it fired, or will not now: a drained timer is armed afresh below
        while let e = due.first, e.at <= now {
            due.removeFirst()
            if e.pressed { down.insert(e.button) } else { down.remove(e.button) }
            delivered.append(e)
        }
        arm()
        return delivered
    }

    /// The line's level now: the last edge whose time has come, delivered or not.
    public func isPressed(_ button: ButtonRole) throws(BoardError) -> Bool {
        let now = SystemClock.monotonic()
        return due.last { $0.button == button && $0.at <= now }?.pressed ?? down.contains(button)
    }

    public func release() {
        for role in outputs { levels[role] = false }
        timer?.close()
        timer = nil
        armedFor = nil
        edgeDescriptors = []
        due.removeAll()
    }

    private func arm() {
        let next = due.first?.at
        guard next != armedFor else { return }
        // A timerfd on a live board cannot fail to be set; if it did, the
        // edges would wait for the next read, which the reading of a window does.
        do throws(Errno) {
            try timer?.arm(at: next)
            armedFor = next
        } catch {
            armedFor = nil
        }
    }
}
