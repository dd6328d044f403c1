import Testing
import BodyCore

@Suite("the URL the hello tells Oriel")
struct BodyURLTests {
    @Test("[body] url wins over everything")
    func configured() {
        let c = BodyURL.choose(configured: "http://booth.example:9000", announcedHost: "studio.local",
                               listenHost: "0.0.0.0", hostName: "studio", port: 8790, tls: true)
        #expect(c.url == "http://booth.example:9000" && c.source == .configured)
    }

    @Test("a body serving HTTPS tells Oriel an https URL, by every source but [body] url")
    func https() {
        #expect(BodyURL.choose(configured: nil, announcedHost: "studio.local", listenHost: "0.0.0.0", hostName: "studio", port: 8790, tls: true).url == "https://studio.local:8790")
        #expect(BodyURL.choose(configured: nil, announcedHost: nil, listenHost: "192.168.1.20", hostName: "studio", port: 8790, tls: true).url == "https://192.168.1.20:8790")
        #expect(BodyURL.choose(configured: nil, announcedHost: nil, listenHost: "::", hostName: "studio", port: 8790, tls: true).url == "https://studio:8790")
    }

    @Test("announced over mDNS and listening everywhere: Avahi's host name", arguments: ["0.0.0.0", "::"])
    func announced(listen: String) {
        let c = BodyURL.choose(configured: nil, announcedHost: "studio-2.local", listenHost: listen, hostName: "studio", port: 8790, tls: false)
        #expect(c.url == "http://studio-2.local:8790" && c.source == .announced)
    }

    @Test("not announced: the bare host name, as before")
    func notAnnounced() {
        let c = BodyURL.choose(configured: nil, announcedHost: nil, listenHost: "0.0.0.0", hostName: "studio", port: 8790, tls: false)
        #expect(c.url == "http://studio:8790" && c.source == .hostName)
        #expect(BodyURL.choose(configured: nil, announcedHost: "", listenHost: "0.0.0.0", hostName: nil, port: 1, tls: false).url == "http://localhost:1")
    }

    @Test("one address: that address, announced or not (the name may resolve to others)")
    func oneAddress() {
        let v4 = BodyURL.choose(configured: nil, announcedHost: "studio.local", listenHost: "192.168.1.20", hostName: "studio", port: 8790, tls: false)
        #expect(v4.url == "http://192.168.1.20:8790" && v4.source == .listenAddress)
        let v6 = BodyURL.choose(configured: nil, announcedHost: nil, listenHost: "fd00::20", hostName: "studio", port: 8790, tls: false)
        #expect(v6.url == "http://[fd00::20]:8790")
    }
}
