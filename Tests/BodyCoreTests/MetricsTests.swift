import Testing
@testable import BodyCore

private let onAir = onAirRequest("r1")

@Suite("What /metrics counts, and Prometheus's text format 0.0.4")
struct MetricsTests {
    @Test("label values escape backslash, double quote and line feed; nothing else")
    func labelEscaping() {
        #expect(Exposition.label(#"Studio "A"\B"# + "\nC") == #"Studio \"A\"\\B\nC"#)
        #expect(Exposition.label("Café, {x=1}") == "Café, {x=1}")
    }

    @Test("help texts escape backslash and line feed, and keep a quote")
    func helpEscaping() {
        #expect(Exposition.help(#"a "b" \c"# + "\nd") == #"a "b" \\c\nd"#)
    }

    @Test("numbers read as Prometheus parses them", arguments: [
        (0.0, "0"), (1, "1"), (15, "15"), (0.0025, "0.0025"), (-2, "-2"), (1e-05, "1e-05"), (1e20, "1e+20"),
        (.infinity, "+Inf"), (-.infinity, "-Inf"), (.nan, "NaN"),
    ] as [(Double, String)])
    func numbers(value: Double, text: String) {
        #expect(Exposition.number(value) == text)
    }

    @Test("a histogram counts each duration in its first bucket at or above it, cumulatively, +Inf last")
    func histogram() {
        var h = Histogram(bounds: [0.01, 0.001])
        h.observe(0.0005)
        h.observe(0.001)
        h.observe(0.25)
        h.observe(-1)
        #expect(h.bounds == [0.001, 0.01])
        #expect(h.counts == [3, 0, 1])
        #expect(h.cumulative.map(\.count) == [3, 3, 4])
        #expect(h.cumulative.map(\.le) == [0.001, 0.01, .infinity])
        #expect(h.sum == 0.2515)
        #expect(h.count == 4)
    }

