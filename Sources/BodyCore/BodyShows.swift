/// What the body shows (DESIGN 2 and 7): pure functions of the state and the clock.
extension Body {
    /// The pattern every output role drives (DESIGN 2). Inlined where the
    /// body reads it (`nextDue`): a call would lend it a copy of the whole body.
    @inline(__always)
    public func indicators(at now: Moment) -> Indicators {
        // The lamp switches only when what Oriel says changes, unless it may
        // blink while unread: a relay's contacts wear at each switching.
        let rule = settings.lamp
        let lamp: (Pattern, Double)
        switch state.on {
        case true?: lamp = (.steady, 0)
        case false?: lamp = (.dark, 0)
        case nil:
            switch rule.unreadLamp {
            case .blink: lamp = (.unread, unreadSince)
            case .dark: lamp = (.dark, 0)
            case .lit: lamp = (.steady, 0)
            }
        }
        // One pass, no arrays: this runs at every turn of the loop.
        let (latestAsk, latestProblem) = controls.latestShown(at: now)
        let armedLED: (Pattern, Double)
        if group.armed(at: now.mono) != nil {
            armedLED = (.steady, 0)
        } else if let latestAsk {
            armedLED = (.asking, latestAsk)
        } else if let latestProblem {
            armedLED = (.problem, latestProblem)
        } else if state.on == nil && !rule.lampBlinksUnread {
            // Unread is never shown as off: where the lamp holds still, the armed LED says it.
            armedLED = (.unread, unreadSince)
        } else {
            armedLED = (.dark, 0)
        }
        let eyeLED: (Pattern, Double) = eyes.killing ? (.closing, 0) : eyes.red ? (.steady, 0) : (.dark, 0)
        return Indicators(lamp: lamp, armedLED: armedLED, eyeLED: eyeLED)
    }

    /// The On Air value word.
    public func onAirValue(at now: Moment) -> String {
        onair.word(state: state, armed: group.isArmed(.onair, at: now.mono)).description
    }

    /// `Contact.late` of a button, as the status document counts it.
    private func late(_ role: ButtonRole) -> UInt64 { UInt64(contacts[role]?.late ?? 0) }

    /// The status document (DESIGN 7), with what only the adapters know,
    /// written straight into `out`: its one writer, for `/status`, the push's
    /// answer and the page. No document value and no dictionary of lines or
    /// buttons is built first; its parts are small values on the stack, and
    /// the keys go in byte order (Tests/BodyCoreTests/StatusDocuments.swift pins the bytes).
    public func writeStatus(at now: Moment, _ extras: StatusExtras, to out: inout JSONOut) {
        out.object { o in
            o.field("board"); extras.board.write(to: &o)
            o.field("buttons")
            o.object { b in
                for role in StatusDocument.buttonsInByteOrder {
                    guard let h = extras.held[role] else { continue }
                    b.field(role.key)
                    StatusDocument.Button(held: h.held, stuck: h.stuck, noise: noise[role]?.total ?? 0, late: late(role)).write(to: &b)
                }
            }
            o.field("eyes"); writeEyes(at: now, extras, to: &o)
            o.field("lines")
            o.object { l in
                for role in StatusDocument.linesInByteOrder {
                    guard let lit = extras.lines[role] else { continue }
                    l.field(role.key); l.bool(lit)
                }
            }
            o.field("onair"); writeOnAir(at: now, to: &o)
            o.field("oriel"); orielShown.write(to: &o)
            o.field("where"); extras.location.write(to: &o)
            o.field("wrapup"); writeWrapUp(at: now, to: &o)
        }
    }

    // The three objects with value words, written from the state: the words
    // go in as written in the source, and no value is built and let go.

    private func writeOnAir(at now: Moment, to out: inout JSONOut) {
        let onair = self.onair
        out.object { o in
            o.field("asked"); asked(onair.asking.out, on: onair.askedOn).write(to: &o)
            o.field("by"); o.string(state.by)
            o.field("on"); o.bool(state.on)
            o.field("phase"); o.word(state.stage?.key)
            o.field("problem"); o.string(onair.asking.problemWords(at: now))
            o.field("since"); o.string(state.since)
            o.field("stage"); o.word(state.stage?.shown)
            o.field("unread"); o.string(state.unreadWords)
            o.field("value"); o.word(onair.word(state: state, armed: group.isArmed(.onair, at: now.mono)))
        }
    }

    private func writeWrapUp(at now: Moment, to out: inout JSONOut) {
        let wrapup = self.wrapup
        out.object { o in
            o.field("asked"); asked(wrapup.asking.out, on: nil).write(to: &o)
            o.field("problem"); o.string(wrapup.asking.problemWords(at: now))
            o.field("value"); o.word(wrapup.word(state: state, armed: group.isArmed(.wrapup, at: now.mono)))
        }
    }

    private func writeEyes(at now: Moment, _ extras: StatusExtras, to out: inout JSONOut) {
        let kill = self.kill
        out.object { o in
            o.field("kill"); o.word(kill.word(armed: group.isArmed(.kill, at: now.mono)))
            o.field("kill_asked"); asked(kill.asking.out, on: nil).write(to: &o)
            o.field("kill_problem"); o.string(kill.asking.problemWords(at: now))
            o.field("killing"); o.bool(eyes.killing)
            o.field("mode"); o.string(eyes.mode?.rawValue)
            o.field("names"); o.array { a in for n in eyes.names { a.string(n) } }
            o.field("open"); o.bool(eyes.open)
            o.field("preview"); o.word(extras.previewRunning ? "running" : "stopped")
            o.field("preview_stops_in"); o.number(extras.previewRunning ? gate.stopsIn(eyes, at: now) : nil)
            o.field("preview_why"); o.string(extras.previewWords)
            o.field("red"); o.bool(eyes.red)
            o.field("until"); o.number(eyes.until)
            o.field("why"); o.string(eyes.why)
        }
    }

    private func asked(_ ask: Ask?, on: Bool?) -> StatusDocument.Asked? {
        ask.map { StatusDocument.Asked(id: $0.id, on: on, at: $0.at.wall) }
    }

    private var orielShown: StatusDocument.Oriel {
        .init(last_push: contact.lastPush?.wall, last_poll: contact.lastPoll?.wall, silent: contact.silent)
    }
}
