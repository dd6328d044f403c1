import BodyAgent
import BodyConfig
import BodyCore
import BodyHardware
import BodySystem

/// `studio-body check`: says what the configuration and the board file set up,
/// and finds every line by name without taking it (the daemon may hold them).
enum Check {
    static func run(_ setup: AgentSetup) -> Int32 {
        let c = setup.config
        var ok = true
        say("config \(c.file): ok")
        say("  body \"\(c.name)\" listening on \(c.listenHost):\(c.listenPort)")
        if let denied = FileFacts.readError(c.tokenFile), denied.kind == .permission {
            // A person may check everything but the token, which is the service's alone.
            let owner = FileFacts.owner(of: c.tokenFile) ?? "the service's user"
            say("  token \(c.tokenFile): not checked: it is the service's (readable by \(owner) only); to check it too: sudo -u \(owner) \(CommandLine.arguments[0]) check --config \(c.file)")
        } else {
            do {
                _ = try Files.token(c.tokenFile)
                say("  token \(c.tokenFile): ok")
            } catch {
                say("  token: \(error)")
                ok = false
            }
        }
        say("  oriel: \(c.orielURL.map { "hello to \($0)" } ?? "no url: the body waits for Oriel to push"), silence \(WrittenDuration.written(c.silence))")
        say("  url: \(HelloURL.described(c))")
        let tls = TLSCommand.checked(c)
        say(tls.line)
        ok = ok && tls.ok
        say("  location: \(c.locationAllowed ? "allowed, gpsd at \(c.gpsdHost):\(c.gpsdPort)" : "not allowed")")
        say("  camera: \(c.cameraDevice.map { "\($0) \(c.cameraWidth)x\(c.cameraHeight) @\(c.cameraFPS) fps" + (c.cameraWake.map { ", woken through \($0)" } ?? "") } ?? "none")")
        guard !setup.board.simulated else {
            say("board sim: the simulated board, every role present (\(OutputRole.allCases.map(\.rawValue).joined(separator: ", ")); buttons \(ButtonRole.allCases.map(\.rawValue).joined(separator: ", ")))\(lampWords(setup.board))")
            return ok ? 0 : 1
        }
        say("board \(setup.board.file): ok (\(GpioLookup.library))")
        let roles = setup.board.lines.map { line in
            (line.section, line.wiring.name, line.wiring.activeLow,
             line.isButton ? ", bias \(line.wiring.bias.rawValue), \(debounceWords(line.wiring.debounce))"
                : line.section == OutputRole.lamp.rawValue ? lampWords(setup.board) : "")
        }
        do {
            let found = try GpioLookup.places(roles.map(\.1))
            for (role, name, activeLow, extra) in roles {
                let place = found[name].map { "\($0.line.chip) line \($0.line.offset) (\($0.path))" } ?? "not found"
                say("  \(role.padding(15)) \"\(name)\" on \(place), active \(activeLow ? "low" : "high")\(extra)")
            }
        } catch {
            say("  lines: \(error.words)")
            ok = false
        }
        return ok ? 0 : 1
    }
}

/// What the lamp's line drives and what it does while unread.
func lampWords(_ board: BoardConfig) -> String {
    ", drives \(board.lampDrives.words) (\(board.lampDrives.unreadWords(board.unreadLamp)))"
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// `studio-body lamp-off`: for ExecStopPost, so a crashed daemon never leaves
/// the lamp claiming On Air. It takes only the outputs, drives them dark, lets go.
enum LampOff {
    static func run(_ setup: AgentSetup) -> Int32 {
        guard !setup.board.simulated else {
            say("lamp-off: the simulated board has no lamp to darken")
            return 0
        }
        do {
            let board = try GpioBoard(
                outputs: setup.board.outputs, buttons: [:], consumer: "studio-body lamp-off")
            for role in board.outputs { try board.drive(role, lit: false) }
            board.release()
            say("lamp-off: \(board.outputs.map(\.rawValue).joined(separator: ", ")) driven dark and released")
            return 0
        } catch {
            fail("lamp-off: \(error.words)")
        }
    }
}

/// What the window does, so a person setting 0 sees what it turns off.
private func debounceWords(_ seconds: Double) -> String {
    let written = WrittenDuration.written(seconds)
    return seconds > 0
        ? "debounce \(written) (a press counts only if the line still reads pressed then)"
        : "debounce \(written) (no confirmation: every edge counts; for a board with its own filter)"
}
