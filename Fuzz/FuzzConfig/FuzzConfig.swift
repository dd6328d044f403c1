import BodyConfig
import BodyCore

// The configuration parsers: the same bytes as an INI file, as body.conf and
// as a board file (docs/reliability.md). A mistake is an error naming a line
// of the file, never a crash; what parses keeps the documented ranges.

func check(_ ok: Bool, _ words: @autoclosure () -> String) {
    if !ok { fatalError("rule broken: \(words())") }
}

/// A mistake names the file, and a line that is in it.
func checkError(_ error: ConfigError, lines: Int) {
    check(error.file == "fuzz.conf", "the error names \(error.file)")
    if let line = error.line { check((1...max(1, lines)).contains(line), "line \(line) of \(lines)") }
    check(!error.words.isEmpty, "an error with no words")
    check(error.description.hasPrefix("fuzz.conf"), "description \(error.description)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).count

    do {
        let ini = try INI.parse(text, file: "fuzz.conf")
        let names = ini.sections.map(\.name)
        check(Set(names).count == names.count, "a section twice: \(names)")
        for s in ini.sections {
            check(!s.name.isEmpty, "an empty section name")
            check((1...lines).contains(s.line), "section line \(s.line) of \(lines)")
            let keys = s.entries.map(\.key)
            check(Set(keys).count == keys.count, "a key twice in [\(s.name)]")
            for e in s.entries {
                check(!e.key.isEmpty && e.key == e.key.trimmed, "key \"\(e.key)\"")
                check(e.value == e.value.trimmed, "value \"\(e.value)\" not trimmed")
                check(e.line >= s.line && e.line <= lines, "entry line \(e.line)")
            }
        }
    } catch {
        checkError(error, lines: lines)
    }

    do {
        let config = try BodyConfig.parse(text, file: "fuzz.conf")
        check(BodyConfig.silenceRange.contains(config.silence), "silence \(config.silence)")
        check(config.name.count <= 64 && !config.name.isEmpty, "name \"\(config.name)\"")
        check(!config.listenHost.isEmpty && !config.gpsdHost.isEmpty, "an empty host")
        check((1...120).contains(config.cameraFPS), "fps \(config.cameraFPS)")
        check((1...8192).contains(config.cameraWidth) && (1...8192).contains(config.cameraHeight), "camera size")
        if let url = config.orielURL { check(url.hasPrefix("http://") || url.hasPrefix("https://"), "oriel url \(url)") }
        check(config.boardFile.map { !$0.isEmpty } ?? true, "an empty board file")
    } catch {
        checkError(error, lines: lines)
    }

    do {
        let board = try BoardConfig.parse(text, file: "fuzz.conf")
        check(board.outputs[.lamp] != nil && board.outputs[.armedLED] != nil, "a required output is missing")
        check(board.buttons[.onair] != nil, "the On Air button is missing")
        let names = board.lines.map(\.wiring.name)
        check(Set(names).count == names.count, "a line used twice: \(names)")
        check(names.allSatisfy { !$0.isEmpty }, "an empty line name")
        for (_, wiring) in board.buttons {
            check(BoardConfig.debounceRange.contains(wiring.debounce), "debounce \(wiring.debounce)")
        }
    } catch {
        checkError(error, lines: lines)
    }
    return 0
}
