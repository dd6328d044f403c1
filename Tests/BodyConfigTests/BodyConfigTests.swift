import Testing
@testable import BodyConfig
import BodyTestSupport

@Suite("body.conf: every key, every default, every mistake (DESIGN 8)")
struct BodyConfigTests {
    @Test("a file that names only its board takes every default")
    func defaults() throws {
        let c = try BodyConfig.parse(minimalBody, file: "/etc/body.conf")
        #expect(c.file == "/etc/body.conf")
        #expect(c.name == "studio")
        #expect(c.listenHost == "0.0.0.0" && c.listenPort == 8790)
        #expect(c.tokenFile == "/etc/studio-body/token")
        #expect(c.advertisedURL == nil && c.orielURL == nil)
        #expect(c.announce == true)
        #expect(c.tls == true && c.state == nil && c.orielPin == nil)
        #expect(c.silence == 60 && c.silence == BodyConfig.defaultSilence)
        #expect(c.boardFile == nil)
        #expect(c.locationAllowed == false)
        #expect(c.gpsdHost == "127.0.0.1" && c.gpsdPort == 2947)
        #expect(c.cameraDevice == nil)
        #expect(c.cameraWidth == 640 && c.cameraHeight == 480 && c.cameraFPS == 15)
    }

    @Test("DESIGN 8's example sets every key")
    func everyKey() throws {
        let c = try BodyConfig.parse("""
            [body]
            name = booth
            listen = 127.0.0.1:9000
            token-file = /run/token
            url = http://booth.local:9000
            announce = no
            tls = no
            state = /var/lib/booth
            [oriel]
            url = https://oriel.local:8787
            silence = 2min
            pin = sha256:1UGLuMakto4FBCfxwyHB/GCdtgxhuU7izOXipSg8zuo=
            [board]
            file = /usr/share/board/raspberrypi.conf
            [location]
            allowed = yes
            gpsd = gps.local:3000
            [camera]
            device = /dev/video0
            size = 1280x720
            fps = 30
            """, file: "/etc/body.conf")
        #expect(c.name == "booth")
        #expect(c.listenHost == "127.0.0.1" && c.listenPort == 9000)
        #expect(c.tokenFile == "/run/token")
        #expect(c.advertisedURL == "http://booth.local:9000")
        #expect(c.announce == false)
        #expect(c.tls == false && c.state == "/var/lib/booth")
        #expect(c.orielPin?.description == "sha256:1UGLuMakto4FBCfxwyHB/GCdtgxhuU7izOXipSg8zuo=")
        #expect(c.orielURL == "https://oriel.local:8787")
        #expect(c.silence == 120)
        #expect(c.boardFile == "/usr/share/board/raspberrypi.conf")
        #expect(c.locationAllowed == true)
        #expect(c.gpsdHost == "gps.local" && c.gpsdPort == 3000)
        #expect(c.cameraDevice == "/dev/video0")
        #expect(c.cameraWidth == 1280 && c.cameraHeight == 720 && c.cameraFPS == 30)
    }

    @Test("the shipped example parses", arguments: ["board/body.conf.example"])
    func shippedExample(path: String) throws {
        let c = try BodyConfig.parse(try Repository.text(path), file: "/etc/studio-body/body.conf")
        #expect(c.silence == 60)
        #expect(c.boardFile == "/usr/local/share/studio-body/board/raspberrypi.conf")
    }

    @Test("a board file is found beside the configuration unless absolute", arguments: [
        ("/etc/studio-body/body.conf", "pi.conf", "/etc/studio-body/pi.conf"),
        ("/etc/studio-body/body.conf", "boards/pi.conf", "/etc/studio-body/boards/pi.conf"),
        ("/etc/studio-body/body.conf", "/opt/pi.conf", "/opt/pi.conf"),
        ("body.conf", "pi.conf", "pi.conf"),
    ])
    func boardFile(config: String, file: String, resolved: String) throws {
        #expect(try BodyConfig.parse("[board]\nfile = \(file)\n", file: config).boardFile == resolved)
    }

