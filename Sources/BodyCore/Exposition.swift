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

    /// The whole text written into one byte buffer as it goes (no
    /// family's own string, no array of labels, no help or label copied to
    /// escape it, no number made a String; the text is what the
    /// family-by-family version wrote). The buffer is the caller's, reused.
    struct Writer {
        var bytes: [UInt8]
        /// The family being written, without the `studio_body_` prefix.
        private var name: StaticString = ""

        init(into buffer: [UInt8]) { bytes = buffer }

        mutating func family(_ name: StaticString, _ type: StaticString, _ help: StaticString) {
            self.name = name
            put("# HELP studio_body_")
            put(name)
            put(" ")
            // The helps are the source's own words: nothing in them to escape.
            put(help)
            put("\n# TYPE studio_body_")
            put(name)
            put(" ")
            put(type)
            put("\n")
        }

        /// One sample's name and labels, up to the space before its value;
        /// at most two labels, which is all the body's families need.
        mutating func sample(_ suffix: StaticString, _ first: (StaticString, String)?, _ second: (StaticString, String)?) {
            put("studio_body_")
            put(name)
            put(suffix)
            if let first {
                put("{")
                label(first)
                if let second {
                    put(",")
                    label(second)
                }
                put("}")
            }
            put(" ")
        }

        /// A counter's or a gauge's sample, with its labels.
        mutating func count(_ value: UInt64, _ first: (StaticString, String)? = nil, _ second: (StaticString, String)? = nil) {
            sample("", first, second)
            digits(value)
            put("\n")
        }

        mutating func flag(_ value: Bool) { count(value ? 1 : 0) }

        mutating func histogram(_ h: Histogram) {
            var running: UInt64 = 0
            for i in h.counts.indices {
                running += h.counts[i]
                let le = i < h.bounds.count ? h.bounds[i] : .infinity
                sample("_bucket", ("le", Exposition.number(le)), nil)  // a bound: a few digits, a String kept inline
                digits(running)
                put("\n")
            }
            sample("_sum", nil, nil)
            if h.sum.isFinite, h.sum != h.sum.rounded() || abs(h.sum) >= 1e15 {
                ShortestDigits.append(h.sum, to: &bytes)  // as `Exposition.number`'s String(d), made no String
            } else {
                bytes.append(contentsOf: Exposition.number(h.sum).utf8)
            }
            put("\n")
            sample("_count", nil, nil)
            digits(h.count)
            put("\n")
        }

        private mutating func label(_ pair: (StaticString, String)) {
            put(pair.0)
            put("=\"")
            escaped(pair.1)
            put("\"")
        }

        private mutating func put(_ s: StaticString) {
            s.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        /// A whole number's decimal digits, written straight in (no String).
        private mutating func digits(_ n: UInt64) {
            var width = 1
            var rest = n / 10
            while rest > 0 { width += 1; rest /= 10 }
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
            var v = n
            for i in stride(from: start + width - 1, through: start, by: -1) {
                bytes[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
        }

        /// As `Exposition.label`, appended in place; a text with nothing to
        /// escape is copied whole.
        private mutating func escaped(_ s: String) {
            guard s.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || $0 == 0x22 }) else {
                bytes.append(contentsOf: s.utf8)
                return
            }
            for c in s.utf8 {
                switch c {
                case 0x5C: put("\\\\")
                case 0x22: put("\\\"")
                case 0x0A: put("\\n")
                default: bytes.append(c)
                }
            }
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
    /// a rate sees the first one), the gauges and the histograms, written
    /// into the caller's buffer, emptied first and kept at its capacity: a
    /// scrape reuses the agent's buffer.
    public func write(name: String, version: String, _ now: MetricsGauges, into buffer: inout [UInt8]) {
        var w = Exposition.Writer(into: [])
        swap(&w.bytes, &buffer)
        w.bytes.removeAll(keepingCapacity: true)
        if w.bytes.capacity < 8192 { w.bytes.reserveCapacity(8192) }
        w.family("info", "gauge", "This body: its name and version, always 1.")
        w.count(1, ("name", name), ("version", version))
        w.family("pushes_total", "counter", "Pushes from Oriel (POST /face) taken.")
        w.count(pushes)
        w.family("polls_total", "counter", "Polls of the outbox (GET /ears) by Oriel.")
        w.count(polls)
        w.family("presses_total", "counter", "Confirmed presses, by button and by what they did.")
        for button in ButtonRole.allCases {
            for outcome in Pressed.allCases {
                w.count(pressCount(button, outcome),
                        ("button", button.rawValue), ("outcome", outcome.rawValue))
            }
        }
        w.family("button_noise_total", "counter", "Blips on a button's line that ended before its bounce window did: noise, no press.")
        for button in ButtonRole.allCases { w.count(noise[button] ?? 0, ("button", button.rawValue)) }
        w.family("requests_unanswered_total", "counter", "Requests whose wait ran out before Oriel's word.")
        w.count(unanswered)
        w.family("requests_withdrawn_total", "counter", "Requests withdrawn from the outbox unanswered, before Oriel took them.")
        w.count(withdrawn)
        w.family("lost_edges_total", "counter", "Button edges the kernel dropped (gaps in its sequence numbers).")
        w.count(lostEdges)
        w.family("hellos_total", "counter", "Hellos to Oriel, by outcome.")
        for outcome in Hello.allCases { w.count(hellos[outcome] ?? 0, ("outcome", outcome.rawValue)) }
        w.family("http_answers_total", "counter", "HTTP answers sent, by status code.")
        // The codes in order without sorting them into an array: a handful of them.
        var code = answerCode(after: nil)
        while let c = code {
            w.count(answerCount(c), ("code", String(c)))
            code = answerCode(after: c)
        }
        w.family("on_air", "gauge", "The On Air value word now: 1 for the word shown, 0 for the others.")
        for word in OnAirSwitch.values { w.count(word == now.onAir ? 1 : 0, ("word", word)) }
        if !OnAirSwitch.values.contains(now.onAir) { w.count(1, ("word", now.onAir)) }
        w.family("oriel_silent", "gauge", "1 while Oriel has not been heard from within the silence.")
        w.flag(now.orielSilent)
        w.family("board_ok", "gauge", "1 while the board's lines are held.")
        w.flag(now.boardOK)
        w.family("preview_running", "gauge", "1 while the camera's preview runs.")
        w.flag(now.previewRunning)
        w.family("where_watching", "gauge", "1 while gpsd is watched for a waiting GET /where.")
        w.flag(now.whereWatching)
        w.family("polls_waiting", "gauge", "Polls of the outbox waiting for an item now.")
        w.count(UInt64(max(0, now.waitingPolls)))
        w.family("push_to_lines_seconds", "histogram", "From a push's arrival to the lines driven from it.")
        w.histogram(pushToLines)
        w.family("press_to_taken_seconds", "histogram", "From a press that asked to the poll that carried its item to Oriel.")
        w.histogram(pressToTaken)
        w.family("where_answer_seconds", "histogram", "From a GET /where to its answer.")
        w.histogram(whereAnswer)
        swap(&w.bytes, &buffer)
    }
}
