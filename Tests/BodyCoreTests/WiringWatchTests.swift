@testable import BodyCore
import Testing

/// The board of docs/install.md's wiring check: three outputs, two buttons.
private func board(debounce: Double = 0.010, down: Set<ButtonRole> = []) -> WiringWatch {
    WiringWatch(outputs: [(.lamp, "GPIO17"), (.armedLED, "GPIO27"), (.eyeLED, "GPIO22")],
                buttons: [.init(role: .onair, line: "GPIO23", debounce: debounce), .init(role: .kill, line: "GPIO24", debounce: debounce)],
                down: down, at: 0)
}

private func edge(_ at: Double, down: Bool = true, _ button: ButtonRole = .onair) -> ButtonEdge {
    ButtonEdge(button: button, pressed: down, at: at)
}

/// Only the words, without the time and button columns.
private func words(_ steps: [WiringWatch.Step]) -> [String] {
    steps.compactMap { step in
        guard case .say(let line) = step else { return nil }
        return String(line.dropFirst(35))
    }
}

@Suite("studio-body watch: what a person wiring the board sees")
struct WiringWatchTests {
    @Test("an edge opens the window; the reading at its end gives the verdict press, stamped at the edge")
    func cleanPress() {
        var w = board()
        #expect(w.edge(edge(5021.25)) == [.say("     5021.250000  onair   GPIO23   edge down, opens the 10 ms window")])
        #expect(w.nextDeadline() == 5021.26)
        #expect(w.tick(at: 5021.259) == [])
        #expect(w.tick(at: 5021.26) == [.readLevel(.onair)])
        #expect(w.level(.onair, pressed: true, at: 5021.2601) == [
            .say("     5021.260100  onair   GPIO23   verdict: press at 5021.250000 (still down at the window's end, no bounce)"),
        ])
        #expect(w.contacts[.onair]?.isDown == true)
    }

    @Test("edges inside the window are bounce, counted in the verdict")
    func bounces() {
        var w = board()
        #expect(words(w.edge(edge(100))) == ["edge down, opens the 10 ms window"])
        #expect(words(w.edge(edge(100.001, down: false))) == ["edge up, bounce"])
        #expect(words(w.edge(edge(100.002))) == ["edge down, bounce"])
        #expect(w.tick(at: 100.010) == [.readLevel(.onair)])
        #expect(words(w.level(.onair, pressed: true, at: 100.010)) == ["verdict: press at 100.000000 (still down at the window's end, 2 bounces)"])
        // The next window counts its own bounces only.
        #expect(words(w.edge(edge(100.300, down: false))) == ["edge up, opens the 10 ms window"])
        _ = w.tick(at: 100.310)
        #expect(words(w.level(.onair, pressed: false, at: 100.310)) == ["release at 100.300000"])
    }

    @Test("a blip back at rest by the window's end is noise, not a press", arguments: [0.000020, 0.005])
    func blip(length: Double) {
        var w = board()
        _ = w.edge(edge(100))
        #expect(words(w.edge(edge(100 + length, down: false))) == ["edge up, bounce"])
        #expect(w.tick(at: 100.010) == [.readLevel(.onair)])
        #expect(words(w.level(.onair, pressed: false, at: 100.011)) == [
            "verdict: noise at 100.000000 (back at rest by the window's end, 1 bounce: a blip, not a press)",
        ])
        #expect(w.contacts[.onair]?.isDown == false && w.contacts[.onair]?.blips == 1)
    }

    @Test("a window whose reading came late ends at rest, and says it was read too late, not that it was a blip")
    func lateWindow() {
        var w = board()
        _ = w.edge(edge(100))
        #expect(words(w.edge(edge(100.050))) == [
            "edge down, opens the 10 ms window",
            "verdict: noise at 100.000000 (read too late to judge (the machine was busy): the line moved again "
                + "before the window's end was read, so it ends at rest: if it was a press, press again)",
        ])
        #expect(w.contacts[.onair]?.late == 1)
        #expect(w.nextDeadline() == 100.060)
        // The next window, read in time, is judged on the line again.
        _ = w.tick(at: 100.060)
        #expect(words(w.level(.onair, pressed: true, at: 100.060)) == ["verdict: press at 100.050000 (still down at the window's end, no bounce)"])
    }

    @Test("a release window read late ends at rest too, and says so")
    func lateRelease() {
        var w = board()
        _ = w.edge(edge(100))
        _ = w.tick(at: 100.010)
        _ = w.level(.onair, pressed: true, at: 100.010)
        _ = w.edge(edge(100.300, down: false))
        #expect(words(w.edge(edge(100.400, down: false))) == [
            "edge up, opens the 10 ms window",
            "release at 100.300000 (read too late to judge (the machine was busy): the line moved again "
                + "before the window's end was read, so it ends at rest)",
        ])
        #expect(w.contacts[.onair]?.isDown == false && w.contacts[.onair]?.late == 1)
    }

    @Test("a held button's release read late says both: it had been held, and it was read too late")
    func lateReleaseAfterHeld() {
        var w = board()
        _ = w.edge(edge(100))
        _ = w.tick(at: 100.010)
        _ = w.level(.onair, pressed: true, at: 100.010)
        _ = w.tick(at: 110.010)
        _ = w.level(.onair, pressed: true, at: 110.010)
        #expect(w.contacts[.onair]?.isHeld == true)
        _ = w.edge(edge(111, down: false))
        #expect(words(w.edge(edge(111.100, down: false))).last
            == "release at 111.000000 (after being held; read too late to judge (the machine was busy): the line moved again "
                + "before the window's end was read, so it ends at rest)")
    }

    @Test("down for 10 s: held, once; the release says it had been held")
    func held() {
        var w = board()
        _ = w.edge(edge(100))
        _ = w.tick(at: 100.010)
        _ = w.level(.onair, pressed: true, at: 100.010)
        #expect(w.nextDeadline() == 110)
        #expect(w.tick(at: 110) == [.readLevel(.onair)])
        #expect(words(w.level(.onair, pressed: true, at: 110.001)) == [
            "verdict: held since 100.000000 (down 10 s: stuck, or a broken normally-closed wire; no press until released)",
        ])
        #expect(w.nextDeadline() == nil)
        _ = w.edge(edge(115, down: false))
        _ = w.tick(at: 115.010)
        #expect(words(w.level(.onair, pressed: false, at: 115.010)) == ["release at 115.000000 (after being held)"])
    }

    @Test("a blip up while the button is held down is noise; the press goes on")
    func blipWhileDown() {
        var w = board()
        _ = w.edge(edge(100))
        _ = w.tick(at: 100.010)
        _ = w.level(.onair, pressed: true, at: 100.010)
        _ = w.edge(edge(101, down: false))
        _ = w.tick(at: 101.010)
        #expect(words(w.level(.onair, pressed: true, at: 101.010)) == [
            "verdict: noise at 101.000000 (a blip up while held down, back down by the window's end; the press goes on)",
        ])
        #expect(w.contacts[.onair]?.isDown == true)
    }

    @Test("debounce 0: every edge counts at once, as the body would count it")
    func noWindow() {
        var w = board(debounce: 0)
        #expect(words(w.edge(edge(100))) == ["edge down, no window (debounce 0 ms)", "verdict: press at 100.000000 (no window: every edge counts)"])
        #expect(words(w.edge(edge(100.2, down: false))) == ["edge up, no window (debounce 0 ms)", "release at 100.200000"])
        #expect(w.legend.contains { $0.contains("onair") && $0.contains("no window (debounce 0 ms)") })
    }

    @Test("a button down at the start never presses; it is held in time, and says so first")
    func downAtStart() {
        var w = board(down: [.onair])
        #expect(w.legend.contains("     onair     GPIO23   down now (held at the start: it will not press until released), window 10 ms"))
        #expect(w.legend.contains("     kill      GPIO24   up now, window 10 ms"))
        #expect(w.nextDeadline() == 10)
        #expect(w.tick(at: 10) == [.readLevel(.onair)])
        #expect(words(w.level(.onair, pressed: true, at: 10)).first?.hasPrefix("verdict: held since 0.000000") == true)
    }

    @Test("each button has its own contact: the kill button's edge leaves the On Air window alone")
    func twoButtons() {
        var w = board()
        _ = w.edge(edge(100))
        #expect(w.edge(edge(100.002, .kill)) == [.say("      100.002000  kill    GPIO24   edge down, opens the 10 ms window")])
        #expect(w.tick(at: 100.012) == [.readLevel(.onair), .readLevel(.kill)])
        #expect(words(w.level(.kill, pressed: false, at: 100.012)).first?.hasPrefix("verdict: noise") == true)
        #expect(words(w.level(.onair, pressed: true, at: 100.012)).first?.hasPrefix("verdict: press") == true)
        // An edge or a reading for a button the board does not have says nothing.
        #expect(w.edge(edge(101, .camera)) == [])
        #expect(w.level(.camera, pressed: true, at: 101) == [])
    }

    @Test("a key lights its output and the same key darkens it; q quits")
    func keys() {
        var w = board()
        #expect(w.key("1") == [.drive(.lamp, lit: true), .say("key 1: lamp (GPIO17) lit")])
        #expect(w.key("3") == [.drive(.eyeLED, lit: true), .say("key 3: eye-led (GPIO22) lit")])
        #expect(w.key("1") == [.drive(.lamp, lit: false), .say("key 1: lamp (GPIO17) dark")])
        #expect(w.lit == [.lamp: false, .armedLED: false, .eyeLED: true])
        #expect(w.key("q") == [.quit])
        #expect(w.key("Q") == [.quit])
        #expect(w.key("\u{04}") == [.quit], "Ctrl-D")
        #expect(w.key("\r") == [] && w.key(" ") == [])
        #expect(w.key("9") == [.say("no key \"9\": 1 lamp, 2 armed-led, 3 eye-led, q quits")])
        #expect(w.key("\u{07}") == [.say("no key 0x7: 1 lamp, 2 armed-led, 3 eye-led, q quits")])
    }

    @Test("what a terminal read at once: each character a key, an escape sequence one unknown key")
    func keyBytes() {
        var w = board()
        #expect(w.keys(Array("12".utf8)) == [.drive(.lamp, lit: true), .say("key 1: lamp (GPIO17) lit"),
                                            .drive(.armedLED, lit: true), .say("key 2: armed-led (GPIO27) lit")])
        #expect(w.keys([0x1b, 0x5b, 0x41]) == [.say("no key for that escape sequence: 1 lamp, 2 armed-led, 3 eye-led, q quits")])
        #expect(w.keys(Array("1q".utf8)).last == .quit)
    }

    @Test("lines from a pipe: a key, an output's role or line name, quit")
    func lines() {
        var w = board()
        #expect(w.line("2\n") == [.drive(.armedLED, lit: true), .say("key 2: armed-led (GPIO27) lit")])
        #expect(w.line("  lamp ") == [.drive(.lamp, lit: true), .say("key 1: lamp (GPIO17) lit")])
        #expect(w.line("GPIO17") == [.drive(.lamp, lit: false), .say("key 1: lamp (GPIO17) dark")])
        #expect(w.line("") == [] && w.line(" \r") == [])
        #expect(w.line("quit") == [.quit] && w.line("q") == [.quit])
        #expect(w.line("relay") == [.say("no key \"relay\": 1 lamp, 2 armed-led, 3 eye-led, q quits")])
    }

    @Test("the end darkens only what is lit, and leaves everything dark")
    func darken() {
        var w = board()
        _ = w.key("1")
        _ = w.key("3")
        #expect(w.darken() == [.drive(.lamp, lit: false), .drive(.eyeLED, lit: false)])
        #expect(w.lit.values.allSatisfy { !$0 })
        #expect(w.darken() == [])
    }

    @Test("the legend lists each output's key, role, line and level")
    func legend() {
        var w = board()
        _ = w.key("2")
        #expect(Array(w.legend.prefix(4)) == [
            "outputs (a key lights one, the same key darkens it):",
            "  1  lamp      GPIO17   dark",
            "  2  armed-led GPIO27   lit",
            "  3  eye-led   GPIO22   dark",
        ])
        #expect(w.legend.last == "keys: 1 lamp, 2 armed-led, 3 eye-led, q quits (Ctrl-C too); at the end every output is dark and every line let go")
    }

    @Test("edges the kernel dropped are said when the count grows, once")
    func lost() {
        var w = board()
        #expect(w.lost(total: 0) == [])
        #expect(w.lost(total: 1) == [.say("the kernel dropped 1 edge (gaps in its sequence numbers): a press may be missing above")])
        #expect(w.lost(total: 1) == [])
        #expect(w.lost(total: 4) == [.say("the kernel dropped 3 edges (gaps in its sequence numbers): a press may be missing above")])
    }

    @Test("lines in use and the end, in words")
    func inWords() {
        #expect(WiringWatch.inUse("gpio: cannot request line \"GPIO17\" on gpiochip0 for lamp: Device or resource busy")
            == "gpio: cannot request line \"GPIO17\" on gpiochip0 for lamp: Device or resource busy\n"
            + "the lines are in use: stop the service first: sudo systemctl stop studio-body")
        #expect(WiringWatch.ended(by: "SIGTERM") == "SIGTERM: every output dark, every line released")
    }

    @Test("times to the microsecond, windows in ms", arguments: [
        (5021.1234567, "5021.123457"), (0.5, "0.500000"), (0, "0.000000"), (-1.25, "-1.250000"),
    ])
    func stamps(seconds: Double, text: String) {
        #expect(WiringWatch.stamp(seconds) == text)
    }

    @Test("a window's length", arguments: [(0.010, "10 ms"), (0.0025, "2.5 ms"), (0.1, "100 ms")])
    func windows(seconds: Double, text: String) {
        #expect(WiringWatch.ms(seconds) == text)
    }

    @Test("at most nine outputs get keys")
    func nineKeys() {
        let w = WiringWatch(outputs: Array(repeating: (OutputRole.lamp, "X"), count: 12), buttons: [], at: 0)
        #expect(w.outputs.count == 9 && w.outputs.last?.key == "9")
    }
}
