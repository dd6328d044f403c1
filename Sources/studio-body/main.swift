import Glibc
import BodyAgent
import BodyConfig
import BodySystem

/// studio-body: the studio's On Air lamp and kill switch, a body of the house.
let version = "0.1.0"

let usage = """
usage: studio-body --config FILE            run the body
       studio-body check --config FILE      check the configuration, the board file and every line
       studio-body lamp-off --config FILE   drive every output dark and exit (ExecStopPost)
       studio-body watch --config FILE      for wiring (service stopped): each button's edges and verdicts live, keys light outputs
       studio-body demo [--port N]          run on the simulated board with a demo hub, for a first look
       studio-body camera-feed DEVICE       MJPEG on standard input into a v4l2loopback node (a Pi camera)
       studio-body --version
"""

func fail(_ words: String, code: Int32 = 1) -> Never {
    var line = Array("studio-body: \(words)\n".utf8)
    _ = line.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

func say(_ words: String) {
    var line = Array("\(words)\n".utf8)
    _ = line.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
}

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
case "watch":
    guard let path = option("--config", in: args) else { fail("watch needs --config FILE\n\(usage)", code: 2) }
    exit(Watch.run(load(path, token: false)))
case "camera-feed":
    guard args.count == 2 else { fail("camera-feed needs the v4l2loopback node, e.g. /dev/studio-camera\n\(usage)", code: 2) }
    exit(CameraFeed.run(device: args[1]))
case "demo":
    let port = option("--port", in: args).map { UInt16($0) ?? 0 } ?? 8790
    exit(Demo.run(port: port, version: version))
case "--config":
    guard let path = option("--config", in: args) else { fail(usage, code: 2) }
    let agent: Agent
    do {
        agent = try Agent(load(path))
        try agent.start()
    } catch {
        fail(error.description)
    }
    do {
        try agent.run()
        Log().drain(within: 1)
    } catch {
        // A loop that cannot go on ends the process with a failure, so
        // systemd's Restart=on-failure starts the body again.
        Log()("\(error.description); exiting", .error)
        Log().drain(within: 1)
        exit(1)
    }
case "-h", "--help", "help":
    say(usage)
default:
    fail(usage, code: 2)
}