    @Test("an address is HOST:PORT; brackets around an IPv6 host come off", arguments: [
        ("0.0.0.0:8790", "0.0.0.0", 8790), ("[::1]:8790", "::1", 8790), ("::1:80", "::1", 80),
        ("studio.local:1", "studio.local", 1), ("h:65535", "h", 65535),
    ] as [(String, String, UInt16)])
    func address(text: String, host: String, port: UInt16) throws {
        let c = try BodyConfig.parse("[body]\nlisten = \(text)\n[location]\ngpsd = \(text)\n" + minimalBody, file: "f")
        #expect(c.listenHost == host && c.listenPort == port)
        #expect(c.gpsdHost == host && c.gpsdPort == port)
    }

    @Test("allowed reads yes and no in the usual spellings", arguments: [
        ("yes", true), ("true", true), ("on", true), ("1", true), ("YES", true),
        ("no", false), ("false", false), ("off", false), ("0", false), ("No", false),
    ])
    func allowed(text: String, allowed: Bool) throws {
        #expect(try BodyConfig.parse("[location]\nallowed = \(text)\n" + minimalBody, file: "f").locationAllowed == allowed)
    }

    @Test("announce reads yes and no in the usual spellings", arguments: [
        ("yes", true), ("on", true), ("1", true), ("no", false), ("off", false), ("FALSE", false),
    ])
    func announce(text: String, announce: Bool) throws {
        #expect(try BodyConfig.parse("[body]\nannounce = \(text)\n" + minimalBody, file: "f").announce == announce)
    }

    @Test("tls reads yes and no; HTTPS is the default", arguments: [("yes", true), ("no", false), ("off", false), ("1", true)])
    func tls(text: String, tls: Bool) throws {
        #expect(try BodyConfig.parse("[body]\ntls = \(text)\n" + minimalBody, file: "f").tls == tls)
    }

    @Test("the state directory: [body] state, else systemd's STATE_DIRECTORY (its first), else the configuration's directory")
    func stateDirectory() throws {
        let set = try BodyConfig.parse("[body]\nstate = /srv/body\n" + minimalBody, file: "/etc/studio-body/body.conf")
        #expect(set.stateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/studio-body"]) == "/srv/body")
        let unset = try BodyConfig.parse(minimalBody, file: "/etc/studio-body/body.conf")
        #expect(unset.stateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/studio-body:/var/lib/other"]) == "/var/lib/studio-body")
        #expect(unset.stateDirectory(environment: [:]) == "/etc/studio-body")
        #expect(try BodyConfig.parse(minimalBody, file: "body.conf").stateDirectory(environment: [:]) == ".")
        #expect(try BodyConfig.parse(minimalBody, file: "/body.conf").stateDirectory(environment: [:]) == "/")
        #expect(try BodyConfig.parse("[body]\nstate =\n" + minimalBody, file: "/e/b.conf").stateDirectory(environment: [:]) == "/e")
    }

    @Test("Oriel's pin takes sha256: or curl's sha256// and base64")
    func orielPin() throws {
        let pin = "1UGLuMakto4FBCfxwyHB/GCdtgxhuU7izOXipSg8zuo="
        for written in ["sha256:\(pin)", "sha256//\(pin)"] {
            let c = try BodyConfig.parse("[oriel]\nurl = https://oriel\npin = \(written)\n" + minimalBody, file: "f")
            #expect(c.orielPin?.curl == "sha256//\(pin)")
        }
    }

    @Test("the name is cut at 64 characters; an empty name is the default")
    func name() throws {
        let long = String(repeating: "n", count: 70)
        #expect(try BodyConfig.parse("[body]\nname = \(long)\n" + minimalBody, file: "f").name == String(long.prefix(64)))
        #expect(try BodyConfig.parse("[body]\nname =\n" + minimalBody, file: "f").name == "studio")
    }

    @Test("Oriel's URL loses a trailing slash; an empty one is none", arguments: [
        ("http://oriel:8787/", "http://oriel:8787"), ("https://oriel", "https://oriel"), ("", nil),
    ] as [(String, String?)])
    func orielURL(text: String, url: String?) throws {
        #expect(try BodyConfig.parse("[oriel]\nurl = \(text)\n" + minimalBody, file: "f").orielURL == url)
    }

    @Test("silence carries its unit, from 5s to 60min", arguments: [
        ("5s", 5), ("60s", 60), ("90s", 90), ("5min", 300), ("60min", 3600), ("3600s", 3600), ("5000ms", 5),
    ])
    func silence(text: String, seconds: Double) throws {
        #expect(try BodyConfig.parse("[oriel]\nsilence = \(text)\n" + minimalBody, file: "f").silence == seconds)
    }

