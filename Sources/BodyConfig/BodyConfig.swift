public import BodyCore

/// `/etc/studio-body/body.conf` (DESIGN 8) as values. Parsing does no I/O: the
/// caller reads the files, so every mistake names the file and line.
public struct BodyConfig: Equatable, Sendable {
    public var file: String
    public var name: String
    public var listenHost: String
    public var listenPort: UInt16
    public var tokenFile: String
    /// `[body] url`: where Oriel calls this body, said in the hello (optional).
    public var advertisedURL: String?
    public var orielURL: String?
    /// `[body] announce`: offer `_studio-body._tcp` through avahi-daemon.
    public var announce: Bool
    /// `[body] tls`: HTTPS with the body's own pinned certificate
    /// (the default), or plain HTTP for a body reached only over an encrypted
    /// network or loopback.
    public var tls: Bool
    /// `[body] state`: where the body keeps its key and certificate, when set;
    /// else systemd's `$STATE_DIRECTORY`, else the configuration's directory
    /// (`stateDirectory(environment:)`).
    public var state: String?
    /// `[oriel] pin`: Oriel's public key, pinned for an `https://` hello
    /// instead of the system's certificate authorities.
    public var orielPin: TLSPin?
    public var silence: Double
    /// The board file's path, or nil for the simulated board.
    public var boardFile: String?
    /// The line of `[board] file` in `file`, for words about it.
    public var boardFileLine: Int?
    public var locationAllowed: Bool
    public var gpsdHost: String
    public var gpsdPort: UInt16
    public var cameraDevice: String?
    /// The Pi camera's feeder socket, connected to for each opening of the
    /// eyes (studio-body-picamera.socket); nil for a camera that is simply there.
    public var cameraWake: String?
    public var cameraWidth: Int
    public var cameraHeight: Int
    public var cameraFPS: Int

    /// DESIGN 8's default, and a range that refuses a slip such as `60ms` rather than obeying it.
    public static let defaultSilence: Double = 60
    public static let silenceRange: ClosedRange<Double> = 5...3600

    static let keys: [String: Set<String>] = [
        "body": ["name", "listen", "token-file", "url", "announce", "tls", "state"],
        "oriel": ["url", "silence", "pin"],
        "board": ["file"],
        "location": ["allowed", "gpsd"],
        "camera": ["device", "size", "fps", "wake"],
    ]

    public static func parse(_ text: String, file: String) throws(ConfigError) -> BodyConfig {
        let ini = try INI.parse(text, file: file)
        for s in ini.sections where keys[s.name] == nil {
            throw ConfigError(file: file, line: s.line,
                              "unknown section [\(s.name)]; known: \(keys.keys.sorted().map { "[\($0)]" }.joined(separator: " "))")
        }
        func reader(_ name: String) throws(ConfigError) -> SectionReader {
            let r = SectionReader(ini, name, keys: keys[name] ?? [])
            try r.checkKeys()
            return r
        }
        let body = try reader("body"), oriel = try reader("oriel"), board = try reader("board")
        let location = try reader("location"), camera = try reader("camera")

        let (host, port) = try address(body, "listen", default: ("0.0.0.0", 8790))
        let (gpsdHost, gpsdPort) = try address(location, "gpsd", default: ("127.0.0.1", 2947))
        guard let boardEntry = board.entry("file"), !boardEntry.value.isEmpty else {
            throw ConfigError(file: file, line: ini.section("board")?.line,
                              "[board] file is missing: name a board file, or sim for the simulated board")
        }
        if let url = oriel.entry("url"), !url.value.isEmpty {
            // A scheme with no host ("http://", found by the fuzzer) is no place to say hello to.
            let host = url.value.split(separator: "://", maxSplits: 1).dropFirst().first?.first { $0 != "/" }
            guard url.value.hasPrefix("http://") || url.value.hasPrefix("https://"), host != nil else {
                throw oriel.fail(url, "expected an http:// or https:// URL, found \(url.value)")
            }
        }
        var pin: TLSPin?
        if let entry = oriel.entry("pin"), !entry.value.isEmpty {
            switch TLSPin.parse(entry.value) {
            case .success(let p): pin = p
            case .failure(let e): throw oriel.fail(entry, e.description)
            }
            guard oriel.string("url")?.hasPrefix("https://") == true else {
                throw oriel.fail(entry, "a pin is for an https:// url; [oriel] url is \(oriel.string("url") ?? "not set")")
            }
        }
        if let entry = body.entry("state"), !entry.value.isEmpty, !entry.value.hasPrefix("/") {
            throw body.fail(entry, "expected an absolute directory such as /var/lib/studio-body, found \(entry.value)")
        }
        var width = 640, height = 480
        if let size = camera.entry("size") {
            let parts = size.value.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 8192, h <= 8192 else {
                throw camera.fail(size, "expected WIDTHxHEIGHT such as 640x480, found \(size.value)")
            }
            (width, height) = (w, h)
        }
        if let wake = camera.entry("wake") {
            guard wake.value.hasPrefix("/"), wake.value.utf8.count < 108 else {
                throw camera.fail(wake, "expected the feeder's socket as an absolute path such as /run/studio-body-picamera.sock, found \(wake.value)")
            }
            guard camera.string("device") != nil else {
                throw camera.fail(wake, "wake needs a device: the loopback node the feeder fills, such as device = /dev/studio-camera")
            }
        }
        let name = body.string("name") ?? "studio"
        return BodyConfig(
            file: file, name: String(name.prefix(64)), listenHost: host, listenPort: port,
            tokenFile: body.string("token-file") ?? "/etc/studio-body/token",
            advertisedURL: body.string("url"),
            orielURL: oriel.string("url").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 },
            announce: try body.bool("announce", default: true),
            tls: try body.bool("tls", default: true),
            state: body.string("state"),
            orielPin: pin,
            silence: try oriel.duration("silence", default: defaultSilence, in: silenceRange),
            boardFile: boardEntry.value == "sim" ? nil : resolve(boardEntry.value, relativeTo: file),
            boardFileLine: boardEntry.line,
            locationAllowed: try location.bool("allowed", default: false),
            gpsdHost: gpsdHost, gpsdPort: gpsdPort,
            cameraDevice: camera.string("device"), cameraWake: camera.string("wake"), cameraWidth: width, cameraHeight: height,
            cameraFPS: try camera.int("fps", default: 15, in: 1...120))
    }

    static func address(_ r: SectionReader, _ key: String, default d: (String, UInt16)) throws(ConfigError) -> (String, UInt16) {
        guard let e = r.entry(key) else { return d }
        guard let colon = e.value.lastIndex(of: ":"),
              let port = UInt16(e.value[e.value.index(after: colon)...]) else {
            throw r.fail(e, "expected HOST:PORT such as 0.0.0.0:8790, found \(e.value)")
        }
        var host = String(e.value[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw r.fail(e, "the host is missing in \(e.value)") }
        return (host, port)
    }

    /// Where the key and certificate live: `[body] state`, else systemd's
    /// `StateDirectory=` (`$STATE_DIRECTORY`, its first when it names several),
    /// else the directory of the configuration file.
    public func stateDirectory(environment: [String: String]) -> String {
        if let state { return state }
        if let given = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !given.isEmpty { return String(given) }
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    /// A relative board file is found beside the configuration file.
    static func resolve(_ path: String, relativeTo file: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }
}
