import BodyCore
import BodyHTTP

/// `POST /sim/press?button=NAME[&presses=N&gap=S]` read into values: which
/// button, how many presses (1 to 10) and how many seconds apart (0.05 to 10: each press held at least 25 ms, past the bounce window).
/// Pure, so the fuzz target reads queries exactly as the agent does.
package struct SimPressQuery: Equatable, Sendable {
    package var button: ButtonRole
    package var presses: Int
    package var gap: Double

    /// The query's values, or the words of the 400 answer.
    package static func parse(button name: String, _ query: HTTPFields) -> Result<SimPressQuery, SimPressRefused> {
        guard let button = ButtonRole(rawValue: name) else {
            let names = ButtonRole.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(SimPressRefused(words: "no button \"\(name)\" on the sim board; buttons: \(names)"))
        }
        guard let presses = Int(query["presses"] ?? "1"), (1...10).contains(presses),
              let gap = Double(query["gap"] ?? "0.6"), gap >= 0.05, gap <= 10 else {
            return .failure(SimPressRefused(words: "presses must be 1 to 10 and gap 0.05 to 10 seconds"))
        }
        return .success(SimPressQuery(button: button, presses: presses, gap: gap))
    }
}

/// Why a `/sim/press` query was refused, in words.
package struct SimPressRefused: Error, Equatable, Sendable {
    package var words: String
}
