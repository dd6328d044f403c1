import BodyCore
import BodyHardware
import BodyHTTP

/// The routes (DESIGN 4): every request is authorised and routed by the pure
/// table in BodyHTTP, and answered here from the one state.
extension Agent {
    /// A request the server hands over mid-run: decided and carried out at
    /// the turn's moment, and answered in the same run. The turn ticked
    /// before the run, and logs and re-arms after it (Turn.swift); a handler
    /// never settles.
    func handle(_ request: HTTPRequest, _ reply: HTTPReply) {
        requestsHandled &+= 1
        guard !stopping else {
            reply.send(.error(503, "the body is stopping"))
            return
        }
        let now = turnNow ?? clock.now()
        switch Routing.route(request, auth: auth, simRoutes: isSim, signedIn: signedIn(request, at: now.mono)) {
        case .failure(let response):
            reply.send(response)
        case .success(let route):
            serve(route, request, reply, at: now)
        }
    }

    func serve(_ route: Route, _ request: HTTPRequest, _ reply: HTTPReply, at now: Moment) {
        if servePage(route, request, reply, at: now) { return }
        switch route {
        case .page, .events, .signIn, .signOut, .simPage:
            break  // servePage answered
        case .hello:
            reply.send(.json(200, BodyJSON.encode(helloDocument())))
        case .face:
            helloDeeds { $0.orielCalled(url: advertisedURL) }
            face(request.body, reply, at: now)
        case .ears(let after, let wait):
            helloDeeds { $0.orielCalled(url: advertisedURL) }
            ears(after: after ?? 0, wait: wait, reply, at: now)
        case .status, .simState:
            reply.send(.json(200, statusAnswer(at: now)))
        case .where_:
            let service: WhereService = location
            let asked = now.mono
            if let ticket = service.ask(at: now, answer: { [unowned self] status, json in
                self.metrics.whereAnswered(asked: asked, answered: self.clock.now().mono)
                self.whereAnswered(status, json)
                reply.send(.json(status, json))
            }) {
                reply.onClose = { [weak service] in service?.withdraw(ticket) }
            }
        case .preview:
            preview.serveStream(reply)
        case .previewJPEG:
            preview.serveJPEG(reply, at: now)
        case .metrics:
            reply.send(HTTPResponse(status: 200, contentType: Exposition.contentType, body: metricsAnswer(at: now)))
        case .simPress(let name):
            simPress(name, request.query, reply, at: now)
        }
    }

    /// `POST /face`: a malformed push changes nothing and says the parser's reason.
    func face(_ bytes: [UInt8], _ reply: HTTPReply, at now: Moment) {
        let pushed: JSONBytes
        do {
            pushed = try JSONBytes.parse(bytes)
        } catch {
            reply.send(.error(400, "the push is not valid JSON: \(error.reason)"))
            return
        }
        let actions: [BodyAction]
        do {
            actions = try changeBody { body throws(PushError) in try body.push(pushed, at: now) }
        } catch {
            reply.send(.error(400, error.description))
            return
        }
        // The lamp first (carryOut drives the lines before anything else),
        // then the answer, which shows the lines as driven.
        carryOut(actions, at: now)
        metrics.pushed(arrived: now.mono, driven: clock.now().mono)
        reply.send(.json(200, statusAnswer(at: now)))
    }

    /// `POST /sim/press?button=NAME[&presses=N&gap=S]`: N presses S seconds
    /// apart (by the edges' timestamps, as the kernel would stamp them), so a
    /// test or a person can make a graze or a deliberate double press exactly.
    /// Answered once the last press has landed (its release's bounce window
    /// over, so the press itself was confirmed or found noise), with what it
    /// became: a script that reads `/status` next sees it.
    func simPress(_ name: String, _ query: HTTPFields, _ reply: HTTPReply, at now: Moment) {
        let asked: SimPressQuery
        switch SimPressQuery.parse(button: name, query) {
        case .success(let q): asked = q
        case .failure(let refused):
            reply.send(.error(400, refused.words))
            return
        }
        guard let sim = lines.board as? SimBoard else {
            reply.send(.error(400, "this body has no sim board to press \(name) on"))
            return
        }
        let (button, presses, gap) = (asked.button, asked.presses, asked.gap)
        // Through the same edge path a real button takes: a pipe the loop reads.
        // A sequence starts after the previous one ended: edges stay in time order.
        let start = max(now.mono, simPressesEnd + 0.05)
        simPressesEnd = start + Double(presses - 1) * gap + min(SimBoard.pressLength, gap / 2)
        for i in 0..<presses {
            let down = start + Double(i) * gap
            sim.set(button, pressed: true, at: down)
            sim.set(button, pressed: false, at: down + min(SimBoard.pressLength, gap / 2))
        }
        let debounce = setup.board.buttons[button]?.debounce ?? Contact.defaultDebounce
        simWaits.append(SimWait(reply: reply, button: button, presses: presses,
                                lands: simPressesEnd + debounce, before: body.lastPress[button]))
    }

