/// The armed two-press rule (DESIGN rule 3). A plain value with no timer:
/// every method takes the caller's clock, seconds on any monotonic scale.
///
/// The arming lasts `[armedAt, armedAt + 5)`; a second press in
/// `[armedAt, armedAt + 0.4)` is the same touch, in `[armedAt + 0.4, armedAt + 5)`
/// it fires. Tests/Vectors/twopress.json holds the same rule as data.
public struct TwoPress: Equatable, Sendable {
    public static let armedFor = House.armedFor
    public static let settle = House.settle

    public enum Press: String, Equatable, Sendable {
        /// The press armed the control (or was the same touch as the arming).
        case armed
        /// The second press: the control fires and the arming is cleared.
        case fired
    }

    /// When the current arming began, if any.
    public private(set) var armedAt: Double?

    public init() {}

    public mutating func press(at now: Double) -> Press {
        expire(at: now)
        guard let armedAt else {
            self.armedAt = now
            return .armed
        }
        if now - armedAt < Self.settle { return .armed }
        self.armedAt = nil
        return .fired
    }

    public func armed(at now: Double) -> Bool {
        guard let armedAt else { return false }
        return now - armedAt < Self.armedFor
    }

    /// Drops an arming that ran out; says whether it dropped one.
    @discardableResult
    public mutating func expire(at now: Double) -> Bool {
        guard armedAt != nil, !armed(at: now) else { return false }
        armedAt = nil
        return true
    }

    public mutating func disarm() { armedAt = nil }

    /// When the arming runs out, for the caller's timer.
    public var expiresAt: Double? { armedAt.map { $0 + Self.armedFor } }
}

/// One arming per body (DESIGN rule 4): pressing a neighbouring two-press
/// control moves the arming to it; two controls are never armed at once.
public struct TwoPressGroup<Control: Hashable & Sendable>: Equatable, Sendable {
    public private(set) var control: Control?
    private var rule = TwoPress()

    public init() {}

    public mutating func press(_ pressed: Control, at now: Double) -> TwoPress.Press {
        expire(at: now)
        if control != pressed { rule.disarm() }
        let result = rule.press(at: now)
        control = result == .armed ? pressed : nil
        return result
    }

    /// The control armed at `now`, if any.
    public func armed(at now: Double) -> Control? {
        rule.armed(at: now) ? control : nil
    }

    public func isArmed(_ c: Control, at now: Double) -> Bool { armed(at: now) == c }

    @discardableResult
    public mutating func expire(at now: Double) -> Bool {
        guard rule.expire(at: now) else { return false }
        control = nil
        return true
    }

    /// Disarms `c` if it holds the arming; any control when nil.
    public mutating func disarm(_ c: Control? = nil) {
        guard c == nil || c == control else { return }
        rule.disarm()
        control = nil
    }

    public var expiresAt: Double? { rule.expiresAt }
}
