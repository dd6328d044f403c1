import BodyAgent
import BodyCore
import BodyHTTP
import BodyHardware

// `POST /sim/press?button=NAME[&presses=N&gap=S]`: the whole input is the
// query string, split on & and = as libmicrohttpd hands it over (the first of
// a repeated name wins), then routed and read as the agent reads it
// (docs/reliability.md). What is accepted must make presses whose edges stay
// in time order, each release before the next press.

func check(_ ok: Bool, _ words: @autoclosure () -> String) {
    if !ok { fatalError("rule broken: \(words())") }
}

func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var query: [String: String] = [:]
    for pair in input[...].split(separator: UInt8(ascii: "&")) {
        let eq = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
        let name = text(pair[..<eq])
        if query[name] == nil { query[name] = text(pair[eq...].dropFirst()) }
    }
    let routed = Routing.route(method: "POST", path: "/sim/press", query: query, simRoutes: true)
    guard case .success(let route) = routed else {
        check(query["button"]?.isEmpty ?? true, "a button was refused: \(routed)")
        if case .failure(let r) = routed { check(r.status == 400, "status \(r.status)") }
        return 0
    }
    guard case .simPress(let name) = route else { fatalError("/sim/press routed to \(route)") }
    check(name == query["button"], "button \(name)")
    switch SimPressQuery.parse(button: name, HTTPFields(query)) {
    case .failure(let refused):
        check(!refused.words.isEmpty, "refused with no words")
    case .success(let asked):
        check(asked.button.rawValue == name, "button \(asked.button) for \(name)")
        check((1...10).contains(asked.presses), "presses \(asked.presses)")
        check(asked.gap.isFinite && asked.gap >= 0.05 && asked.gap <= 10, "gap \(asked.gap)")
        // The agent's schedule: press i at start + i * gap, released pressLength later (at most half the gap).
        let start = 1000.0
        var last = -Double.infinity
        for i in 0..<asked.presses {
            let down = start + Double(i) * asked.gap
            let up = down + min(SimBoard.pressLength, asked.gap / 2)
            check(down > last && up - down > Contact.defaultDebounce, "press \(i) at \(down), released at \(up), after \(last)")
            last = up
        }
    }
    return 0
}
