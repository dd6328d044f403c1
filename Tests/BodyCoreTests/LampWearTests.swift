import Testing
@testable import BodyCore

/// A day of the body on the caller's clock: each event at its literal time,
/// the clock ticked wherever the body or a pattern is due, as the agent's loop
/// does, and every line's switchings counted (a switching is a line going lit:
/// one close and open of a relay's contacts, one operation of its rated life).
struct Day {
    var body: Body
    var time: Double
    var lit: [OutputRole: Bool]
    var switchings: [OutputRole: Int] = [:]

    init(_ drives: LampDrive, unread: UnreadLamp? = nil, at start: Double = 100) {
        let unread = unread ?? (drives.hasContacts ? .dark : .blink)
        body = studio(BodySettings(name: "studio", unreadLamp: unread, lampDrives: drives), at: start)
        time = start
        lit = body.lines(at: start)
    }

    /// Runs the clock to `end`, doing `events` (sorted by time) on the way.
    mutating func run(to end: Double, _ events: [(Double, (inout Body, Double) throws -> Void)] = []) throws {
        var pending = events[...]
        while time < end {
            var next = end
            if let e = pending.first { next = min(next, e.0) }
            if let due = body.nextDue(at: Moment(time)), due > time { next = min(next, due) }
            if let change = body.indicators(at: Moment(time)).nextChange(after: time) { next = min(next, change) }
            // A timer fires a hair after it is due, as a real one does (and the sums
            // behind a pattern's edges are not exact): a microsecond late.
            time = next == end ? end : next + 1e-6
            body.tick(at: Moment(time))
            while let e = pending.first, e.0 <= time {
                try e.1(&body, time)
                pending = pending.dropFirst()
            }
            for (role, now) in body.lines(at: time) {
                if now && lit[role] != true { switchings[role, default: 0] += 1 }
                lit[role] = now
            }
        }
    }

    var lamp: Int { switchings[.lamp] ?? 0 }
    var armedLED: Int { switchings[.armedLED] ?? 0 }
}

let day = 86_400.0

/// A push of the onair object at its time.
func push(_ text: String, at t: Double) -> (Double, (inout Body, Double) throws -> Void) {
    (t, { body, now in try body.face(text, at: now) })
}

@Suite("A lamp behind contacts never blinks (issue 35): its switchings over a simulated day")
struct LampWearTests {
    @Test("a day of silence: an LED, a MOSFET or an SSR flashes 43,200 times; a relay or contactor is never switched and the armed LED says unread",
          arguments: LampDrive.allCases)
    func silence(drives: LampDrive) throws {
        var d = Day(drives, at: 100)
        try d.run(to: 100 + day)
        if drives.hasContacts {
            #expect(d.lamp == 0)
            #expect(d.lit[.lamp] == false)
            #expect(d.armedLED == 43_200)
        } else {
            // A flash every 2 s: the one at the start was already lit, the day's
            // last second (86,500) starts one more.
            #expect(d.lamp == 43_200)
            #expect(d.armedLED == 0)
        }
    }

    @Test("a day of silence with unread = lit: the lamp is lit all day, the armed LED blinks",
          arguments: LampDrive.allCases)
    func silenceLit(drives: LampDrive) throws {
        var d = Day(drives, unread: .lit, at: 100)
        #expect(d.lit[.lamp] == true)
        try d.run(to: 100 + day)
        #expect(d.lamp == 0 && d.lit[.lamp] == true)
        #expect(d.armedLED == 43_200)
    }

