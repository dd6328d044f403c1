import Testing
@testable import BodyAgent
import BodyHTTP

@Suite("SimPressQuery: a press's query read as values")
struct SimPressQueryTests {
    @Test("seconds reads a number exactly as Double does, plain decimals and the rest alike")
    func secondsAsDouble() {
        var texts = ["0.45", "0.6", "1", "10", "0.05", "0.049", "10.0001", "007.50", "5.", ".5", ".", "", "-0.5", "+1",
                     "1e-1", "0x1p-3", "inf", "nan", "1.2.3", "0.1234567890123", "0.12345678901234", "1234567890.12345",
                     "1234567890.123456", "9999999999999999", "0.000000000000001", " 1", "1 ", "１"]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let digits = String((0..<Int.random(in: 1...17, using: &g)).map { _ in "0123456789".randomElement(using: &g)! })
            let point = Int.random(in: 0...digits.count, using: &g)
            texts.append(String(digits.prefix(point)) + "." + String(digits.dropFirst(point)))
            texts.append(digits)
        }
        for text in texts {
            let fast = SimPressQuery.seconds(text[...])
            let slow = Double(text)
            #expect(fast?.bitPattern == slow?.bitPattern || (fast?.isNaN == true && slow?.isNaN == true), "\(text)")
        }
    }

    @Test("a query's values, its defaults and its refusals")
    func parse() throws {
        func parse(_ query: [String: String]) -> Result<SimPressQuery, SimPressRefused> {
            SimPressQuery.parse(button: "kill", HTTPFields(query))
        }
        #expect(try parse(["presses": "2", "gap": "0.45"]).get() == SimPressQuery(button: .kill, presses: 2, gap: 0.45))
        #expect(try parse([:]).get() == SimPressQuery(button: .kill, presses: 1, gap: 0.6))
        #expect(try parse(["gap": "1e-1"]).get().gap == 0.1)
        for gap in ["", "x", "0.01", "11", "nan", "5."] where Double(gap).map({ $0 < 0.05 || $0 > 10 || $0.isNaN }) ?? true {
            #expect((try? parse(["gap": gap]).get()) == nil, "gap \(gap)")
        }
        #expect((try? parse(["presses": "11"]).get()) == nil)
        #expect((try? SimPressQuery.parse(button: "door", HTTPFields([:])).get()) == nil)
    }
}
