/// What `/metrics` shows beside the counters: the state now, read by the
/// agent from the status document and its own services when scraped.
public struct MetricsGauges: Equatable, Sendable {
    /// The On Air value word (`OnAirSwitch.values`).
    public var onAir: String
    public var orielSilent: Bool
    public var boardOK: Bool
    public var previewRunning: Bool
    public var whereWatching: Bool
    public var waitingPolls: Int

    public init(onAir: String, orielSilent: Bool, boardOK: Bool, previewRunning: Bool,
                whereWatching: Bool, waitingPolls: Int) {
        self.onAir = onAir
        self.orielSilent = orielSilent
        self.boardOK = boardOK
        self.previewRunning = previewRunning
        self.whereWatching = whereWatching
        self.waitingPolls = waitingPolls
    }
}

/// Prometheus's text exposition format, version 0.0.4: `# HELP` and
/// `# TYPE` before each family, one sample a line, label values escaped.
public enum Exposition {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// A label value: backslash, double quote and line feed escaped.
    public static func label(_ value: String) -> String {
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A help text: backslash and line feed escaped (a quote is plain there).
    public static func help(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    /// A sample value as Prometheus parses it: whole numbers without a
    /// fraction, `+Inf`, `-Inf`, `NaN`.
    public static func number(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d > 0 ? "+Inf" : "-Inf" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    /// The lines of one family, ending in a line feed.
    struct Family {
        let name: String
        var text: String

        init(_ name: String, _ type: String, _ help: String) {
            self.name = name
            text = "# HELP \(name) \(Exposition.help(help))\n# TYPE \(name) \(type)\n"
        }

        mutating func sample(_ suffix: String = "", _ labels: [(String, String)] = [], _ value: String) {
            text += name + suffix
            if !labels.isEmpty {
                text += "{" + labels.map { "\($0.0)=\"\(Exposition.label($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " \(value)\n"
        }

        mutating func sample(_ labels: [(String, String)] = [], _ value: UInt64) { sample("", labels, String(value)) }
        mutating func sample(_ value: Bool) { sample("", [], value ? "1" : "0") }

        mutating func histogram(_ h: Histogram) {
            for (le, count) in h.cumulative { sample("_bucket", [("le", Exposition.number(le))], String(count)) }
            sample("_sum", [], Exposition.number(h.sum))
            sample("_count", [], String(h.count))
        }
    }
}

extension String {
    func replacingAll(_ old: Character, with new: String) -> String {
        var out = ""
        for c in self { if c == old { out += new } else { out.append(c) } }
        return out
    }
}

extension Metrics {
    /// The whole `/metrics` answer: this body's name and version, every
    /// counter (each button and outcome, each hello outcome, even at 0, so
    /// a rate sees the first one), the gauges and the histograms.
    public func text(name: String, version: String, _ now: MetricsGauges) -> String {
        var families: [Exposition.Family] = []
        func family(_ name: String, _ type: String, _ help: String, _ fill: (inout Exposition.Family) -> Void) {
            var f = Exposition.Family("studio_body_" + name, type, help)
            fill(&f)
            families.append(f)
        }
        family("info", "gauge", "This body: its name and version, always 1.") {
            $0.sample([("name", name), ("version", version)], 1)
        }
        family("pushes_total", "counter", "Pushes from Oriel (POST /face) taken.") { $0.sample([], pushes) }
        family("polls_total", "counter", "Polls of the outbox (GET /ears) by Oriel.") { $0.sample([], polls) }
        family("presses_total", "counter", "Confirmed presses, by button and by what they did.") { f in
            for button in ButtonRole.allCases {
                for outcome in Pressed.allCases {
                    f.sample([("button", button.rawValue), ("outcome", outcome.rawValue)],
                             presses[PressKey(button: button, outcome: outcome)] ?? 0)
                }
            }
        }
        family("button_noise_total", "counter", "Blips on a button's line that ended before its bounce window did: noise, no press.") { f in
            for button in ButtonRole.allCases { f.sample([("button", button.rawValue)], noise[button] ?? 0) }
        }
        family("requests_unanswered_total", "counter", "Requests whose wait ran out before Oriel's word.") {
            $0.sample([], unanswered)
        }
        family("requests_withdrawn_total", "counter", "Requests withdrawn from the outbox unanswered, before Oriel took them.") {
            $0.sample([], withdrawn)
        }
        family("lost_edges_total", "counter", "Button edges the kernel dropped (gaps in its sequence numbers).") {
            $0.sample([], lostEdges)
        }
        family("hellos_total", "counter", "Hellos to Oriel, by outcome.") { f in
            for outcome in Hello.allCases { f.sample([("outcome", outcome.rawValue)], hellos[outcome] ?? 0) }
        }
        family("http_answers_total", "counter", "HTTP answers sent, by status code.") { f in
            for (code, n) in answers.sorted(by: { $0.key < $1.key }) { f.sample([("code", String(code))], n) }
        }
        family("on_air", "gauge", "The On Air value word now: 1 for the word shown, 0 for the others.") { f in
            var words = OnAirSwitch.values
            if !words.contains(now.onAir) { words.append(now.onAir) }
            for word in words { f.sample([("word", word)], word == now.onAir ? 1 : 0) }
        }
        family("oriel_silent", "gauge", "1 while Oriel has not been heard from within the silence.") { $0.sample(now.orielSilent) }
        family("board_ok", "gauge", "1 while the board's lines are held.") { $0.sample(now.boardOK) }
        family("preview_running", "gauge", "1 while the camera's preview runs.") { $0.sample(now.previewRunning) }
        family("where_watching", "gauge", "1 while gpsd is watched for a waiting GET /where.") { $0.sample(now.whereWatching) }
        family("polls_waiting", "gauge", "Polls of the outbox waiting for an item now.") {
            $0.sample([], UInt64(max(0, now.waitingPolls)))
        }
        family("push_to_lines_seconds", "histogram", "From a push's arrival to the lines driven from it.") {
            $0.histogram(pushToLines)
        }
        family("press_to_taken_seconds", "histogram", "From a press that asked to the poll that carried its item to Oriel.") {
            $0.histogram(pressToTaken)
        }
        family("where_answer_seconds", "histogram", "From a GET /where to its answer.") { $0.histogram(whereAnswer) }
        return families.map(\.text).joined()
    }
}
