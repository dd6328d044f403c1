import Testing
import BodyCore

@Suite("Say it once until it changes: the one RepeatFilter")
struct RepeatFilterTests {
    @Test("a message is said once, its repeats counted and said with it after the window")
    func repeats() {
        var filter = RepeatFilter(window: 60)
        #expect(filter.say("limit reached", at: 0) == "limit reached")
        #expect(filter.say("limit reached", at: 1) == nil)
        #expect(filter.say("limit reached", at: 59) == nil)
        #expect(filter.say("other", at: 59) == "other")
        #expect(filter.say("limit reached", at: 60) == "limit reached (and 2 more like it since the last time it was said)")
        #expect(filter.say("limit reached", at: 121) == "limit reached")
    }

    @Test("lines whose words a client chooses repeat by their key, not their words")
    func keyed() {
        var filter = RepeatFilter(window: 60)
        #expect(filter.say("http: GET /a0 401", key: "GET 401", at: 0) == "http: GET /a0 401")
        #expect(filter.say("http: GET /a1 401", key: "GET 401", at: 1) == nil)
        #expect(filter.say("http: POST /a2 401", key: "POST 401", at: 2) == "http: POST /a2 401")
        #expect(filter.remembered == 2)
    }

    @Test("the filter stays bounded however many different lines come")
    func bounded() {
        var filter = RepeatFilter(window: 60)
        for i in 0..<1_000 { _ = filter.say("line \(i)", at: Double(i) / 1_000) }
        #expect(filter.remembered <= 64)
        #expect(filter.say("line 999", at: 1) == nil, "the newest is still remembered")
    }

    @Test("a subject's fault is said once until it changes, however often it comes; a change is said at once")
    func untilItChanges() {
        var faults = RepeatFilter()
        #expect(faults.say("gpio: gpiochip0 gone", about: "board", at: 100) == "gpio: gpiochip0 gone")
        #expect(faults.say("gpio: gpiochip0 gone", about: "board", at: 101) == nil)
        #expect(faults.say("gpio: gpiochip0 gone", about: "board", at: 100_000) == nil, "no window: never again while it lasts")
        #expect(faults.say("gpio: line busy", about: "board", at: 100_001) == "gpio: line busy")
        #expect(faults.say("gpio: gpiochip0 gone", about: "board", at: 100_002) == "gpio: gpiochip0 gone",
                "the fault said before the last one is a change again")
        #expect(faults.say("systemd: cannot send WATCHDOG=1", about: "notify", at: 100_003) == "systemd: cannot send WATCHDOG=1",
                "subjects do not hide each other")
    }

    @Test("a cleared fault is said again, the same words or not; clear says whether one was said")
    func cleared() {
        var faults = RepeatFilter()
        #expect(faults.clear("gpsd") == false, "nothing was said: no recovery to say")
        #expect(faults.say("where: refused", about: "gpsd", at: 0) == "where: refused")
        #expect(faults.clear("gpsd") == true)
        #expect(faults.clear("gpsd") == false)
        #expect(faults.say("where: refused", about: "gpsd", at: 1) == "where: refused")
    }

    @Test("a fault whose words change each time is said once by its key")
    func garbledByKey() {
        var faults = RepeatFilter()
        #expect(faults.say("sent \"x1\"", key: "garbage", about: "gpsd", at: 0) == "sent \"x1\"")
        #expect(faults.say("sent \"x2\"", key: "garbage", about: "gpsd", at: 1) == nil)
        #expect(faults.say("stopped answering", about: "gpsd", at: 2) == "stopped answering")
        #expect(faults.say("sent \"x3\"", key: "garbage", about: "gpsd", at: 3) == "sent \"x3\"")
    }

    @Test("a subject's fault with a window is said again after it, with its count")
    func subjectWindow() {
        var faults = RepeatFilter(window: 10)
        #expect(faults.say("down", about: "hub", at: 0) == "down")
        #expect(faults.say("down", about: "hub", at: 5) == nil)
        #expect(faults.say("down", about: "hub", at: 10) == "down (and 1 more like it since the last time it was said)")
    }
}
