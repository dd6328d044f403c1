/// Every route the body serves (DESIGN section 4), and the sim board's.
public enum Route: Equatable, Sendable {
    case hello
    case face
    /// `wait` is in seconds, already defaulted (25) and clamped (at most 60); 0 answers at once.
    case ears(after: UInt64?, wait: Double)
    case status
    case where_
    case preview
    case previewJPEG
    /// Prometheus's scrape, in its text format.
    case metrics
    case simPage
    case simState
    case simPress(button: String)

    /// Sim routes also take `?token=`, because a browser opening /sim cannot send a header.
    public var isSim: Bool {
        switch self {
        case .simPage, .simState, .simPress: return true
        default: return false
        }
    }
}
