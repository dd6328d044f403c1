/// A duration as a file writes it: a number and its unit, `10ms`, `0.4s`,
/// `60s`, `5min`. A bare number is refused: libgpiod's tools read `10` as
/// milliseconds and a reader of `silence = 60` thinks seconds, so either
/// reading surprises someone (docs/decisions.md).
public enum WrittenDuration {
    /// Each unit's seconds as a fraction, so `10ms` is exactly 0.010.
    static let units: [(name: String, times: Double, over: Double)] = [("ms", 1, 1000), ("s", 1, 1), ("min", 60, 1)]

    /// The seconds `text` says, or the words that say how to write it.
    static func seconds(_ text: String) throws(Refused) -> Double {
        let t = text.lowercased()
        let number = t.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unit = String(t[number.endIndex...]).trimmed
        guard let n = Double(number) else {
            throw Refused("expected a number and its unit (ms, s or min) such as 10ms or 60s, found \(text)")
        }
        if unit.isEmpty { throw Refused("\(text) has no unit: write \(number)ms, \(number)s or \(number)min") }
        if unit == "m" { throw Refused("\(text) could be minutes or milliseconds: write \(number)min or \(number)ms") }
        guard let u = units.first(where: { $0.name == unit }) else {
            throw Refused("unknown unit \(unit) in \(text): write ms, s or min, such as \(number)s")
        }
        return n * u.times / u.over
    }

    /// Seconds as a file would write them: whole minutes in min, else s from
    /// one second up, else ms. `studio-body check` says durations this way.
    public static func written(_ seconds: Double) -> String {
        let (n, unit) = seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0 ? (seconds / 60, "min")
            : seconds >= 1 ? (seconds, "s") : (seconds * 1000, "ms")
        let tidy = (n * 1e6).rounded() / 1e6
        return tidy == tidy.rounded() && abs(tidy) < 1e15 ? "\(Int(tidy))\(unit)" : "\(tidy)\(unit)"
    }

    struct Refused: Error {
        var words: String
        init(_ words: String) { self.words = words }
    }
}
