import Testing
@testable import BodyCore

@Suite("The house's numbers, moments and roles")
struct HouseTests {
    @Test("every ruling of DESIGN 1 is its own named number")
    func rulings() {
        #expect(House.armedFor == 5)
        #expect(House.settle == 0.4)
        #expect(House.problemShownFor == 12)
        #expect(House.onAirWait == 15)
        #expect(House.wrapUpWait == 20)
        #expect(House.killWait == 15)
    }

    @Test("a moment moves both clocks together")
    func moment() {
        let m = Moment(100)
        #expect(m.wall == 1_764_500_100)
        #expect(m.after(2.5) == Moment(mono: 102.5, wall: 1_764_500_102.5))
    }

    @Test("roles sort by the names board files and /status use")
    func roles() {
        #expect(OutputRole.allCases.sorted().map(\.rawValue) == ["armed-led", "eye-led", "lamp"])
        #expect(ButtonRole.allCases.sorted().map(\.rawValue) == ["camera", "kill", "onair", "wrapup"])
    }

    @Test("a button edge carries the kernel's time")
    func edge() {
        let edge = ButtonEdge(button: .kill, pressed: true, at: 100.25)
        #expect(edge.button == .kill && edge.pressed && edge.at == 100.25)
    }
}
