import Testing
@testable import BodyCore

@Suite("RoleTable: a value a role, by the role's place, no dictionary")
struct RoleTableTests {
    @Test("every role of each kind has a place of its own within the table")
    func places() {
        #expect(Set(OutputRole.allCases.map(\.slot)).count == OutputRole.allCases.count)
        #expect(Set(ButtonRole.allCases.map(\.slot)).count == ButtonRole.allCases.count)
        #expect(OutputRole.allCases.allSatisfy { (0..<RoleTable<OutputRole, Bool>.capacity).contains($0.slot) })
        #expect(ButtonRole.allCases.allSatisfy { (0..<RoleTable<ButtonRole, Bool>.capacity).contains($0.slot) })
    }

    @Test("set, read, cleared, counted; an unknown level is a value, not an absence")
    func values() {
        var lines: RoleTable<OutputRole, Bool?> = [.lamp: true, .eyeLED: nil]
        #expect(lines.count == 2)
        #expect(lines[.lamp] == .some(true))
        #expect(lines[.eyeLED] == .some(nil))
        #expect(lines[.armedLED] == nil)
        lines[.lamp] = nil
        #expect(lines.count == 1)
        #expect(RoleTable<ButtonRole, Int>([.kill: 3, .camera: 4])[.camera] == 4)
    }

    @Test("empty, and each value walked in the roles' order")
    func walk() {
        var t = RoleTable<ButtonRole, Int>()
        #expect(t.isEmpty)
        t[.camera] = 4
        t[.onair] = 1
        t[.kill] = 3
        #expect(!t.isEmpty)
        var walked: [Int] = []
        t.forEachValue { walked.append($0) }
        #expect(walked == [1, 3, 4])
    }

    @Test("roles are equal and hashed by their case: a dictionary keyed by them finds each")
    func hashedByCase() {
        #expect(Set(ButtonRole.allCases).count == ButtonRole.allCases.count)
        #expect(Set(OutputRole.allCases).count == OutputRole.allCases.count)
        for role in ButtonRole.allCases {
            #expect(ButtonRole(rawValue: role.rawValue) == role)
            #expect(ButtonRole(rawValue: role.rawValue)?.hashValue == role.hashValue)
            #expect(ButtonRole.allCases.filter { $0 == role }.count == 1)
        }
        for role in OutputRole.allCases { #expect(OutputRole(rawValue: role.rawValue) == role) }
        let names = Dictionary(uniqueKeysWithValues: ButtonRole.allCases.map { ($0, $0.rawValue) })
        #expect(ButtonRole.allCases.allSatisfy { names[$0] == $0.rawValue })
    }

    @Test("equal when the same roles say the same")
    func equality() {
        let a: RoleTable<ButtonRole, Int> = [.onair: 1, .kill: 2]
        #expect(a == [.kill: 2, .onair: 1])
        #expect(a != [.onair: 1])
        #expect(a != [.onair: 1, .kill: 3])
        #expect(a != [.onair: 1, .kill: 2, .camera: 0])
    }
}
