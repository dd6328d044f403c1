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
    /// `GET /`: the body's page, or the sign-in form for a browser not signed in.
    case page
    /// `GET /events`: the page's facts as server-sent events.
    case events
    /// `POST /signin`: the form's token, once, for a session cookie.
    case signIn
    /// `POST /signout`: the session ends.
    case signOut
    /// `GET /sim`: now a mode of the page, kept as a redirect to it.
    case simPage
    case simState
    case simPress(button: String)

    public var isSim: Bool {
        switch self {
        case .simPage, .simState, .simPress: return true
        default: return false
        }
    }
}

/// Who may take a route.
public enum Access: Equatable, Sendable {
    /// Anyone: the page (which shows a stranger only the sign-in form), the
    /// sign-in and sign-out themselves, the sim's redirect.
    case open
    /// The bearer token only: Oriel's and the machines' routes.
    case token
    /// The bearer token or a signed-in browser's session: what the page reads and does.
    case tokenOrSession
}
