import Testing
import BodyCore

@Suite("What the Pi camera's feeder says to the body")
struct FeederMessageTests {
    @Test("ready and error lines read back as sent; anything else is unknown")
    func lines() {
        #expect(FeederMessage.parse("ready") == .ready)
        #expect(FeederMessage.parse("error the camera is busy") == .failed("the camera is busy"))
        #expect(FeederMessage.parse("ready now") == .unknown("ready now"))
        #expect(FeederMessage.parse("") == .unknown(""))
        #expect(FeederMessage.ready.line == "ready\n")
        #expect(FeederMessage.failed("two\nlines").line == "error two lines\n")
    }

    @Test("a stream is cut at newlines, in pieces however the bytes arrive")
    func stream() {
        var lines = FeederMessage.Lines()
        #expect(lines.take(Array("rea".utf8)).isEmpty)
        #expect(lines.take(Array("dy\nerror gone\nerr".utf8)) == [.ready, .failed("gone")])
        #expect(lines.take(Array("or late\n".utf8)) == [.failed("late")])
    }

    @Test("a line with no end is cut at the limit: a feeder cannot make the body hold more")
    func endless() {
        var lines = FeederMessage.Lines()
        let flood = [UInt8](repeating: UInt8(ascii: "x"), count: FeederMessage.Lines.limit * 3 + 5)
        let messages = lines.take(flood)
        #expect(messages.count == 3)
        #expect(messages.allSatisfy { if case .unknown(let text) = $0 { text.utf8.count == FeederMessage.Lines.limit } else { false } })
    }
}
