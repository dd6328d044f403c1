@testable import BodyCore

extension Body {
    /// The line of `button` read at monotonic `t`, as the agent does when
    /// `.readLevel` asks: `down` is the real level.
    mutating func read(_ button: ButtonRole, down: Bool, at t: Double, id: String = "r1") -> [BodyAction] {
        appended { level(button, pressed: down, at: Moment(t), ids: { id }, into: &$0) }
    }
}
