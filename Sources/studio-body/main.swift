import BodyAgent
import BodyConfig
import BodySystem
import BodyTLS

/// studio-body: the studio's On Air lamp and kill switch, a body of the house.
let version = "0.1.0"

let usage = """
usage: studio-body --config FILE            run the body
       studio-body check --config FILE      check the configuration, the board file and every line
       studio-body lamp-off --config FILE   drive every output dark and exit (ExecStopPost)
       studio-body tls --config FILE [--renew]
                                            say the body's certificate and pin; --renew makes a new key and certificate
       studio-body watch --config FILE      for wiring (service stopped): each button's edges and verdicts live, keys light outputs
       studio-body demo [--port N]          run on the simulated board with a demo hub, for a first look
       studio-body camera-feed [--wake-fd N] --source COMMAND DEVICE
                                            the camera COMMAND's MJPEG into a v4l2loopback node (a Pi camera);
                                            --wake-fd: only while the body's connection lasts (studio-body-picamera.socket)
       studio-body --version
"""

// Nothing to do about a failed write to standard error or output: there is nowhere else to say it.
func fail(_ words: String, code: Int32 = 1) -> Never {
    try? FileDescriptor.standardError.writeAll(Array("studio-body: \(words)\n".utf8))
    exit(code)
}

func say(_ words: String) {
    try? FileDescriptor.standardOutput.writeAll(Array("\(words)\n".utf8))
}

func exit(_ code: Int32) -> Never { CurrentProcess.exit(code) }

func option(_ name: String, in args: [String]) -> String? {
    guard let i = args.firstIndex(of: name) else { return nil }
    guard i + 1 < args.count else { fail("\(name) needs a value\n\(usage)", code: 2) }
    return args[i + 1]
}

/// Reads and checks everything a start needs; any mistake is one line naming file and line.
func load(_ path: String, token: Bool = true) -> AgentSetup {
    do throws(ConfigError) {
        let config = try BodyConfig.parse(try Files.read(path), file: path)
        if let stale = StaleBoardFile.check(config, exists: FileFacts.exists) { throw stale }
        let board = try config.boardFile.map { f throws(ConfigError) in try BoardConfig.parse(try Files.read(f), file: f) } ?? .sim
        return AgentSetup(config: config, board: board, token: token ? try Files.token(config.tokenFile) : "", version: version)
    } catch {
        fail(error.description)
    }
}

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "--version", "version":
    say("studio-body \(version)")
case "check":
    guard let path = option("--config", in: args) else { fail("check needs --config FILE\n\(usage)", code: 2) }
    exit(Check.run(load(path, token: false)))
case "lamp-off":
    guard let path = option("--config", in: args) else { fail("lamp-off needs --config FILE\n\(usage)", code: 2) }
    exit(LampOff.run(load(path, token: false)))
case "tls":
    guard let path = option("--config", in: args) else { fail("tls needs --config FILE\n\(usage)", code: 2) }
    exit(TLSCommand.run(load(path, token: false).config, renew: args.contains("--renew")))
case "watch":
    guard let path = option("--config", in: args) else { fail("watch needs --config FILE\n\(usage)", code: 2) }
    exit(Watch.run(load(path, token: false)))
case "camera-feed":
    let wake = option("--wake-fd", in: args).map { n in
        guard let fd = Int32(n), fd >= 3 else { fail("camera-feed: --wake-fd takes a descriptor number of 3 or more, found \(n)", code: 2) }
        return FileDescriptor(rawValue: fd)
    }
    guard let source = option("--source", in: args), !source.isEmpty else {
        fail("camera-feed needs --source COMMAND, the camera's MJPEG on standard output (rpicam-vid --codec mjpeg -o -)\n\(usage)", code: 2)
    }
    let named = Set(args.indices.filter { args[$0] == "--wake-fd" || args[$0] == "--source" }.flatMap { [$0, $0 + 1] })
    let rest = args.indices.dropFirst().filter { !named.contains($0) }.map { args[$0] }
    guard rest.count == 1 else { fail("camera-feed needs the v4l2loopback node, e.g. /dev/studio-camera\n\(usage)", code: 2) }
    SignalDescriptor.ignoreBrokenPipe()  // the body gone is a closed connection, not a death
    exit(CameraFeed.run(device: rest[0], source: source, wake: wake))
case "demo":
    let port = option("--port", in: args).map { UInt16($0) ?? 0 } ?? 8790
    exit(Demo.run(port: port, version: version))
case "--config":
    guard let path = option("--config", in: args) else { fail(usage, code: 2) }
    let agent: Agent
    do {
        var setup = load(path)
        do {
            let obtained = try BodyIdentity.obtain(setup.config, environment: Environment.values)
            setup.tls = obtained?.identity
            setup.tlsWords = BodyIdentity.words(setup.config, obtained)
        } catch {
            fail(error.description)
        }
        agent = try Agent(setup)
        try agent.start()
    } catch {
        fail(error.description)
    }
    // The agent lives to the process's end and the end is `_exit` (`exit` here):
    // a hello's transfer may still be under way on the sender's thread, and the
    // C library's exit handlers would tear libcurl's TLS down under it.
    withExtendedLifetime(agent) {
        do throws(AgentError) {
            try agent.run()
            Log().drain(within: 1)
        } catch {
            // A loop that cannot go on ends the process with a failure, so
            // systemd's Restart=on-failure starts the body again.
            Log()("\(error.description); exiting", .error)
            Log().drain(within: 1)
            exit(1)
        }
        exit(0)
    }
case "-h", "--help", "help":
    say(usage)
default:
    fail(usage, code: 2)
}
