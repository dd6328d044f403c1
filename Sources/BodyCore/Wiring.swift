/// A line's pull resistor, as the board file's `bias` says.
public enum Bias: String, Sendable, CaseIterable {
    case asIs = "as-is"
    case pullUp = "pull-up"
    case pullDown = "pull-down"
    case disabled
}

/// How one role's line is wired: what a board file says, and what the real
/// board requests. Kept here so the file and the board share one shape.
public struct LineWiring: Sendable, Equatable {
    /// The line's name as `gpioinfo` prints it, e.g. "GPIO17".
    public var name: String
    /// True when active (lit, pressed) is the low level.
    public var activeLow: Bool
    public var bias: Bias
    /// Seconds; buttons only.
    public var debounce: Double

    public init(name: String, activeLow: Bool = false, bias: Bias = .asIs, debounce: Double = Contact.defaultDebounce) {
        self.name = name
        self.activeLow = activeLow
        self.bias = bias
        self.debounce = debounce
    }
}
