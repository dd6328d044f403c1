import BodyCore
import Testing
@testable import BodyConfig
import BodyTestSupport

@Suite("board files: every role, key, default and mistake (DESIGN 8)")
struct BoardConfigTests {
    @Test("the three required roles alone take every default")
    func defaults() throws {
        let b = try BoardConfig.parse(minimalBoard, file: "pi.conf")
        #expect(b.file == "pi.conf")
        #expect(b.simulated == false)
        #expect(b.outputs == [.lamp: LineWiring(name: "L"), .armedLED: LineWiring(name: "A")])
        #expect(b.outputs[.lamp]?.activeLow == false)
        #expect(b.buttons == [.onair: LineWiring(name: "B", activeLow: true, bias: .pullUp, debounce: 0.010)])
        #expect(b.buttons[.onair]?.debounce == Contact.defaultDebounce)
        #expect(b.unreadLamp == .blink)
        #expect(b.lampDrives == .led)
        #expect(b.onAirAction == .toggle)
    }

    @Test("DESIGN 8's example sets every key of every role")
    func everyKey() throws {
        let b = try BoardConfig.parse("""
            [board]
            kind = gpio
            [lamp]
            line = GPIO17
            active = low
            unread = dark
            [armed-led]
            line = GPIO27
            active = low
            [eye-led]
            line = GPIO22
            active = high
            [button onair]
            line = GPIO23
            bias = pull-down
            active = high
            debounce = 20ms
            action = end-only
            [button kill]
            line = GPIO24
            bias = disabled
            debounce = 0ms
            [button wrapup]
            line = GPIO25
            bias = as-is
            active = low
            debounce = 0.1s
            [button camera]
            line = GPIO5
            """, file: "pi.conf")
        #expect(b.simulated == false)
        #expect(b.outputs == [
            .lamp: LineWiring(name: "GPIO17", activeLow: true),
            .armedLED: LineWiring(name: "GPIO27", activeLow: true),
            .eyeLED: LineWiring(name: "GPIO22", activeLow: false),
        ])
        #expect(b.buttons == [
            .onair: LineWiring(name: "GPIO23", activeLow: false, bias: .pullDown, debounce: 0.020),
            .kill: LineWiring(name: "GPIO24", activeLow: true, bias: .disabled, debounce: 0),
            .wrapup: LineWiring(name: "GPIO25", activeLow: true, bias: .asIs, debounce: 0.1),
            .camera: LineWiring(name: "GPIO5", activeLow: true, bias: .pullUp, debounce: 0.010),
        ])
        #expect(b.unreadLamp == .dark)
        #expect(b.onAirAction == .endOnly)
        #expect(b.lines.map(\.section) == ["armed-led", "eye-led", "lamp", "button camera", "button kill", "button onair", "button wrapup"])
        #expect(b.lines.map(\.isButton) == [false, false, false, true, true, true, true])
        #expect(b.lines.map(\.wiring.name) == ["GPIO27", "GPIO22", "GPIO17", "GPIO5", "GPIO24", "GPIO23", "GPIO25"])
    }

    @Test("kind says whether the roles are simulated", arguments: [("gpio", false), ("sim", true)])
    func kind(text: String, simulated: Bool) throws {
        #expect(try BoardConfig.parse("[board]\nkind = \(text)\n" + minimalBoard, file: "f").simulated == simulated)
    }

    @Test("every unread pattern and every action", arguments: [
        ("blink", "toggle", UnreadLamp.blink, OnAirSwitch.Action.toggle),
        ("dark", "end-only", .dark, .endOnly),
        ("LIT", "End-Only", .lit, .endOnly),
    ])
    func choices(unread: String, action: String, lamp: UnreadLamp, onAir: OnAirSwitch.Action) throws {
        let b = try BoardConfig.parse("""
            [lamp]
            line = L
            unread = \(unread)
            [armed-led]
            line = A
            [button onair]
            line = B
            action = \(action)
            """, file: "f")
        #expect(b.unreadLamp == lamp && b.onAirAction == onAir)
    }

    @Test("what the lamp drives sets its unread default: contacts are dark, the rest blink", arguments: [
        ("led", LampDrive.led, UnreadLamp.blink), ("MOSFET", .mosfet, .blink), ("ssr", .ssr, .blink),
        ("relay", .relay, .dark), ("Contactor", .contactor, .dark),
    ])
    func drives(text: String, drives: LampDrive, unread: UnreadLamp) throws {
        let b = try BoardConfig.parse("[lamp]\nline = L\ndrives = \(text)\n[armed-led]\nline = A\n[button onair]\nline = B\n", file: "f")
        #expect(b.lampDrives == drives && b.unreadLamp == unread)
        let lit = try BoardConfig.parse("[lamp]\nline = L\ndrives = \(text)\nunread = lit\n[armed-led]\nline = A\n[button onair]\nline = B\n", file: "f")
        #expect(lit.lampDrives == drives && lit.unreadLamp == .lit)
    }

    @Test("the shipped Pi board file drives a relay and never blinks the lamp (WIRING.md's mains lamp)")
    func shippedPiIsSafe() throws {
        let b = try BoardConfig.parse(try Repository.text("board/raspberrypi.conf"), file: "raspberrypi.conf")
        #expect(b.lampDrives == .relay && b.unreadLamp == .dark)
        #expect(!LampRule(drives: b.lampDrives, unread: b.unreadLamp).lampBlinksUnread)
    }

    @Test("every bias", arguments: Bias.allCases)
    func bias(bias: Bias) throws {
        let b = try BoardConfig.parse(minimalBoard + "bias = \(bias.rawValue.uppercased())\n", file: "f")
        #expect(b.buttons[.onair]?.bias == bias)
    }

    @Test("active reads high and low in any case", arguments: [("high", false), ("LOW", true), ("High", false)])
    func active(text: String, activeLow: Bool) throws {
        let b = try BoardConfig.parse("[lamp]\nline = L\nactive = \(text)\n[armed-led]\nline = A\n[button onair]\nline = B\nactive = \(text)\n", file: "f")
        #expect(b.outputs[.lamp]?.activeLow == activeLow && b.buttons[.onair]?.activeLow == activeLow)
    }

    @Test("debounce carries its unit, from 0ms to 100ms", arguments: [
        ("0ms", 0), ("0s", 0), ("1ms", 0.001), ("10ms", 0.010), ("50ms", 0.050), ("100ms", 0.100), ("0.1s", 0.1), ("0.005s", 0.005),
    ])
    func debounce(text: String, seconds: Double) throws {
        #expect(try BoardConfig.parse(minimalBoard + "debounce = \(text)\n", file: "f").buttons[.onair]?.debounce == seconds)
    }

    @Test("the shipped board files parse", arguments: ["board/raspberrypi.conf", "board/sim.conf"])
    func shipped(path: String) throws {
        let b = try BoardConfig.parse(try Repository.text(path), file: path)
        #expect(Set(b.outputs.keys) == Set(OutputRole.allCases))
        #expect(Set(b.buttons.keys) == Set(ButtonRole.allCases))
        #expect(b.buttons.values.allSatisfy { $0.debounce == Contact.defaultDebounce && $0.activeLow && $0.bias == .pullUp })
        #expect(b.simulated == path.hasSuffix("sim.conf"))
    }

    @Test("the simulated board has every role, wired like the shipped sim.conf")
    func sim() throws {
        let sim = BoardConfig.sim
        #expect(sim.simulated && sim.file == "sim")
        #expect(sim.lines.count == OutputRole.allCases.count + ButtonRole.allCases.count)
        let shipped = try BoardConfig.parse(try Repository.text("board/sim.conf"), file: "sim")
        #expect(sim == shipped)
    }

    @Test("every mistake names the file, the line and how to write it", arguments: [
        ("[board]\nkind = pi\n", "f:2: [board] kind: expected gpio or sim, found pi"),
        ("[board]\nfile = x\n", "f:2: unknown key file in [board]; known keys: kind"),
        ("[lamp]\nline = L\npin = 11\n", "f:3: unknown key pin in [lamp]; known keys: active, drives, line, unread"),
        ("[armed-led]\nline = A\nunread = dark\n", "f:3: unknown key unread in [armed-led]; known keys: active, line"),
        ("[eye-led]\nline = E\nbias = pull-up\n", "f:3: unknown key bias in [eye-led]; known keys: active, line"),
        ("[button kill]\nline = K\naction = toggle\n", "f:3: unknown key action in [button kill]; known keys: active, bias, debounce, line"),
        ("[button onair]\nline = B\nhold = 1s\n", "f:3: unknown key hold in [button onair]; known keys: action, active, bias, debounce, line"),
        ("[lamp]\nactive = high\n", "f:1: [lamp] has no line = NAME (the name gpioinfo prints, e.g. GPIO17)"),
        ("[button wrapup]\nline =\n", "f:1: [button wrapup] has no line = NAME (the name gpioinfo prints, e.g. GPIO17)"),
        ("[lamp]\nline = L\nactive = yes\n", "f:3: [lamp] active: expected high or low, found yes"),
        ("[button kill]\nline = K\nactive = 0\n", "f:3: [button kill] active: expected high or low, found 0"),
        ("[lamp]\nline = L\nunread = flash\n", "f:3: [lamp] unread: expected blink, dark or lit, found flash"),
        ("[lamp]\nline = L\ndrives = lamp\n", "f:3: [lamp] drives: expected what the lamp's line drives: led, mosfet, ssr, relay, contactor, found lamp"),
        ("[lamp]\nline = L\ndrives = relay\nunread = blink\n",
         "f:4: [lamp] unread: blink is refused for a lamp that drives a relay: it would switch its contacts 43,200 times a day while Oriel is silent (a relay module lasts about 100,000); say dark or lit, and the armed LED shows unread"),
        ("[lamp]\nline = L\nunread = BLINK\ndrives = Contactor\n",
         "f:3: [lamp] unread: blink is refused for a lamp that drives a contactor: it would switch its contacts 43,200 times a day while Oriel is silent (a relay module lasts about 100,000); say dark or lit, and the armed LED shows unread"),
        ("[button onair]\nline = B\naction = stop\n", "f:3: [button onair] action: unknown value stop"),
        ("[button kill]\nline = K\nbias = up\n", "f:3: [button kill] bias: unknown value up"),
        ("[button kill]\nline = K\ndebounce = 10\n", "f:3: [button kill] debounce: 10 has no unit: write 10ms, 10s or 10min"),
        ("[button kill]\nline = K\ndebounce = 10m\n", "f:3: [button kill] debounce: 10m could be minutes or milliseconds: write 10min or 10ms"),
        ("[button kill]\nline = K\ndebounce = 101ms\n", "f:3: [button kill] debounce: expected from 0ms to 100ms, found 101ms"),
        ("[button kill]\nline = K\ndebounce = 1s\n", "f:3: [button kill] debounce: expected from 0ms to 100ms, found 1s"),
        ("[button kill]\nline = K\ndebounce = -1ms\n", "f:3: [button kill] debounce: expected a number and its unit (ms, s or min) such as 10ms or 60s, found -1ms"),
        ("[button]\nline = K\n", "f:1: unknown section [button]; known: [board] [lamp] [armed-led] [eye-led] [button onair] [button wrapup] [button kill] [button camera]"),
        ("[button stop]\nline = K\n", "f:1: unknown section [button stop]; known: [board] [lamp] [armed-led] [eye-led] [button onair] [button wrapup] [button kill] [button camera]"),
        ("[onair]\nline = K\n", "f:1: unknown section [onair]; known: [board] [lamp] [armed-led] [eye-led] [button onair] [button wrapup] [button kill] [button camera]"),
    ])
    func mistakes(text: String, words: String) {
        // The section under test comes first, so the mistake's line is the one in the table;
        // a role it sets again would be a section twice, so the required roles follow only where missing.
        var rest = ""
        for (header, role) in [("[lamp]", "[lamp]\nline = RL\n"), ("[armed-led]", "[armed-led]\nline = RA\n"), ("[button onair]", "[button onair]\nline = RB\n")]
        where !text.contains(header) { rest += role }
        #expect(boardRefusal(text + rest, file: "f") == words)
    }

    @Test("a board without a required role says which", arguments: [
        ("[armed-led]\nline = A\n[button onair]\nline = B\n", "f: the board has no [lamp] section: the On Air lamp is required"),
        ("[lamp]\nline = L\n[button onair]\nline = B\n", "f: the board has no [armed-led] section: the armed LED is required"),
        ("[lamp]\nline = L\n[armed-led]\nline = A\n[button kill]\nline = K\n", "f: the board has no [button onair] section: the On Air button is required"),
        ("", "f: the board has no [lamp] section: the On Air lamp is required"),
    ])
    func missingRole(text: String, words: String) {
        #expect(boardRefusal(text, file: "f") == words)
    }

    @Test("a line used by two roles is refused, naming both in role order", arguments: [
        ("[lamp]\nline = X\n[armed-led]\nline = X\n[button onair]\nline = B\n", "f: line X is used twice: by [armed-led] and [lamp]"),
        ("[lamp]\nline = L\n[armed-led]\nline = A\n[button onair]\nline = L\n", "f: line L is used twice: by [lamp] and [button onair]"),
        (minimalBoard + "[button kill]\nline = B\n", "f: line B is used twice: by [button kill] and [button onair]"),
    ])
    func lineTwice(text: String, words: String) {
        #expect(boardRefusal(text, file: "f") == words)
    }

    @Test("an INI mistake in a board file names its line")
    func iniMistake() {
        #expect(boardRefusal("[lamp]\nline L\n", file: "f") == "f:2: expected key = value, found: line L")
    }
}