    @Test("a day of problems (a refusal every 10 minutes while On Air is on): the lamp is lit once and stays lit; the problems flash the armed LED",
          arguments: LampDrive.allCases)
    func problems(drives: LampDrive) throws {
        var d = Day(drives, at: 100)
        var events = [push(#"{"onair":{"on":true,"phase":"live"}}"#, at: 101)]
        // Oriel pushes every 30 s, so it is never silent.
        for t in stride(from: 131.0, to: 100 + day, by: 30) {
            events.append(push(#"{"onair":{"on":true,"phase":"live"}}"#, at: t))
        }
        // Every 10 minutes, two presses ask to end On Air, and Oriel answers with an error.
        var asked = 0
        for t in stride(from: 700.0, to: 100 + day - 600, by: 600) {
            let id = "r\(asked)"
            asked += 1
            events.append((t + 5, { body, now in _ = body.tap(.onair, at: now, id: id) }))
            events.append((t + 5.5, { body, now in _ = body.tap(.onair, at: now, id: id) }))
            events.append(push(#"{"onair":{"on":true,"phase":"live","answered":{"id":"\#(id)","error":"cwkPippa refused"}}}"#, at: t + 7))
        }
        events.sort { $0.0 < $1.0 }
        try d.run(to: 100 + day, events)
        #expect(d.lamp == 1)
        #expect(d.lit[.lamp] == true)
        // Each refusal's 12 s of double flashes (24 flashes), besides armed and asking,
        // are on the armed LED, whatever the lamp drives.
        #expect(asked == 142)
        #expect(d.armedLED >= asked * 24)
        #expect(d.body.state.on == true)
    }

    @Test("a day Oriel goes quiet for 10 minutes each hour while On Air is on: a relay switches once an hour, an LED flashes through each silence",
          arguments: LampDrive.allCases)
    func orielComesAndGoes(drives: LampDrive) throws {
        var d = Day(drives, at: 0.5)
        var events: [(Double, (inout Body, Double) throws -> Void)] = []
        for hour in 0..<24 {
            let start = Double(hour) * 3600 + 1
            // Pushes every 30 s, except from 30 to 40 minutes past the hour.
            for t in stride(from: start, to: start + 3600, by: 30) where !(1800..<2400).contains(t - start) {
                events.append(push(#"{"onair":{"on":true}}"#, at: t))
            }
        }
        try d.run(to: day, events)
        #expect(d.lit[.lamp] == true)
        if drives.hasContacts {
            // Lit at the first push, then once after each of the 24 silences.
            #expect(d.lamp == 1 + 24)
        } else {
            // Each silence is unread from 60 s after the last push (30:31 past the
            // hour) until the next (40:01): 570 s, 285 flashes, the first continuing
            // the lit lamp; then lit again. Plus the first push's.
            #expect(d.lamp == 1 + 24 * (284 + 1))
        }
    }
}

@Suite("Where unread is shown when the lamp holds still (issue 35)")
struct UnreadShownTests {
    @Test("behind a relay the lamp is dark while unread and the armed LED flashes 0.2 s every 2 s from when unread began")
    func relayUnread() throws {
        var body = studio(BodySettings(name: "studio", unreadLamp: .dark, lampDrives: .relay), at: 100)
        for (t, armed) in [(100.0, true), (100.1, true), (100.25, false), (101.9, false), (102.0, true), (102.3, false)] {
            #expect(body.lines(at: t) == [.lamp: false, .armedLED: armed, .eyeLED: false])
        }
        #expect(near(body.indicators(at: Moment(100.5)).nextChange(after: 100.5), 102))
        try body.face(#"{"onair":{"on":true}}"#, at: 103)
        #expect(body.lines(at: 104) == [.lamp: true, .armedLED: false, .eyeLED: false])
        #expect(body.indicators(at: Moment(104)).nextChange(after: 104) == nil)
        try body.face(#"{"onair":{"unread":"Oriel cannot read cwkPippa"}}"#, at: 110.5)
        #expect(body.lines(at: 110.5) == [.lamp: false, .armedLED: true, .eyeLED: false])
        #expect(body.lines(at: 110.8)[.armedLED] == false)
        #expect(body.lines(at: 112.5)[.armedLED] == true)
    }

    @Test("a lamp that blinks keeps the armed LED dark while unread")
    func ledUnread() {
        let body = studio(BodySettings(name: "studio", unreadLamp: .blink, lampDrives: .led), at: 100)
        for t in [100.0, 100.1, 102.0, 102.1] {
            #expect(body.lines(at: t)[.armedLED] == false)
            #expect(body.lines(at: t)[.lamp] == true)
        }
    }

    @Test("a rule made in code with blink behind contacts holds the lamp dark",
          arguments: [(LampDrive.relay, UnreadLamp.dark), (.contactor, .dark), (.led, .blink), (.mosfet, .blink), (.ssr, .blink)])
    func blinkBehindContacts(drives: LampDrive, held: UnreadLamp) {
        let rule = LampRule(drives: drives, unread: .blink)
        #expect(rule.unreadLamp == held)
        #expect(rule.lampBlinksUnread == !drives.hasContacts)
        let body = studio(BodySettings(name: "studio", unreadLamp: .blink, lampDrives: drives), at: 100)
        #expect(body.lines(at: 100.1)[.lamp] == !drives.hasContacts)
        #expect(body.lines(at: 100.1)[.armedLED] == drives.hasContacts)
    }

    @Test("each part and unread pattern in words, as check prints them")
    func words() {
        #expect(LampDrive.relay.words == "a relay" && LampDrive.ssr.words == "a solid-state relay")
        #expect(LampDrive.led.unreadWords(.blink) == "the lamp blinks while unread")
        #expect(LampDrive.relay.unreadWords(.blink) == "the lamp is dark while unread, the armed LED blinks")
        #expect(LampDrive.contactor.unreadWords(.lit) == "the lamp is lit while unread, the armed LED blinks")
        #expect(LampDrive.mosfet.unreadWords(.dark) == "the lamp is dark while unread, the armed LED blinks")
        #expect(LampDrive.allCases.filter(\.hasContacts) == [.relay, .contactor])
    }
}
