import Foundation
@testable import BodyConfig

/// A body.conf that parses: a board file is the one thing it must name.
let minimalBody = "[board]\nfile = sim\n"

/// A board file that parses: the lamp, the armed LED and the On Air button.
let minimalBoard = "[lamp]\nline = L\n[armed-led]\nline = A\n[button onair]\nline = B\n"

/// What `parse` refused, as the journal would show it; nil when it parsed.
func refusal(_ parse: () throws(ConfigError) -> Void) -> String? {
    do throws(ConfigError) {
        try parse()
        return nil
    } catch {
        return error.description
    }
}

func bodyRefusal(_ text: String, file: String = "/etc/body.conf") -> String? {
    refusal { () throws(ConfigError) in _ = try BodyConfig.parse(text, file: file) }
}

func boardRefusal(_ text: String, file: String = "pi.conf") -> String? {
    refusal { () throws(ConfigError) in _ = try BoardConfig.parse(text, file: file) }
}
