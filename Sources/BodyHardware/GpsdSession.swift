internal import CGps
import BodyCore
import BodySystem

/// One connection to gpsd with a JSON watch running: gpsd reports only while
/// this exists, so it is opened when a `GET /where` waits and closed after.
///
/// Not thread-safe: the event loop owns it. `descriptor` goes into the loop's
/// epoll set; `read()` never blocks (the socket is non-blocking) and returns
/// every whole line gpsd has sent so far.
public final class GpsdSession {
    private var data: UnsafeMutablePointer<gps_data_t>?
    /// libgps copies each line here: as long as libgps's own line buffer, so
    /// no line it parsed is cut short here.
    private var message = [CChar](repeating: 0, count: GpsdSession.lineLimit + 1)
    /// libgps 3.22's line buffer, measured (its header does not say): 20,479
    /// bytes with no end are held, 20,480 make gps_read fail with errno 0, and
    /// every later read too. So a line with no end costs at most this much.
    static let lineLimit = 20_480
    static let linesPerWake = 256
    /// "HOST:PORT", for words.
    public let address: String
    /// The socket the loop watches; nil once closed.
    public private(set) var descriptor: FileDescriptor?
    private var socket: Int32 { descriptor?.rawValue ?? -1 }

    private init(address: String) { self.address = address }

    /// Connects and starts a watch. The C functions are `gps_open` and `gps_stream`.
    public static func open(host: String, port: UInt16) throws(GpsdError) -> GpsdSession {
        let session = GpsdSession(address: WhereAnswer.address(host: host, port: port))
        guard let data = cgps_alloc() else {
            throw GpsdError(.unreachable, "gpsd: cannot open a session with \(session.address): out of memory")
        }
        let code = cgps_open(host, String(port), data)
        if code != 0 {
            cgps_free(data)
            let cause = String(cString: cgps_errstr(code))
            throw GpsdError(.unreachable, "gpsd: cannot connect to \(session.address): \(cause)")
        }
        session.data = data
        session.descriptor = FileDescriptor(rawValue: cgps_fd(data))
        let watch = cgps_watch(data)
        if watch != 0 {
            session.close()
            throw GpsdError(.lost, "gpsd: cannot start a watch at \(session.address): \(Errno(watch).words)")
        }
        let nb = cgps_set_nonblocking(session.socket)
        if nb != 0 {
            session.close()
            throw GpsdError(.lost, "gpsd: cannot make the socket to \(session.address) non-blocking: \(Errno(nb).words)")
        }
        return session
    }

    deinit { close() }

    /// Every whole line gpsd has sent, as reports. Throws when gpsd closed the
    /// connection or the socket failed, after handing back what came before.
    /// The C function is `gps_read`.
    public func read() throws(GpsdError) -> [GpsReport] {
        guard let data else { throw GpsdError(.lost, "gpsd: cannot read from \(address): the session is closed") }
        var reports: [GpsReport] = []
        // A gpsd that floods lines must not hold the loop: at most this many a wake;
        // the socket stays readable (epoll is level-triggered), so the rest comes next turn.
        for _ in 0..<Self.linesPerWake {
            // An interrupted read is made again (valueOrErrno's one EINTR rule).
            let result = valueOrErrno { message.withUnsafeMutableBufferPointer { cgps_read(data, $0.baseAddress, Int32($0.count)) } }
            let n = (try? result.get()) ?? -1
            if n > 0 {
                reports.append(report(data))
                continue
            }
            // errno 0 with -1: libgps saw the end of the stream, or its buffer is full.
            let code: Errno? = switch result {
            case .failure(let e) where e.rawValue != 0: e
            default: nil
            }
            let wouldBlock = n == 0 || code?.kind == .wouldBlock
            if wouldBlock && cgps_peer_closed(socket) == 0 { return reports }
            // The lines before the loss still count; the loss shows on the next read.
            if !reports.isEmpty { return reports }
            // -1 with errno 0 and the peer still there: libgps's buffer is full of one
            // line with no end (it stays full, so the watch cannot go on).
            let cause = if let code, !wouldBlock { code.words }
                else if !wouldBlock && cgps_peer_closed(socket) == 0 {
                    "gpsd sent a line longer than \(Self.lineLimit) bytes with no end (libgps cannot hold more)"
                } else { "gpsd closed the connection" }
            throw GpsdError(.lost, "gpsd: lost the watch at \(address): \(cause)")
        }
        return reports
    }

    /// Ends the watch and the connection; safe twice. The C function is `gps_close`.
    public func close() {
        guard let data else { return }
        self.data = nil
        descriptor = nil
        _ = cgps_close(data)
        cgps_free(data)
    }

    /// The line just read, by its class. libgps parses whatever it is given and
    /// fills the fields it read before a tear, so a line is first checked to be one
    /// whole JSON object with a class (UTF-8, no NUL): else it is garbage, and no
    /// field libgps filled from it is read.
    private func report(_ data: UnsafeMutablePointer<gps_data_t>) -> GpsReport {
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        guard let parsed = try? JSON.parse(bytes), parsed["class"]?.string != nil else {
            let text = bytes.last == 0x0D ? bytes.dropLast() : bytes[...]   // gpsd ends lines with CR LF
            return .garbage(Self.visible(text.prefix(48)) + (text.count > 48 ? "..." : ""))
        }
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix(#"{"class":"TPV""#) {
            return .fix(GpsFix(
                mode: Int(cgps_mode(data)), time: cgps_time(data),
                latitude: cgps_latitude(data), longitude: cgps_longitude(data),
                altitudeMSL: cgps_alt_msl(data), altitudeHAE: cgps_alt_hae(data),
                eph: cgps_eph(data), epx: cgps_epx(data), epy: cgps_epy(data),
                track: cgps_track(data), speed: cgps_speed(data),
                device: String(cString: cgps_dev_path(data))))
        }
        if line.hasPrefix(#"{"class":"DEVICES""#) {
            return .devices((0..<cgps_devices_count(data)).map { i in
                GpsDevice(path: String(cString: cgps_devices_path(data, i)),
                          driver: String(cString: cgps_devices_driver(data, i)),
                          cycle: cgps_devices_cycle(data, i))
            })
        }
        if line.hasPrefix(#"{"class":"DEVICE""#) {
            return .device(GpsDevice(path: String(cString: cgps_dev_path(data)),
                                     driver: String(cString: cgps_dev_driver(data)),
                                     cycle: cgps_dev_cycle(data),
                                     active: cgps_dev_active(data) != 0))
        }
        return .other
    }

    /// Bytes as words for the log: printable ASCII as is, the rest as \xNN.
    static func visible<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        bytes.map { (0x20..<0x7f).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
