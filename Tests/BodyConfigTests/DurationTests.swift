import Testing
@testable import BodyConfig

@Suite("durations carry their unit: ms, s or min")
struct DurationTests {
    @Test("a number and its unit is seconds", arguments: [
        ("10ms", 0.010), ("0ms", 0), ("100ms", 0.100), ("2.5ms", 0.0025),
        ("0.4s", 0.4), ("60s", 60), ("5s", 5), (".5s", 0.5),
        ("5min", 300), ("1.5min", 90), ("60min", 3600),
        ("10 ms", 0.010), ("10MS", 0.010), ("60S", 60), ("5Min", 300),
    ])
    func seconds(text: String, seconds: Double) throws {
        #expect(try WrittenDuration.seconds(text) == seconds)
    }

    @Test("a duration that cannot be read says how to write it", arguments: [
        ("10", "10 has no unit: write 10ms, 10s or 10min"),
        ("0.4", "0.4 has no unit: write 0.4ms, 0.4s or 0.4min"),
        ("5m", "5m could be minutes or milliseconds: write 5min or 5ms"),
        ("10sec", "unknown unit sec in 10sec: write ms, s or min, such as 10s"),
        ("1h", "unknown unit h in 1h: write ms, s or min, such as 1s"),
        ("1e3ms", "unknown unit e3ms in 1e3ms: write ms, s or min, such as 1s"),
        ("ms", "expected a number and its unit (ms, s or min) such as 10ms or 60s, found ms"),
        ("", "expected a number and its unit (ms, s or min) such as 10ms or 60s, found "),
        ("-5ms", "expected a number and its unit (ms, s or min) such as 10ms or 60s, found -5ms"),
        ("1.2.3s", "expected a number and its unit (ms, s or min) such as 10ms or 60s, found 1.2.3s"),
    ])
    func refused(text: String, words: String) {
        #expect(throws: WrittenDuration.Refused.self) { try WrittenDuration.seconds(text) }
        do throws(WrittenDuration.Refused) {
            _ = try WrittenDuration.seconds(text)
        } catch {
            #expect(error.words == words)
        }
    }

    @Test("seconds are written back as a file would write them", arguments: [
        (0, "0ms"), (0.010, "10ms"), (0.100, "100ms"), (0.4, "400ms"), (0.0125, "12.5ms"),
        (1, "1s"), (5, "5s"), (5.5, "5.5s"), (90, "90s"), (60, "1min"), (3600, "60min"),
    ])
    func written(seconds: Double, text: String) {
        #expect(WrittenDuration.written(seconds) == text)
    }
}
