import BodyAgent
import BodyConfig
import BodyCore
import DemoHub
import BodyTLS
import BodySystem

/// `studio-body demo`: the body on the simulated board beside a small hub that
/// behaves like Oriel, so a newcomer can press the sim buttons and watch the
/// lamp follow. The hub lives in DemoHub, apart from the body's code.
enum Demo {
    static func run(port: UInt16, version: String) -> Int32 {
        let dir: String
        do { dir = try FileSystem.makeTemporaryFolder("/tmp/studio-body-demo-") } catch {
            fail("demo: cannot make a folder in /tmp: \(error.words)")
        }
        let token = (0..<24).map { _ in String("abcdefghijkmnpqrstuvwxyz23456789".randomElement()!) }.joined()
        let tokenFile = dir + "/token"
        do throws(Errno) {
            try FileSystem.create(tokenFile, mode: 0o600, writing: Array((token + "\n").utf8))
        } catch {
            removeFolder(dir)
            fail("demo: cannot write \(tokenFile): \(error.words)")
        }
        let text = """
        [body]
        name = studio
        listen = 127.0.0.1:\(port)
        token-file = \(tokenFile)
        [oriel]
        silence = 60s
        [board]
        file = sim
        """
        let config: BodyConfig
        do { config = try BodyConfig.parse(text, file: dir + "/body.conf") } catch { removeFolder(dir); fail(error.description) }
        // HTTPS, as a body on the network serves, with a certificate made in the demo's folder.
        let obtained: (identity: TLSIdentity, made: Bool)?
        do { obtained = try BodyIdentity.obtain(config, environment: [:]) } catch { removeFolder(dir); fail("demo: \(error)") }
        do {
            let agent = try Agent(AgentSetup(config: config, board: .sim, token: token, version: version,
                                             tls: obtained?.identity, tlsWords: BodyIdentity.words(config, obtained)))
            try agent.start()
            let url = "https://127.0.0.1:\(agent.port)"
            let pin = obtained?.identity.pin
            say("""

            studio-body demo: the body runs on the simulated board, with a demo hub standing in for Oriel.
            Open this in a browser, and sign in with the token below (it is never put in an address):

                \(url)/
                token: \(token)

            Press "On Air" twice (within 5 s): the first press arms (amber LED), the second asks the hub,
            the amber LED blinks while asking, and the lamp lights when the hub says On Air is on.
            The hub refuses every fourth request, to show how a refusal looks. Ctrl-C stops.
            The body serves HTTPS with its own self-signed certificate, so the browser warns
            once: Oriel trusts it by its pin, \(pin.map(String.init(describing:)) ?? "none"), and so does the demo hub.
            Chromium can trust that key alone: --ignore-certificate-errors-spki-list=\(pin?.base64 ?? "")
            curl works too:  curl --cacert \(obtained?.identity.certificateFile ?? "") -H 'Authorization: Bearer \(token)' \(url)/status

            """)
            let hub = DemoHub(bodyURL: url, token: token, pin: pin?.curl, log: { words in say(words) })
            hub.start()
            try agent.run()
            hub.stop()
            removeFolder(dir)
            return 0
        } catch {
            removeFolder(dir)
            fail(error.description)
        }
    }

    /// The demo's folder holds its token and TLS key: gone when the demo ends.
    private static func removeFolder(_ dir: String) {
        do throws(Errno) { try FileSystem.removeFolder(dir) } catch {
            say("demo: could not remove \(dir) (its token and key): \(error.words)")
        }
    }
}
