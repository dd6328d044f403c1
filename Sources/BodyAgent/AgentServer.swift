import BodyHTTP
import BodySystem

/// The HTTP server as the agent turns it: libmicrohttpd's `HTTPServer` in the
/// body, a test's fake in `Tests/AgentTests`. Exactly what the agent uses:
/// the two descriptors its loop watches, a run and its timeout, the hooks,
/// the port and the stop. Requests reach the agent through `ServerWiring`'s
/// handler; answers, long polls and streams go back through `HTTPReply` and
/// `HTTPStream`, the same classes on both sides.
///
/// Internal on purpose, with `HTTPServer` its one conformer in the release
/// build: the optimizer then calls `HTTPServer` directly through
/// `any AgentServer` (a reference and a witness table, no box) and drops
/// the witness table's entries, so the seam costs a request nothing
/// (docs/event-loop.md). Made public or given a second conformer here, it
/// would cost an indirect call each.
protocol AgentServer: AnyObject {
    /// Readable when a run is due (a request, a resume from outside a turn).
    var pollDescriptor: FileDescriptor? { get }
    /// Readable when a client hung up; then `hangUpsReported()` says whether a run is due.
    var hangupDescriptor: FileDescriptor? { get }
    func hangUpsReported() -> Bool
    /// Asked at a resume outside a run: true when a run follows before the loop waits.
    var willRun: (() -> Bool)? { get set }
    /// Told the status of every answer queued, whole or streamed.
    var answered: ((Int) -> Void)? { get set }
    /// Something outside a run asked for one.
    var wantsRun: Bool { get }
    /// Accepts, reads, calls the handler, writes; never blocks.
    func run()
    /// Seconds until a run is due even without readability; nil: none.
    func timeout() -> Double?
    var port: UInt16 { get }
    func stop(grace: Double)
}

extension HTTPServer: AgentServer {}

/// What the agent hands the server it serves through: the handler and the
/// hooks back into the agent (made in `Agent.start`).
struct ServerWiring {
    /// HTTPS with the body's key and certificate; nil serves plain HTTP.
    let tls: HTTPTLS?
    /// The token each request's head is checked against (`HTTPRequest.showedToken`).
    let token: BearerAuth
    /// A signed-in browser is trusted as a token is.
    let trusts: (HTTPRequest) -> Bool
    let log: (String) -> Void
    /// Each answer's line and status.
    let requests: (String, Int) -> Void
    /// Whether answers below 400 get their line at all (only as debug lines).
    let answerLines: Bool
    let handler: (HTTPRequest, HTTPReply) -> Void
}

extension Agent {
    /// libmicrohttpd on the configured address, or the test's server (`serverMaker`).
    func makeServer(_ wiring: ServerWiring) throws(AgentError) -> any AgentServer {
        if let serverMaker { return try serverMaker(wiring) }
        do {
            return try HTTPServer(listen: setup.config.listenHost, port: setup.config.listenPort,
                                  tls: wiring.tls, token: wiring.token, trusts: wiring.trusts, log: wiring.log,
                                  requests: wiring.requests, answerLines: wiring.answerLines, handler: wiring.handler)
        } catch { throw AgentError("\(error)") }
    }
}
