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
              // Absent: 0.6; present but not a number: nil.
              let gap = query["gap"].map(Self.seconds) ?? 0.6, gap >= 0.05, gap <= 10 else {
            return .failure(SimPressRefused(words: "presses must be 1 to 10 and gap 0.05 to 10 seconds"))
        }
        return .success(SimPressQuery(button: button, presses: presses, gap: gap))
    }

    /// `Double(text)`, read here when it is plain digits with at most one point and
    /// 15 digits ("0.45"): both parts are then whole doubles and one division rounds
    /// as `Double` does. Anything else goes to `Double` (its parse would be most
    /// of a press's query's cost).
    static func seconds(_ text: Substring) -> Double? {
        var whole: UInt64 = 0
        var digits = 0
        var after = -1  // digits after the point; -1: no point
        for byte in text.utf8 {
            if byte == UInt8(ascii: "."), after < 0 {
                after = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                whole = whole * 10 + UInt64(byte - UInt8(ascii: "0"))
                digits += 1
                if after >= 0 { after += 1 }
            } else {
                return Double(text)
            }
            if digits > 15 { return Double(text) }
        }
        guard after != 0, digits > (after < 0 ? 0 : after) else { return Double(text) }
        return after <= 0 ? Double(whole) : Double(whole) / Self.powersOfTen[after]
    }

    /// 10^0 to 10^15, each exact.
    private static let powersOfTen: [Double] = (0...15).map { (0..<$0).reduce(1.0) { r, _ in r * 10 } }
}

/// Why a `/sim/press` query was refused, in words.
package struct SimPressRefused: Error, Equatable, Sendable {
    package var words: String
}
