import BodyCore

// The push path as POST /face takes it: bytes -> JSONBytes -> Body.push -> the
// status document, with the house's rules checked after every step
// (docs/reliability.md); beside it JSON.parse of the same bytes, which JSONBytes
// must agree with, and a push of that value written plainly (JSONOut), which
// must leave the same body.
//
// The input is a script, one step a line:
//   `p` + o|w|k|c   a press and release of onair, wrapup, kill or camera
//   `t` + digits    let that many tenths of a second pass (a tick)
//   `a` + digits    Oriel's poll of /ears with after = that number
//   anything else   a push: the line's bytes as POST /face would get them
//                   (taken only without a trailing comma; JSONOut's bytes of it read back the same)
// Every step also moves the clock 0.05 s, so the body's timers run out too.
// At most 32 steps an input.

let extras = StatusExtras(
    lines: [.lamp: true, .armedLED: false, .eyeLED: nil],
    held: [.onair: (held: false, stuck: false)],
    location: .init(allowed: false, watching: false),
    previewRunning: false, previewWords: "fuzz", board: .init(kind: "sim", ok: true, problem: nil))

func check(_ ok: Bool, _ words: @autoclosure () -> String) {
    if !ok { fatalError("rule broken: \(words())") }
}

func number(_ bytes: ArraySlice<UInt8>) -> Int {
    var n = 0
    for b in bytes.prefix(6) where (0x30...0x39).contains(b) { n = n * 10 + Int(b - 0x30) }
    return n
}

/// A plain reading of RFC 8259's grammar on one point: a comma, outside a
/// string, whose next byte but spaces closes an object or array.
func hasTrailingComma(_ bytes: ArraySlice<UInt8>) -> Bool {
    var inString = false, escaped = false, afterComma = false
    for c in bytes {
        if inString {
            if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
            continue
        }
        if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { continue }
        if afterComma && (c == 0x5D || c == 0x7D) { return true }
        afterComma = c == 0x2C
        if c == 0x22 { inString = true }
    }
    return false
}

