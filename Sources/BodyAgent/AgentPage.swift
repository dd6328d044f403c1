import BodyCore
import BodyHTTP
import BodySystem

/// The page's state beside the agent's: the signed-in browsers,
/// the `/events` clients, and the last `/where` answer in words. Loop thread only.
final class PageService {
    var sessions = Sessions()
    let events: PageEvents
    var whereSaid: String?
    /// The body's name (`[body] name`), which heads the page and the form.
    let name: String
    /// The page, made once with the body's name.
    let html: String

    init(loop: EventLoop, turn: @escaping AgentTurn, name: String) {
        events = PageEvents(loop: loop, turn: turn)
        self.name = name
        html = PageHTML.page(name: name)
    }
}

/// `GET /` and its routes: the page, its events, signing in and out.
extension Agent {
    /// Whether the request's cookie names a live session.
    func signedIn(_ request: HTTPRequest, at mono: Double) -> Bool {
        page.sessions.allows(SessionCookie.value(in: request.headers["cookie"]), at: mono)
    }

    /// The page's routes; false for any other route.
    func servePage(_ route: Route, _ request: HTTPRequest, _ reply: HTTPReply, at now: Moment) -> Bool {
        switch route {
        case .page:
            let known = signedIn(request, at: now.mono) || auth.allows(request)
            reply.send(PageHTML.answer(200, known ? page.html : PageHTML.signIn(nil, name: page.name)))
        case .events:
            page.events.add(reply, at: now)
        case .signIn:
            signIn(request, reply, at: now)
        case .signOut:
            page.sessions.end(SessionCookie.value(in: request.headers["cookie"]))
            reply.send(PageHTML.seeOther("/", [SessionCookie.end]))
        case .simPage:
            // `/sim` is now the page's own mode on a sim board: the same page, with the press buttons.
            reply.send(PageHTML.seeOther("/", []))
        default:
            return false
        }
        return true
    }

    /// `POST /signin` with the form's `token`: right, a session and its cookie;
    /// wrong, 401 and the form again with the words (the server's repeat filter
    /// makes a flood of them one log line a minute). Never the token in a URL,
    /// a log line or the page.
    private func signIn(_ request: HTTPRequest, _ reply: HTTPReply, at now: Moment) {
        let given = FormBody.parse(request.body)["token"] ?? ""
        guard !given.isEmpty else {
            reply.send(PageHTML.answer(401, PageHTML.signIn("No token was given: type this body's token.", name: page.name)))
            return
        }
        guard auth.allows(token: given) else {
            reply.send(PageHTML.answer(401, PageHTML.signIn("That is not this body's token: nothing was signed in.", name: page.name)))
            return
        }
        guard let session = page.sessions.begin(id: Self.sessionID(), at: now.mono) else {
            reply.send(.error(500, "the body could not make a session id"))
            return
        }
        say("page: a browser signed in from \(request.remote.isEmpty ? "an unknown address" : request.remote); its session lasts 12 h or until the body restarts")
        reply.send(PageHTML.seeOther("/", [SessionCookie.give(session.id, seconds: Int(Sessions.lifetime))]))
    }

    /// 32 bytes from the kernel's random source (getrandom), as hex.
    static func sessionID() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let digits = String(g.next(), radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// The turn's last step: the page's watchers hear of a change.
    @discardableResult
    func publishPage(at now: Moment) -> Bool {
        guard page.events.publish(at: now) else { return false }
        witness?(.published)
        return true
    }

    /// What the page shows now.
    func pageDocument(at now: Moment) -> PageDocument {
        let indicators = body.indicators(at: now)
        var patterns: [OutputRole: Indicators.Driving] = [:]
        for role in setup.board.outputs.keys { patterns[role] = indicators.driving(role) }
        return PageDocument(status: status(at: now), name: setup.config.name, version: setup.version, sim: isSim,
                            patterns: patterns, presses: body.lastPress, hello: helloWords,
                            whereSaid: page.whereSaid, log: log.recent.now)
    }

    /// The hello to Oriel, in words.
    var helloWords: String {
        guard let hello else { return "no hello: oriel.url is not set" }
        let to = "Oriel at \(hello.oriel)"
        if hello.inFlight { return "saying hello to \(to)" }
        switch hello.lastOutcome {
        case nil: return "no hello said yet to \(to)"
        case "ok": return "\(to) answered the last hello"
        case let failed?:
            return !hello.retrying ? failed : "\(failed); trying again (backing off, now after \(hello.backoff.failures) failures)"
        }
    }

    /// Hook: a `/where` answer, kept in words for the page.
    func whereAnswered(_ status: Int, _ json: [UInt8]) {
        if status == 200 {
            page.whereSaid = "200: a fresh fix"
        } else {
            let words = (try? JSON.parse(json))?["error"]?.string ?? "no words"
            page.whereSaid = "\(status): \(words)"
        }
    }
}

extension Agent {
    /// The page's state, its events made from the agent's document.
    func makePage() -> PageService {
        let page = PageService(loop: loop, turn: { [unowned self] event, work in self.turn(event) { work($0); return [] } },
                               name: setup.config.name)
        page.events.document = { [unowned self] now in self.pageDocument(at: now) }
        return page
    }
}
