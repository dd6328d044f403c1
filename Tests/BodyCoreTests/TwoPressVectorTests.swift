import Foundation
import Testing
@testable import BodyCore
import BodyTestSupport

/// Runs Tests/Vectors/twopress.json, the language-neutral form of rule 3, so
/// the Swift rule and every other implementation read the same cases.
@Suite("TwoPress against Tests/Vectors/twopress.json")
struct TwoPressVectorTests {
    static func vectors() throws -> JSON {
        let url = Repository.url("Tests/Vectors/twopress.json")
        return try JSON.parse(Array(try Data(contentsOf: url)))
    }

    /// One press rule under test: the plain rule, or a group with one control.
    struct Subject {
        var press: (Double) -> TwoPress.Press
        var armed: (Double) -> Bool
        var expire: (Double) -> Bool
        var disarm: () -> Void
    }

    final class Box<T>: @unchecked Sendable {
        var value: T
        init(_ value: T) { self.value = value }
    }

    static func plain() -> Subject {
        let rule = Box(TwoPress())
        return Subject(press: { rule.value.press(at: $0) }, armed: { rule.value.armed(at: $0) },
                       expire: { rule.value.expire(at: $0) }, disarm: { rule.value.disarm() })
    }

    static func group() -> Subject {
        let group = Box(TwoPressGroup<ButtonRole>())
        return Subject(press: { group.value.press(.onair, at: $0) },
                       armed: { group.value.isArmed(.onair, at: $0) },
                       expire: { group.value.expire(at: $0) }, disarm: { group.value.disarm(.onair) })
    }

    @Test("the file's numbers are the rule's")
    func numbers() throws {
        let v = try Self.vectors()
        #expect(v["armedFor"]?.number == TwoPress.armedFor)
        #expect(v["settle"]?.number == TwoPress.settle)
        #expect((v["cases"]?.array?.count ?? 0) >= 15)
    }

    @Test("every case runs as written", arguments: ["TwoPress", "TwoPressGroup"])
    func cases(subject: String) throws {
        let cases = try #require(try Self.vectors()["cases"]?.array)
        var steps = 0
        for c in cases {
            let name = c["name"]?.string ?? "unnamed case"
            let rule = subject == "TwoPress" ? Self.plain() : Self.group()
            for (i, step) in (c["steps"]?.array ?? []).enumerated() {
                steps += 1
                let at = "\(name), step \(i)"
                if let t = step["press"]?.number {
                    #expect(rule.press(t).rawValue == step["expect"]?.string, "\(at)")
                } else if let t = step["armed"]?.number {
                    #expect(rule.armed(t) == step["expect"]?.bool, "\(at)")
                } else if let t = step["expire"]?.number {
                    #expect(rule.expire(t) == step["expect"]?.bool, "\(at)")
                } else if step["disarm"]?.bool == true {
                    rule.disarm()
                } else {
                    Issue.record("\(at): unknown step \(step)")
                }
            }
        }
        #expect(steps >= 60)
    }
}
