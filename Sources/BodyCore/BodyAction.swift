/// What the body asks its caller to do. Every entry point of `Body` returns
/// the actions it brought about, in order; the agent carries them out and
/// decides nothing itself (the shape of async-http-client's
/// `HTTP1ConnectionStateMachine`: the state machine decides, the caller does the I/O).
public enum BodyAction: Equatable, Sendable {
    /// An item was queued: every waiting `/ears` poll it is news to answers now.
    case wakePolls
    /// Say hello to Oriel (DESIGN 5): at start, and after every silence.
    case sayHello(because: String)
    /// One line for the journal.
    case log(String, LogLevel)
    /// The eyes gate's verdict moved: the camera runs or stops, with the words
    /// said while it is stopped. A camera that does not start is reported back
    /// with `Body.cameraGone`.
    case preview(run: Bool, why: String)
    /// A button's bounce window ended, or its hold is due: read the line's
    /// real level now (not its last edge) and hand it to `Body.level`.
    case readLevel(ButtonRole)
    /// A confirmed press and what it did, at its edge's time: for the
    /// counters only (`Metrics`); the journal line is a `.log` beside it.
    case pressed(ButtonRole, PressOutcome, at: Double)
    /// A button's window ended with its line where it was: a blip, no press,
    /// at its first edge. For the counters only; the words are a `.log`.
    case noise(ButtonRole, at: Double)
    /// A request's wait ran out unanswered; `withdrawn` when its item was
    /// still in the outbox, so Oriel never took it (rule 6). For the counters only.
    case unanswered(id: String, withdrawn: Bool)
}

/// How loud a `.log` line is; the agent maps it to the journal's priority.
public enum LogLevel: Equatable, Sendable {
    case info, warning
}