    @Test("presses count by button and outcome from the core's actions; other actions count nothing")
    func presses() {
        var m = Metrics()
        for action: BodyAction in [.pressed(.onair, .armed, at: 100), .pressed(.onair, .asked(onAir), at: 100.5),
                                   .pressed(.kill, .waiting("asking"), at: 101), .pressed(.camera, .refused("no"), at: 101),
                                   .pressed(.onair, .armed, at: 102), .log("x", .info), .wakePolls,
                                   .sayHello(because: "start"), .preview(run: false, why: "closed"), .readLevel(.onair)] {
            m.count(action)
        }
        #expect(m.presses == [.init(button: .onair, outcome: .armed): 2, .init(button: .onair, outcome: .asked): 1,
                              .init(button: .kill, outcome: .waiting): 1, .init(button: .camera, outcome: .refused): 1])
    }

    @Test("each button's count of each outcome is its own: the table's places do not mix (issue 21)")
    func pressPlaces() {
        var m = Metrics()
        let outcomes: [PressOutcome] = [.armed, .asked(onAir), .waiting("asking"), .refused("no")]
        // Button i has outcome j counted i + j + 1 times: every place a different count.
        for (i, button) in ButtonRole.allCases.enumerated() {
            for (j, outcome) in outcomes.enumerated() {
                for _ in 0...(i + j) { m.count(.pressed(button, outcome, at: 100)) }
            }
        }
        for (i, button) in ButtonRole.allCases.enumerated() {
            for (j, outcome) in outcomes.enumerated() {
                #expect(m.pressCount(button, Metrics.Pressed(outcome)) == UInt64(i + j + 1))
                #expect(m.presses[.init(button: button, outcome: Metrics.Pressed(outcome))] == UInt64(i + j + 1))
            }
        }
        #expect(m.presses.count == 16)
        #expect(Metrics().presses.isEmpty)
        // The places are 0..<4 in order: a fifth outcome must widen the InlineArray<4>.
        #expect(Metrics.Pressed.allCases.map(\.slot) == Array(0..<4))
    }

    @Test("a press's item taken by a poll times press to taken once; a withdrawn one is never timed")
    func pressToTaken() throws {
        var m = Metrics()
        m.count(.pressed(.onair, .asked(onAir), at: 100))
        m.count(.pressed(.camera, .asked(request("eyes", "c1", [:])), at: 101))
        var box = Outbox(startMillis: 0)
        let r1 = try box.enqueue(onAir)
        m.count(.unanswered(id: "c1", withdrawn: true))
        m.taken([r1], at: 100.25)
        m.taken([r1], at: 101)
        m.taken([try box.enqueue(request("eyes", "c1", [:]))], at: 102)
        #expect(m.pressToTaken.count == 1)
        #expect(m.pressToTaken.sum == 0.25)
        #expect(m.unanswered == 1)
        #expect(m.withdrawn == 1)
        m.count(.unanswered(id: "w1", withdrawn: false))
        #expect(m.unanswered == 2)
        #expect(m.withdrawn == 1)
    }

    @Test("asked requests never taken nor run out are kept up to a bound, the oldest let go")
    func askedBound() throws {
        var m = Metrics()
        let n = Metrics.askedKept + 2
        for i in 0..<n { m.count(.pressed(.camera, .asked(request("eyes", "c\(i)", [:])), at: Double(i))) }
        var box = Outbox(startMillis: 0)
        m.taken([try box.enqueue(request("eyes", "c0", [:])), try box.enqueue(request("eyes", "c1", [:]))], at: 200)
        #expect(m.pressToTaken.count == 0, "the two oldest were let go")
        m.taken([try box.enqueue(request("eyes", "c2", [:]))], at: 200)
        #expect(m.pressToTaken.count == 1)
    }

    @Test("the whole answer, byte for byte")
    func wholeText() throws {
        var m = Metrics()
        m.pushed(arrived: 100, driven: 100.0009765625)
        m.pushed(arrived: 101, driven: 101.5)
        m.polled()
        m.count(.pressed(.onair, .armed, at: 102))
        m.count(.pressed(.onair, .asked(onAir), at: 103))
        m.count(.pressed(.kill, .refused("unread"), at: 104))
        var box = Outbox(startMillis: 0)
        m.taken([try box.enqueue(onAir)], at: 103.125)
        m.count(.unanswered(id: "k9", withdrawn: true))
        m.lost(edges: 3)
        m.lost(edges: 0)
        m.count(.noise(.onair, at: 105))
        m.count(.noise(.kill, at: 105.5))
        m.count(.noise(.onair, at: 106))
        m.hello(.failed)
        m.hello(.failed)
        m.hello(.answered)
        m.answered(status: 401)
        m.answered(status: 200)
        m.answered(status: 200)
        m.whereAnswered(asked: 110, answered: 112)
        let gauges = MetricsGauges(
            onAir: "asking", orielSilent: false, boardOK: true, previewRunning: false, whereWatching: true, waitingPolls: 2)
        let text = exposition(m, name: "Studio \"A\"", version: "0.9.0", gauges)
        #expect(text == wholeTextExpected)
        // Written into a buffer the agent keeps: the same text, the same storage the next time.
        var buffer: [UInt8] = []
        m.write(name: "Studio \"A\"", version: "0.9.0", gauges, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == wholeTextExpected)
        let storage = buffer.withUnsafeBufferPointer { $0.baseAddress }
        m.write(name: "Studio \"A\"", version: "0.9.0", gauges, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == wholeTextExpected)
        #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == storage)
    }

    @Test("answers by code: 200s counted apart, every code said once in order")
    func answersByCode() {
        var m = Metrics()
        for status in [404, 200, 101, 200, 500, 404, 200] { m.answered(status: status) }
        #expect(m.answers == [101: 1, 200: 3, 404: 2, 500: 1])
        let text = exposition(m, name: "s", version: "1", MetricsGauges(
            onAir: "off", orielSilent: false, boardOK: true, previewRunning: false, whereWatching: false, waitingPolls: 0))
        #expect(text.contains("""
            studio_body_http_answers_total{code="101"} 1
            studio_body_http_answers_total{code="200"} 3
            studio_body_http_answers_total{code="404"} 2
            studio_body_http_answers_total{code="500"} 1
            # HELP studio_body_on_air
            """))
    }

    @Test("an On Air word the state set does not list still shows, alone at 1")
    func unlistedWord() {
        let text = exposition(Metrics(), name: "s", version: "1", MetricsGauges(
            onAir: "new", orielSilent: true, boardOK: false, previewRunning: true, whereWatching: false, waitingPolls: 0))
        #expect(text.contains("""
            studio_body_on_air{word="asking"} 0
            studio_body_on_air{word="new"} 1
            # HELP studio_body_oriel_silent
            """))
        #expect(text.contains("studio_body_oriel_silent 1\n"))
        #expect(text.contains("studio_body_board_ok 0\n"))
        #expect(text.contains("studio_body_preview_running 1\n"))
        #expect(!text.contains("studio_body_http_answers_total{"), "no answer yet: the family has no sample")
    }
}

/// Every family in its order, with every button and outcome and each hello
/// outcome at 0 too; HTTP answers only for the codes seen.
private let wholeTextExpected = #"""
    # HELP studio_body_info This body: its name and version, always 1.
    # TYPE studio_body_info gauge
    studio_body_info{name="Studio \"A\"",version="0.9.0"} 1
    # HELP studio_body_pushes_total Pushes from Oriel (POST /face) taken.
    # TYPE studio_body_pushes_total counter
    studio_body_pushes_total 2
    # HELP studio_body_polls_total Polls of the outbox (GET /ears) by Oriel.
    # TYPE studio_body_polls_total counter
    studio_body_polls_total 1
    # HELP studio_body_presses_total Confirmed presses, by button and by what they did.
    # TYPE studio_body_presses_total counter
    studio_body_presses_total{button="onair",outcome="armed"} 1
    studio_body_presses_total{button="onair",outcome="asked"} 1
    studio_body_presses_total{button="onair",outcome="waiting"} 0
    studio_body_presses_total{button="onair",outcome="refused"} 0
    studio_body_presses_total{button="wrapup",outcome="armed"} 0
    studio_body_presses_total{button="wrapup",outcome="asked"} 0
    studio_body_presses_total{button="wrapup",outcome="waiting"} 0
    studio_body_presses_total{button="wrapup",outcome="refused"} 0
    studio_body_presses_total{button="kill",outcome="armed"} 0
    studio_body_presses_total{button="kill",outcome="asked"} 0
    studio_body_presses_total{button="kill",outcome="waiting"} 0
    studio_body_presses_total{button="kill",outcome="refused"} 1
    studio_body_presses_total{button="camera",outcome="armed"} 0
    studio_body_presses_total{button="camera",outcome="asked"} 0
    studio_body_presses_total{button="camera",outcome="waiting"} 0
    studio_body_presses_total{button="camera",outcome="refused"} 0
    # HELP studio_body_button_noise_total Blips on a button's line that ended before its bounce window did: noise, no press.
    # TYPE studio_body_button_noise_total counter
    studio_body_button_noise_total{button="onair"} 2
    studio_body_button_noise_total{button="wrapup"} 0
    studio_body_button_noise_total{button="kill"} 1
    studio_body_button_noise_total{button="camera"} 0
    # HELP studio_body_requests_unanswered_total Requests whose wait ran out before Oriel's word.
    # TYPE studio_body_requests_unanswered_total counter
    studio_body_requests_unanswered_total 1
    # HELP studio_body_requests_withdrawn_total Requests withdrawn from the outbox unanswered, before Oriel took them.
    # TYPE studio_body_requests_withdrawn_total counter
    studio_body_requests_withdrawn_total 1
    # HELP studio_body_lost_edges_total Button edges the kernel dropped (gaps in its sequence numbers).
    # TYPE studio_body_lost_edges_total counter
    studio_body_lost_edges_total 3
    # HELP studio_body_hellos_total Hellos to Oriel, by outcome.
    # TYPE studio_body_hellos_total counter
    studio_body_hellos_total{outcome="answered"} 1
    studio_body_hellos_total{outcome="failed"} 2
    # HELP studio_body_http_answers_total HTTP answers sent, by status code.
    # TYPE studio_body_http_answers_total counter
    studio_body_http_answers_total{code="200"} 2
    studio_body_http_answers_total{code="401"} 1
    # HELP studio_body_on_air The On Air value word now: 1 for the word shown, 0 for the others.
    # TYPE studio_body_on_air gauge
    studio_body_on_air{word="on"} 0
    studio_body_on_air{word="off"} 0
    studio_body_on_air{word="unknown"} 0
    studio_body_on_air{word="armed"} 0
    studio_body_on_air{word="asking"} 1
    # HELP studio_body_oriel_silent 1 while Oriel has not been heard from within the silence.
    # TYPE studio_body_oriel_silent gauge
    studio_body_oriel_silent 0
    # HELP studio_body_board_ok 1 while the board's lines are held.
    # TYPE studio_body_board_ok gauge
    studio_body_board_ok 1
    # HELP studio_body_preview_running 1 while the camera's preview runs.
    # TYPE studio_body_preview_running gauge
    studio_body_preview_running 0
    # HELP studio_body_where_watching 1 while gpsd is watched for a waiting GET /where.
    # TYPE studio_body_where_watching gauge
    studio_body_where_watching 1
    # HELP studio_body_polls_waiting Polls of the outbox waiting for an item now.
    # TYPE studio_body_polls_waiting gauge
    studio_body_polls_waiting 2
    # HELP studio_body_push_to_lines_seconds From a push's arrival to the lines driven from it.
    # TYPE studio_body_push_to_lines_seconds histogram
    studio_body_push_to_lines_seconds_bucket{le="0.0005"} 0
    studio_body_push_to_lines_seconds_bucket{le="0.001"} 1
    studio_body_push_to_lines_seconds_bucket{le="0.0025"} 1
    studio_body_push_to_lines_seconds_bucket{le="0.005"} 1
    studio_body_push_to_lines_seconds_bucket{le="0.01"} 1
    studio_body_push_to_lines_seconds_bucket{le="0.025"} 1
    studio_body_push_to_lines_seconds_bucket{le="0.05"} 1
    studio_body_push_to_lines_seconds_bucket{le="0.1"} 1
    studio_body_push_to_lines_seconds_bucket{le="0.25"} 1
    studio_body_push_to_lines_seconds_bucket{le="1"} 2
    studio_body_push_to_lines_seconds_bucket{le="+Inf"} 2
    studio_body_push_to_lines_seconds_sum 0.5009765625
    studio_body_push_to_lines_seconds_count 2
    # HELP studio_body_press_to_taken_seconds From a press that asked to the poll that carried its item to Oriel.
    # TYPE studio_body_press_to_taken_seconds histogram
    studio_body_press_to_taken_seconds_bucket{le="0.01"} 0
    studio_body_press_to_taken_seconds_bucket{le="0.025"} 0
    studio_body_press_to_taken_seconds_bucket{le="0.05"} 0
    studio_body_press_to_taken_seconds_bucket{le="0.1"} 0
    studio_body_press_to_taken_seconds_bucket{le="0.25"} 1
    studio_body_press_to_taken_seconds_bucket{le="0.5"} 1
    studio_body_press_to_taken_seconds_bucket{le="1"} 1
    studio_body_press_to_taken_seconds_bucket{le="2.5"} 1
    studio_body_press_to_taken_seconds_bucket{le="5"} 1
    studio_body_press_to_taken_seconds_bucket{le="10"} 1
    studio_body_press_to_taken_seconds_bucket{le="20"} 1
    studio_body_press_to_taken_seconds_bucket{le="+Inf"} 1
    studio_body_press_to_taken_seconds_sum 0.125
    studio_body_press_to_taken_seconds_count 1
    # HELP studio_body_where_answer_seconds From a GET /where to its answer.
    # TYPE studio_body_where_answer_seconds histogram
    studio_body_where_answer_seconds_bucket{le="0.01"} 0
    studio_body_where_answer_seconds_bucket{le="0.05"} 0
    studio_body_where_answer_seconds_bucket{le="0.1"} 0
    studio_body_where_answer_seconds_bucket{le="0.25"} 0
    studio_body_where_answer_seconds_bucket{le="0.5"} 0
    studio_body_where_answer_seconds_bucket{le="1"} 0
    studio_body_where_answer_seconds_bucket{le="2.5"} 1
    studio_body_where_answer_seconds_bucket{le="5"} 1
    studio_body_where_answer_seconds_bucket{le="10"} 1
    studio_body_where_answer_seconds_bucket{le="15"} 1
    studio_body_where_answer_seconds_bucket{le="30"} 1
    studio_body_where_answer_seconds_bucket{le="+Inf"} 1
    studio_body_where_answer_seconds_sum 2
    studio_body_where_answer_seconds_count 1

    """#

/// The `/metrics` answer as text, through the one writer the agent uses.
private func exposition(_ m: Metrics, name: String, version: String, _ now: MetricsGauges) -> String {
    var bytes: [UInt8] = []
    m.write(name: name, version: version, now, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}
