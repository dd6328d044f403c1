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

    @Test("equal when the same roles say the same")
    func equality() {
        let a: RoleTable<ButtonRole, Int> = [.onair: 1, .kill: 2]
        #expect(a == [.kill: 2, .onair: 1])
        #expect(a != [.onair: 1])
        #expect(a != [.onair: 1, .kill: 3])
        #expect(a != [.onair: 1, .kill: 2, .camera: 0])
    }
}