    @Test("the camera's size and fps", arguments: [
        ("640x480", 15, 640, 480), ("1920X1080", 1, 1920, 1080), ("8192x8192", 120, 8192, 8192), ("1x1", 60, 1, 1),
    ])
    func camera(size: String, fps: Int, width: Int, height: Int) throws {
        let c = try BodyConfig.parse("[camera]\nsize = \(size)\nfps = \(fps)\n" + minimalBody, file: "f")
        #expect(c.cameraWidth == width && c.cameraHeight == height && c.cameraFPS == fps)
    }

    @Test("the Pi camera's feeder socket is read with the device; none by default")
    func cameraWake() throws {
        let c = try BodyConfig.parse("[camera]\ndevice = /dev/studio-camera\nwake = /run/studio-body-picamera.sock\n" + minimalBody, file: "f")
        #expect(c.cameraDevice == "/dev/studio-camera" && c.cameraWake == "/run/studio-body-picamera.sock")
        #expect(try BodyConfig.parse("[camera]\ndevice = /dev/video0\n" + minimalBody, file: "f").cameraWake == nil)
    }

    @Test("a file that names no board is refused", arguments: [
        ("[body]\nname = a\n", "f: [board] file is missing: name a board file, or sim for the simulated board"),
        ("", "f: [board] file is missing: name a board file, or sim for the simulated board"),
        ("[body]\n[board]\n", "f:2: [board] file is missing: name a board file, or sim for the simulated board"),
        ("[board]\nfile =\n", "f:1: [board] file is missing: name a board file, or sim for the simulated board"),
    ])
    func noBoard(text: String, words: String) {
        #expect(bodyRefusal(text, file: "f") == words)
    }

