/// The output lines a body drives, by the names board files and `/status` use.
public enum OutputRole: String, CaseIterable, Sendable, Codable, Comparable {
    /// The red On Air lamp (an LED, or a relay/MOSFET driving a studio lamp).
    case lamp
    /// The amber LED: armed, asking, a problem.
    case armedLED = "armed-led"
    /// Optional red LED: lit while any eye in the house is open.
    case eyeLED = "eye-led"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Every role, sorted by name (the status document's order), made once:
    /// the loop goes through them at every turn without building an array.
    public static let inNameOrder: [OutputRole] = allCases.sorted()
}

/// The buttons a body reads, by the names board files, `/status` and `/sim/press` use.
public enum ButtonRole: String, CaseIterable, Sendable, Codable, Comparable {
    case onair, wrapup, kill, camera

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Every button, sorted by name (the order the body goes through them and
    /// the status document's), made once: no array a turn.
    public static let inNameOrder: [ButtonRole] = allCases.sorted()
}

/// One edge on a button's line, already translated through the line's
/// `active` setting: `pressed` is true when the button went down.
/// `at` is seconds on CLOCK_MONOTONIC, from the kernel's event timestamp.
public struct ButtonEdge: Equatable, Sendable {
    public var button: ButtonRole
    public var pressed: Bool
    public var at: Double

    public init(button: ButtonRole, pressed: Bool, at: Double) {
        self.button = button
        self.pressed = pressed
        self.at = at
    }
}
