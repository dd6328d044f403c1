import Testing
@testable import BodyAgent
@testable import AgentHarness
import BodyCore

/// The agent's own timers beside the rules' (the page's spacing and
/// keep-alive, systemd's watchdog) are turns like any event: on the agent's
/// clock, the rules ticked first, the page published last and carried out by one more run of the server.
@Suite("The page's timers and the watchdog are turns on the agent's clock", .serialized)
struct TimerTurnTests {
    func push(_ rig: AgentRig, _ client: Client, _ json: String) throws {
        #expect(try rig.push(client, json)?.status == 200)
    }

    /// A browser watching `/events`, its first event read.
    func watcher(_ rig: AgentRig) throws -> Client {
        let page = rig.client()
        page.send("GET", "/events")
        try rig.settle()
        #expect(page.received().contains("event: page"))
        #expect(rig.agent.page.events.watching == 1)
        return page
    }

    func events(_ page: Client) -> Int { page.received().components(separatedBy: "event: page\n").count - 1 }

    @Test("facts changed too soon after the last event go out at the spacing's end, in a turn that ticks the rules, logs and re-arms before it publishes")
    func spacingEndIsATurn() throws {
        let rig = try AgentRig(at: 1000)
        let oriel = rig.client()
        try push(rig, oriel, #"{"onair":{"on":false}}"#)
        let page = try watcher(rig)
        #expect(events(page) == 1)
        // A press 50 ms after the facts were made arms On Air: too soon, the
        // page hears of it at 1000.1.
        try rig.line(true, at: 1000.05)
        #expect(rig.board.lit[.armedLED] == true)
        #expect(!rig.deeds.contains(.published), "\(rig.turns)")
        rig.deeds.removeAll()
        // The clock has passed the arming's end (5 s) and the button's 10 s
        // hold when the spacing's timer runs: its turn ticks the rules at its
        // own moment, so the LED goes dark and the hold is said, then the
        // rules' wake-up is re-armed, and only then does the page publish.
        try rig.advance(to: 1011)
        let turn = try #require(rig.turns.first)
        #expect(turn.first == .turn("the page's spacing ended"), "\(rig.turns)")
        // Published, then the server's last run in the same turn carries it out: no second pass.
        #expect(Array(turn.suffix(2)) == [.published, .serverRan], "\(turn)")
        #expect(turn.filter { $0 == .published }.count == 1)
        let published = try #require(turn.firstIndex(of: .published))
        let dark = try #require(turn.firstIndex(of: .drove(.armedLED, false)), "\(turn)")
        let said = try #require(turn.lastIndex { if case .logged(let w) = $0 { w.contains("held for 10 s") } else { false } }, "\(turn)")
        let armed = try #require(turn.lastIndex { if case .armed = $0 { true } else { false } }, "\(turn)")
        #expect(dark < said && said < armed && armed < published)
        // The rules' own timer, due since, finds nothing left: that turn was the one.
        #expect(rig.deeds.filter { $0 == .drove(.armedLED, false) }.count == 1)
        #expect(events(page) == 2, "the event reached the page in its own turn, before anything else ran")
        // And it left nothing for a second pass: the loop has no turn to run.
        let done = rig.deeds.count
        try rig.settle()
        #expect(rig.deeds.count == done, "\(rig.turns.last ?? [])")
    }

    @Test("the keep-alive is a turn every 15 s from the turn it came in, and sends the facts again though unchanged")
    func keepAliveIsATurn() throws {
        let rig = try AgentRig(at: 1000)
        let page = try watcher(rig)
        // The server's turn that sent the first event came too soon after it: its spacing's turn, with nothing new.
        try rig.advance(to: 1001)
        let encoded = rig.agent.page.events.encoded
        let sent = events(page)
        rig.deeds.removeAll()
        try rig.advance(to: 1014.9)
        #expect(!rig.deeds.contains(.turn("the page's keep-alive came")), "\(rig.turns)")
        // Late by 2 s (a busy host): the turn's moment is the clock's, 1017.
        try rig.advance(to: 1017)
        let turn = try #require(rig.turns.first { $0.first == .turn("the page's keep-alive came") }, "\(rig.turns)")
        #expect(Array(turn.suffix(2)) == [.published, .serverRan], "\(turn)")
        #expect(rig.agent.page.events.encoded == encoded + 1)
        #expect(events(page) == sent + 1, "sent in the keep-alive's own turn")
        // The next comes 15 s after that turn's moment, not after 1015.
        rig.deeds.removeAll()
        try rig.advance(to: 1031.9)
        #expect(!rig.deeds.contains(.turn("the page's keep-alive came")), "\(rig.turns)")
        try rig.advance(to: 1032)
        #expect(rig.turns.contains { $0.first == .turn("the page's keep-alive came") && $0.suffix(2) == [.published, .serverRan] }, "\(rig.turns)")
        #expect(rig.agent.page.events.encoded == encoded + 2)
    }

    @Test("systemd's watchdog is pinged in the body's first turn, then each interval after the last ping's turn, in a turn of its own")
    func watchdogIsATurn() throws {
        let rig = try AgentRig(at: 1000, watchdog: 10)
        let started = try #require(rig.turns.first { $0.first == .turn("the body started") })
        #expect(started.contains(.told("WATCHDOG=1")), "\(started)")
        rig.deeds.removeAll()
        try rig.advance(to: 1009.9)
        #expect(!rig.deeds.contains(.told("WATCHDOG=1")), "\(rig.turns)")
        // Late by 3 s (a busy host): the ping's turn is at the clock's 1013.
        try rig.advance(to: 1013)
        let ping = try #require(rig.turn(with: .told("WATCHDOG=1")), "\(rig.turns)")
        #expect(ping.first == .turn("the watchdog's time came"))
        #expect(rig.deeds.filter { $0 == .told("WATCHDOG=1") }.count == 1)
        // The next is 10 s after that turn's moment, not after 1010.
        rig.deeds.removeAll()
        try rig.advance(to: 1022.9)
        #expect(!rig.deeds.contains(.told("WATCHDOG=1")), "\(rig.turns)")
        try rig.advance(to: 1023)
        #expect(rig.turn(with: .told("WATCHDOG=1"))?.first == .turn("the watchdog's time came"), "\(rig.turns)")
    }

    @Test("a ping that cannot be sent is no deed: the turn records none, and says why once")
    func pingNotSent() throws {
        let rig = try AgentRig(at: 1000, watchdog: 10)
        rig.agent.notify = Notify(path: "/nonexistent/studio-body-test/notify")
        rig.deeds.removeAll()
        try rig.advance(to: 1010)
        try rig.advance(to: 1020)
        #expect(rig.deeds.contains(.turn("the watchdog's time came")), "\(rig.turns)")
        #expect(!rig.deeds.contains(.told("WATCHDOG=1")), "\(rig.turns)")
        let said = rig.deeds.filter { if case .logged(let w) = $0 { w.hasPrefix("systemd: cannot send WATCHDOG=1") } else { false } }
        #expect(said.count == 1, "\(rig.deeds)")
    }

    @Test("a body without systemd's watchdog pings nothing")
    func noWatchdog() throws {
        let rig = try AgentRig(at: 1000)
        try rig.advance(to: 2000)
        #expect(!rig.deeds.contains(.told("WATCHDOG=1")))
        #expect(!rig.deeds.contains(.turn("the watchdog's time came")))
    }
}
