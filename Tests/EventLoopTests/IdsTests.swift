import Testing
@testable import BodyAgent

@Suite("Ids")
struct IdsTests {
    @Test("an id is 16 lowercase hex digits, leading zeros kept, and a thousand are all different")
    func fresh() {
        let ids = (0..<1000).map { _ in Ids.fresh() }
        #expect(ids.allSatisfy { $0.utf8.count == 16 && $0.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } })
        #expect(Set(ids).count == 1000)
    }
}