    @Test("every mistake names the file, the line and how to write it", arguments: [
        ("[bodies]\n", "f:1: unknown section [bodies]; known: [board] [body] [camera] [location] [oriel]"),
        ("[body]\nport = 1\n", "f:2: unknown key port in [body]; known keys: announce, listen, name, state, tls, token-file, url"),
        ("[body]\ntls = https\n", "f:2: [body] tls: expected yes or no, found https"),
        ("[body]\nstate = var/lib\n", "f:2: [body] state: expected an absolute directory such as /var/lib/studio-body, found var/lib"),
        ("[oriel]\nurl = https://o\npin = AB:CD\n", "f:3: [oriel] pin: expected sha256: and the base64 SHA-256 of the certificate's public key, found AB:CD"),
        ("[oriel]\nurl = https://o\npin = sha256:AB:CD\n", "f:3: [oriel] pin: the pin after sha256: is not base64: AB:CD"),
        ("[oriel]\nurl = https://o\npin = sha256:AAAA\n", "f:3: [oriel] pin: the pin after sha256: is 3 bytes; a SHA-256 is 32 (44 base64 characters)"),
        ("[oriel]\nurl = http://o\npin = sha256:1UGLuMakto4FBCfxwyHB/GCdtgxhuU7izOXipSg8zuo=\n", "f:3: [oriel] pin: a pin is for an https:// url; [oriel] url is http://o"),
        ("[oriel]\npin = sha256:1UGLuMakto4FBCfxwyHB/GCdtgxhuU7izOXipSg8zuo=\n", "f:2: [oriel] pin: a pin is for an https:// url; [oriel] url is not set"),
        ("[body]\nannounce = mdns\n", "f:2: [body] announce: expected yes or no, found mdns"),
        ("[oriel]\ntimeout = 1s\n", "f:2: unknown key timeout in [oriel]; known keys: pin, silence, url"),
        ("[board]\nfile = sim\nkind = sim\n", "f:3: unknown key kind in [board]; known keys: file"),
        ("[location]\ngps = x\n", "f:2: unknown key gps in [location]; known keys: allowed, gpsd"),
        ("[camera]\nwidth = 640\n", "f:2: unknown key width in [camera]; known keys: device, fps, size, wake"),
        ("[camera]\ndevice = /dev/studio-camera\nwake = run/studio-body-picamera.sock\n",
         "f:3: [camera] wake: expected the feeder's socket as an absolute path such as /run/studio-body-picamera.sock, found run/studio-body-picamera.sock"),
        ("[camera]\nwake = /run/studio-body-picamera.sock\n",
         "f:2: [camera] wake: wake needs a device: the loopback node the feeder fills, such as device = /dev/studio-camera"),
        ("[body]\nlisten = 8790\n", "f:2: [body] listen: expected HOST:PORT such as 0.0.0.0:8790, found 8790"),
        ("[body]\nlisten = 0.0.0.0:notaport\n", "f:2: [body] listen: expected HOST:PORT such as 0.0.0.0:8790, found 0.0.0.0:notaport"),
        ("[body]\nlisten = h:65536\n", "f:2: [body] listen: expected HOST:PORT such as 0.0.0.0:8790, found h:65536"),
        ("[body]\nlisten = :8790\n", "f:2: [body] listen: the host is missing in :8790"),
        ("[body]\nlisten = []:8790\n", "f:2: [body] listen: the host is missing in []:8790"),
        ("[location]\ngpsd = localhost\n", "f:2: [location] gpsd: expected HOST:PORT such as 0.0.0.0:8790, found localhost"),
        ("[location]\nallowed = maybe\n", "f:2: [location] allowed: expected yes or no, found maybe"),
        ("[oriel]\nurl = oriel.local:8787\n", "f:2: [oriel] url: expected an http:// or https:// URL, found oriel.local:8787"),
        // Found by FuzzConfig: a scheme and no host, here left by an inline comment.
        ("[oriel]\nurl = http:// # oriel.local:8787/\n", "f:2: [oriel] url: expected an http:// or https:// URL, found http://"),
        ("[oriel]\nurl = https:///\n", "f:2: [oriel] url: expected an http:// or https:// URL, found https:///"),
        ("[oriel]\nsilence = 60\n", "f:2: [oriel] silence: 60 has no unit: write 60ms, 60s or 60min"),
        ("[oriel]\nsilence = 1m\n", "f:2: [oriel] silence: 1m could be minutes or milliseconds: write 1min or 1ms"),
        ("[oriel]\nsilence = 1h\n", "f:2: [oriel] silence: unknown unit h in 1h: write ms, s or min, such as 1s"),
        ("[oriel]\nsilence = soon\n", "f:2: [oriel] silence: expected a number and its unit (ms, s or min) such as 10ms or 60s, found soon"),
        ("[oriel]\nsilence = 60ms\n", "f:2: [oriel] silence: expected from 5s to 60min, found 60ms"),
        ("[oriel]\nsilence = 4.9s\n", "f:2: [oriel] silence: expected from 5s to 60min, found 4.9s"),
        ("[oriel]\nsilence = 61min\n", "f:2: [oriel] silence: expected from 5s to 60min, found 61min"),
        ("[camera]\nsize = 640\n", "f:2: [camera] size: expected WIDTHxHEIGHT such as 640x480, found 640"),
        ("[camera]\nsize = 0x480\n", "f:2: [camera] size: expected WIDTHxHEIGHT such as 640x480, found 0x480"),
        ("[camera]\nsize = 640x-1\n", "f:2: [camera] size: expected WIDTHxHEIGHT such as 640x480, found 640x-1"),
        ("[camera]\nsize = 9000x480\n", "f:2: [camera] size: expected WIDTHxHEIGHT such as 640x480, found 9000x480"),
        ("[camera]\nsize = 640x9000\n", "f:2: [camera] size: expected WIDTHxHEIGHT such as 640x480, found 640x9000"),
        ("[camera]\nsize = axb\n", "f:2: [camera] size: expected WIDTHxHEIGHT such as 640x480, found axb"),
        ("[camera]\nfps = 0\n", "f:2: [camera] fps: expected a whole number from 1 to 120, found 0"),
        ("[camera]\nfps = 121\n", "f:2: [camera] fps: expected a whole number from 1 to 120, found 121"),
        ("[camera]\nfps = fast\n", "f:2: [camera] fps: expected a whole number from 1 to 120, found fast"),
        ("[body\n", "f:1: a section header must end with ]: [body"),
    ])
    func mistakes(text: String, words: String) {
        // The board comes last, so the mistake's line is the one in the table.
        #expect(bodyRefusal(text.contains("[board]") ? text : text + minimalBody, file: "f") == words)
    }
}
