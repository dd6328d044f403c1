/// A duration as a file writes it: a number and its unit, `10ms`, `0.4s`,
/// `60s`, `5min`. A bare number is refused: libgpiod's tools read `10` as
/// milliseconds and a reader of `silence = 60` thinks seconds, so either
/// reading surprises someone (docs/decisions.md).
enum WrittenDuration {
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

    /// Seconds as a file would write them, in the largest unit that keeps them whole.
    static func written(_ seconds: Double) -> String {
        for u in units.reversed() {
            let n = seconds * u.over / u.times
            if n >= 1 || u.name == "ms", n == n.rounded() { return "\(Int(n))\(u.name)" }
        }
        return "\(seconds)s"
    }

    struct Refused: Error {
        var words: String
        init(_ words: String) { self.words = words }
    }
}