/// The house's invariants on one body at one moment, read from the status
/// document as `GET /status` writes it (`Body.writeStatus`), parsed back.
func checkRules(_ body: Body, at now: Moment) {
    let state = body.state
    var bytes: [UInt8] = []
    JSONOut.write(into: &bytes) { body.writeStatus(at: now, extras, to: &$0) }
    guard let doc = try? JSON.parse(bytes), let onair = doc["onair"], let value = onair["value"]?.string else {
        fatalError("the status document did not read back: \(String(decoding: bytes, as: UTF8.self))")
    }
    check(value == body.onAirValue(at: now), "value \(value) in the document, \(body.onAirValue(at: now)) in the rules")
    check(["on", "off", "unknown", "armed", "asking"].contains(value), "value word \(value)")
    if state.isUnread {
        check(value != "off" && value != "on", "value \(value) while unread")
        check(state.unreadWords?.isEmpty == false, "unread with no words")
        check(onair["on"] == .null, "on is \(String(describing: onair["on"])) while unread")
        check(state.stage == nil, "a stage while unread")
    } else {
        check(onair["unread"] == .null, "unread words while read")
    }
    if value == "off" { check(state.on == false, "off while on is \(String(describing: state.on))") }
    if value == "on" { check(state.on == true, "on while on is \(String(describing: state.on))") }
    if state.on != true { check(state.stage == nil, "a stage while not on") }
    check((state.reason?.count ?? 0) <= 160, "reason of \(state.reason?.count ?? 0) characters")
    check((state.since?.count ?? 0) <= 40, "since of \(state.since?.count ?? 0) characters")
    check((state.by?.count ?? 0) <= 24, "by of \(state.by?.count ?? 0) characters")
    check(body.eyes.names.count <= 6, "\(body.eyes.names.count) names")
    // The outbox's seqs only grow.
    let seqs = body.outbox.items.map(\.seq)
    check(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "outbox seqs \(seqs)")
    let kill = doc["eyes"]?["kill"]?.string
    check(kill == "ready" || kill == "armed" || kill == "asking", "kill \(String(describing: kill))")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var now = Moment(100)
    var body = Body(settings: BodySettings(name: "studio"), at: now)
    for b in ButtonRole.allCases { body.wire(b, down: false, at: now.mono) }
    var ids = 0
    let next = { () -> String in ids += 1; return "id-\(ids)" }
    checkRules(body, at: now)
    let lines = input.split(separator: 0x0A, omittingEmptySubsequences: true).prefix(32)
    for line in lines {
        now = now.after(0.05)
        let before = body
        // What a press or a tick brought about: only what it left is checked.
        var brought: [BodyAction] = []
        switch line.first {
        case UInt8(ascii: "p"):
            let role: ButtonRole
            switch line.dropFirst().first {
            case UInt8(ascii: "w"): role = .wrapup
            case UInt8(ascii: "k"): role = .kill
            case UInt8(ascii: "c"): role = .camera
            default: role = .onair
            }
            body.edge(ButtonEdge(button: role, pressed: true, at: now.mono), at: now, ids: next, into: &brought)
            now = now.after(0.1)
            body.edge(ButtonEdge(button: role, pressed: false, at: now.mono), at: now, ids: next, into: &brought)
            // A press only asks (rule 1): it never moves the state, though a
            // silence noticed on the way may make it unread.
            check(body.state == before.state || body.state.isUnread, "a press moved the state")
        case UInt8(ascii: "t"):
            now = now.after(Double(number(line.dropFirst())) / 10)
            body.tick(at: now, ids: next, into: &brought)
            check(body.state == before.state || body.state.isUnread, "a tick moved the state to \(body.state)")
        case UInt8(ascii: "a"):
            _ = body.poll(after: UInt64(number(line.dropFirst())), at: now)
        default:
            // POST /face reads the push where it lies (JSONBytes): refused in the
            // same words as JSON.parse, or the same value; pushed, it leaves the
            // body as a push of that value written plainly does.
            let read = Result { () throws(JSONParseError) in try JSONBytes.parse(Array(line)) }
            guard let json = try? JSON.parse(Array(line)) else {
                let refused = Result { () throws(JSONParseError) in try JSON.parse(Array(line)) }
                if case .failure(let a) = refused, case .failure(let b) = read {
                    check(a == b, "JSONBytes refused \(String(decoding: line, as: UTF8.self)) as \(b), not \(a)")
                } else {
                    fatalError("JSONBytes took what JSON.parse refused: \(String(decoding: line, as: UTF8.self))")
                }
                break
            }
            guard case .success(let view) = read else { fatalError("JSONBytes refused what JSON.parse took: \(read)") }
            check(view.json == json, "JSONBytes read \(view.json), not \(json)")
            // Strict on syntax (issue 19); and what JSONOut writes of a value reads back as it.
            check(!hasTrailingComma(line), "a trailing comma was taken: \(String(decoding: line, as: UTF8.self))")
            var out = JSONOut()
            out.value(json)
            check((try? JSON.parse(out.bytes)) == json, "JSONOut wrote \(String(decoding: out.bytes, as: UTF8.self))")
            guard let plain = try? JSONBytes.parse(out.bytes) else {
                fatalError("JSONBytes refused what JSONOut wrote: \(String(decoding: out.bytes, as: UTF8.self))")
            }
            var other = body
            let otherActions = Result { () throws(PushError) in try other.push(plain, at: now) }
            defer { check(other == body, "the push of the value written plainly left another body") }
            do {
                let actions = try body.push(view, at: now)
                check(otherActions == .success(actions), "the push of the value written plainly did otherwise: \(otherActions)")
            } catch {
                check(otherActions == .failure(error), "the push of the value written plainly: \(otherActions)")
                // A refused push changes nothing.
                check(body == before, "a refused push changed the body: \(error)")
                check(json.object == nil, "an object was refused: \(error)")
            }
        }
        checkRules(body, at: now)
    }
    return 0
}
