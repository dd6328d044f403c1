/// What the body shows (DESIGN 2 and 7): pure functions of the state and the clock.
extension Body {
    /// The pattern every output role drives (DESIGN 2).
    public func indicators(at now: Moment) -> Indicators {
        let lamp: (Pattern, Double)
        switch state.on {
        case true?: lamp = (.steady, 0)
        case false?: lamp = (.dark, 0)
        case nil:
            switch settings.unreadLamp {
            case .blink: lamp = (.unread, unreadSince)
            case .dark: lamp = (.dark, 0)
            case .lit: lamp = (.steady, 0)
            }
        }
        let shown = controls.all.compactMap(\.shown)
        let asks = shown.compactMap(\.out)
        let problems = shown.compactMap { a in a.problemWords(at: now) != nil ? a.problem : nil }
        let armedLED: (Pattern, Double)
        if group.armed(at: now.mono) != nil {
            armedLED = (.steady, 0)
        } else if let ask = asks.max(by: { $0.at.mono < $1.at.mono }) {
            armedLED = (.asking, ask.at.mono)
        } else if let problem = problems.max(by: { $0.since < $1.since }) {
            armedLED = (.problem, problem.since)
        } else {
            armedLED = (.dark, 0)
        }
        let eyeLED: (Pattern, Double) = eyes.killing ? (.closing, 0) : eyes.red ? (.steady, 0) : (.dark, 0)
        return Indicators(lamp: lamp, armedLED: armedLED, eyeLED: eyeLED)
    }

    /// The On Air value word.
    public func onAirValue(at now: Moment) -> String {
        onair.value(state: state, armed: group.isArmed(.onair, at: now.mono))
    }

    /// The status document (DESIGN 7), with what only the adapters know.
    public func status(at now: Moment, _ extras: StatusExtras) -> StatusDocument {
        func asked(_ ask: Ask?, on: Bool?) -> StatusDocument.Asked? {
            ask.map { StatusDocument.Asked(id: $0.id, on: on, at: $0.at.wall) }
        }
        // Each control found once: every `onair` is a search of the controls by type.
        let onair = self.onair, wrapup = self.wrapup, kill = self.kill
        return StatusDocument(
            onair: .init(
                value: onair.value(state: state, armed: group.isArmed(.onair, at: now.mono)), on: state.on, phase: state.stage?.rawValue,
                stage: state.stage?.word, since: state.since, by: state.by, unread: state.unreadWords,
                asked: asked(onair.asking.out, on: onair.askedOn), problem: onair.asking.problemWords(at: now)),
            wrapup: .init(
                value: wrapup.value(state: state, armed: group.isArmed(.wrapup, at: now.mono)),
                asked: asked(wrapup.asking.out, on: nil), problem: wrapup.asking.problemWords(at: now)),
            eyes: .init(
                mode: eyes.mode?.rawValue, red: eyes.red, names: eyes.names, killing: eyes.killing,
                open: eyes.open, until: eyes.until, why: eyes.why,
                preview: extras.previewRunning ? "running" : "stopped", preview_why: extras.previewWords,
                preview_stops_in: extras.previewRunning ? gate.stopsIn(eyes, at: now) : nil,
                kill: kill.value(armed: group.isArmed(.kill, at: now.mono)),
                kill_asked: asked(kill.asking.out, on: nil), kill_problem: kill.asking.problemWords(at: now)),
            lines: Dictionary(uniqueKeysWithValues: extras.lines.map { ($0.key.rawValue, Null(wrappedValue: $0.value)) }),
            buttons: Dictionary(uniqueKeysWithValues: extras.held.map {
                ($0.key.rawValue, StatusDocument.Button(held: $0.value.held, stuck: $0.value.stuck,
                                                        noise: noise[$0.key]?.total ?? 0))
            }),
            where: extras.location,
            oriel: .init(last_push: contact.lastPush?.wall, last_poll: contact.lastPoll?.wall, silent: contact.silent),
            board: extras.board)
    }
}
