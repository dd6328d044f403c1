import Testing
@testable import BodyCore

@Suite("the pin: sha256: and the base64 SHA-256 of a public key (issue 19)")
struct TLSPinTests {
    // openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 of a test key.
    static let hex = "d5418bb8c6a4b693050427f1c321c1fc609db60c61b94ee2cce5e2a65283ccea"
    static var digest: [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { i in
            UInt8(hex.dropFirst(i).prefix(2), radix: 16)!
        }
    }

    @Test("written as sha256: and base64, and as curl's sha256//")
    func written() throws {
        let pin = try #require(TLSPin(digest: Self.digest))
        #expect(pin.description == "sha256:1UGLuMaktpMFBCfxwyHB/GCdtgxhuU7izOXiplKDzOo=")
        #expect(pin.curl == "sha256//1UGLuMaktpMFBCfxwyHB/GCdtgxhuU7izOXiplKDzOo=")
        #expect(try TLSPin.parse(pin.description).get() == pin)
        #expect(try TLSPin.parse(" " + pin.curl + " ").get() == pin)
    }

    @Test("a digest that is not 32 bytes is no pin")
    func length() {
        #expect(TLSPin(digest: [1, 2, 3]) == nil)
        #expect(TLSPin(digest: Array(repeating: 0, count: 33)) == nil)
    }

    @Test("RFC 4648's vectors", arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test("base64 that is not refuses", arguments: ["Zg=", "Z===", "Zg==Zg==", "Zm9v!", "=Zg="])
    func refused(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}

@Suite("the names in the body's certificate")
struct CertificateNamesTests {
    @Test("the host name, its .local, Avahi's own, [body] url's host, localhost, then the addresses, each once")
    func names() {
        let n = CertificateNames.choose(hostName: "Studio", avahiHost: "studio-2.local.", configuredURL: "https://booth.example:9000/x",
                                        addresses: ["127.0.0.1", "192.168.1.20", "::1", "127.0.0.1"])
        #expect(n.dns == ["studio", "studio.local", "studio-2.local", "booth.example", "localhost"])
        #expect(n.ips == ["127.0.0.1", "192.168.1.20", "::1"])
    }

    @Test("a URL naming an address puts it with the addresses; a dotted host name gets no .local")
    func address() {
        let n = CertificateNames.choose(hostName: "pi.example.org", configuredURL: "http://[fd00::20]:8790", addresses: [])
        #expect(n.dns == ["pi.example.org", "localhost"])
        #expect(n.ips == ["fd00::20"])
        #expect(CertificateNames.choose(hostName: nil, configuredURL: "nonsense", addresses: []).dns == ["localhost"])
    }

    @Test("what is an address", arguments: [("10.0.0.1", true), ("::1", true), ("256.0.0.1", false), ("1.2.3", false), ("studio", false)])
    func isAddress(text: String, address: Bool) {
        #expect(CertificateNames.isAddress(text) == address)
    }
}
