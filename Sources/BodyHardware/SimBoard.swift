public import BodyCore
import BodySystem

/// The simulated board (`board.file = sim`): every role present, outputs
/// kept as levels a page or a test can read, and presses delivered through
/// a pipe so the agent reads them on the very same `readEdges` path as a
/// real chip's edges.
public final class SimBoard: Board {
    public let outputs = OutputRole.allCases
    public let buttons = ButtonRole.allCases
    public let lostEdges = 0
    /// How long a simulated press stays down.
    public static let pressLength = 0.1

    private var levels: [OutputRole: Bool] = [:]
    private var down: Set<ButtonRole> = []
    private var queued: [ButtonEdge] = []
    private var readFD: Int32 = -1
    private var writeFD: Int32 = -1

    public init() throws(BoardError) {
        do throws(Errno) {
            let ends = try FileDescriptor.pipe()
            readFD = ends.read.rawValue
            writeFD = ends.write.rawValue
        } catch {
            throw BoardError(.other, "sim board: cannot create the press pipe: \(error.words)")
        }
    }

    deinit { release() }

    public var found: [(role: String, line: FoundLine)] {
        outputs.enumerated().map { (i, r) in (r.rawValue, FoundLine(chip: "sim", offset: UInt32(i), name: "SIM-\(r.rawValue)")) }
            + buttons.enumerated().map { (i, b) in
                ("button \(b.rawValue)", FoundLine(chip: "sim", offset: UInt32(outputs.count + i), name: "SIM-\(b.rawValue)"))
            }
    }

    public var edgeDescriptors: [Int32] { readFD >= 0 ? [readFD] : [] }

    public func drive(_ role: OutputRole, lit: Bool) throws(BoardError) {
        guard readFD >= 0 else { throw BoardError(.chipGone, "sim board: cannot drive \(role.rawValue): the board was released") }
        levels[role] = lit
    }

    /// What `role` is driven to now (true = lit).
    public func level(_ role: OutputRole) -> Bool { levels[role] ?? false }

    /// A press: down at `at`, up `pressLength` later.
    public func press(_ button: ButtonRole, at: Double) {
        queue(ButtonEdge(button: button, pressed: true, at: at))
        queue(ButtonEdge(button: button, pressed: false, at: at + Self.pressLength))
    }

    /// Holds a button down (or lets it go) until told otherwise, e.g. to
    /// show the held report.
    public func set(_ button: ButtonRole, pressed: Bool, at: Double) {
        queue(ButtonEdge(button: button, pressed: pressed, at: at))
    }

    public func readEdges(from fd: Int32) throws(BoardError) -> [ButtonEdge] {
        guard fd == readFD, fd >= 0 else { return [] }
        // The queue, not the bytes, holds the edges.
        do throws(Errno) { try FileDescriptor(rawValue: fd).discardAvailable() } catch {
            throw BoardError(.other, "sim board: cannot read the press pipe: \(error.words)")
        }
        let edges = queued
        queued.removeAll()
        return edges
    }

    public func isPressed(_ button: ButtonRole) throws(BoardError) -> Bool { down.contains(button) }

    public func release() {
        for role in outputs { levels[role] = false }
        if readFD >= 0 { try? FileDescriptor(rawValue: readFD).close() }
        if writeFD >= 0 { try? FileDescriptor(rawValue: writeFD).close() }
        readFD = -1
        writeFD = -1
        queued.removeAll()
    }

    private func queue(_ edge: ButtonEdge) {
        guard writeFD >= 0 else { return }
        queued.append(edge)
        if edge.pressed { down.insert(edge.button) } else { down.remove(edge.button) }
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) already says "readable"; the edge is queued either way,
        // and nothing else can fail on a pipe whose read end this board holds open.
        _ = withUnsafeBytes(of: &byte) { try? FileDescriptor(rawValue: writeFD).write($0) }
    }
}
