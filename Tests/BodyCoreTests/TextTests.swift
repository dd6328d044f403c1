import Testing
import BodyCore

@Suite("The text rules written once")
struct TextTests {
    @Test("trimmed drops spaces, tabs, CR and LF at both ends only", arguments: [
        ("  a b \t", "a b"), ("\tkey\r", "key"), ("MJPG", "MJPG"), ("YU  ", "YU"), ("token\n", "token"), ("   ", ""),
    ])
    func trimmed(text: String, expected: String) {
        #expect(text.trimmed == expected)
    }

    @Test("joined puts its pieces one after another")
    func joined() {
        #expect(String.joined("button ", "kill", ": ", "armed") == "button kill: armed")
        #expect(String.joined("a", "") == "a")
        #expect(String.joined("ü", "é", "\n", "", "x") == "üé\nx")
    }

    @Test("an IPv6 host goes in brackets, any other host as it is", arguments: [
        ("::1", 8790, "[::1]", "[::1]:8790"), ("127.0.0.1", 2947, "127.0.0.1", "127.0.0.1:2947"),
        ("studio.local", 80, "studio.local", "studio.local:80"),
    ])
    func bracketed(host: String, port: UInt16, bracketed: String, withPort: String) {
        #expect(HostText.bracketed(host) == bracketed)
        #expect(HostText.withPort(host, port) == withPort)
    }
}