    /// Answers every waiting `/sim/press` whose last press has landed by `now`
    /// (`all`: every one, as the body stops), in the order they came.
    func answerSimPresses(at now: Moment, all: Bool = false) {
        var i = 0
        while i < simWaits.count {
            guard all || simWaits[i].lands <= now.mono else { i += 1; continue }
            let wait = simWaits.remove(at: i)
            guard wait.reply.isOpen, !wait.reply.isSent else { continue }
            // The last press this request confirmed, if any: the button's last
            // press when it is not the one from before the request.
            let last = body.lastPress[wait.button]
            var out = JSONOut(capacity: 96)
            SimPressed(button: wait.button, presses: wait.presses, last: last == wait.before ? nil : last).write(to: &out)
            wait.reply.send(.json(200, out.bytes))
        }
    }

    /// `GET /metrics`: the counters, and the gauges as the status document says
    /// them now, written into the agent's answer buffer.
    func metricsAnswer(at now: Moment) -> [UInt8] {
        metrics.write(name: setup.config.name, version: setup.version, MetricsGauges(
            onAir: body.onAirValue(at: now), orielSilent: body.contact.silent, boardOK: lines.board != nil,
            previewRunning: preview.running, whereWatching: location.watching, waitingPolls: polls.count), into: &answer)
        return answer
    }

    func helloDocument() -> HelloDocument {
        HelloDocument(
            body: "studio-body", name: setup.config.name, version: setup.version,
            protocol: HelloDocument.protocols,
            hardware: .init(
                board: setup.board.file,
                lines: Dictionary(uniqueKeysWithValues: setup.board.outputs.map { ($0.key.rawValue, $0.value.name) }),
                buttons: Dictionary(uniqueKeysWithValues: setup.board.buttons.map { ($0.key.rawValue, $0.value.name) }),
                camera: setup.config.cameraDevice, location: setup.config.locationAllowed),
            tls: setup.tls.map { "\($0.pin)" })
    }
}

/// `GET /hello`: who this body is.
struct HelloDocument: Encodable {
    struct Hardware: Encodable {
        var board: String
        var lines: [String: String]
        var buttons: [String: String]
        @Null var camera: String?
        var location: Bool
    }

    static let protocols = ["onair": 2, "eyes": 1, "where": 1, "ears": 1]

    var body: String
    var name: String
    var version: String
    var `protocol`: [String: Int]
    var hardware: Hardware
    /// The pin of the certificate this body serves (`sha256:…`, the SHA-256 of
    /// its public key); null when it serves plain HTTP (`[body] tls = no`).
    @Null var tls: String?
}

/// A `POST /sim/press` waiting for its last press to land at `lands`
/// (monotonic): the last release's bounce window over.
struct SimWait {
    let reply: HTTPReply
    let button: ButtonRole
    let presses: Int
    let lands: Double
    /// The button's last press before this request.
    let before: LastPress?
}

/// `POST /sim/press`'s answer once its presses have landed:
/// `{"became":"asked","pressed":"onair","presses":2,"words":"…"}`, where
/// `became` and `words` are the last press it made (as `/status` and the log
/// say it), both null when none was confirmed. Written straight to bytes by JSONOut.
struct SimPressed: JSONWritable {
    var button: ButtonRole
    var presses: Int
    var last: LastPress?

    func write(to out: inout JSONOut) {
        out.object { o in
            o.field("became"); o.string(last?.became)
            o.field("pressed"); o.string(button.rawValue)
            o.field("presses"); o.number(UInt64(presses))
            o.field("words"); o.string(last?.words)
        }
    }
}
