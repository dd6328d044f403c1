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
    private var message = [CChar](repeating: 0, count: 4096)
    /// "HOST:PORT", for words.
    public let address: String
    /// The socket; -1 once closed.
    public private(set) var descriptor: Int32 = -1

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
        session.descriptor = cgps_fd(data)
        let watch = cgps_watch(data)
        if watch != 0 {
            session.close()
            throw GpsdError(.lost, "gpsd: cannot start a watch at \(session.address): \(Errno(watch).words)")
        }
        let nb = cgps_set_nonblocking(session.descriptor)
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
        while true {
            // An interrupted read is made again (valueOrErrno's one EINTR rule).
            let result = valueOrErrno { message.withUnsafeMutableBufferPointer { cgps_read(data, $0.baseAddress, Int32($0.count)) } }
            let n = (try? result.get()) ?? -1
            if n > 0 {
                reports.append(report(data))
                continue
            }
            // errno 0 with -1: libgps saw the end of the stream.
            let code: Errno? = switch result {
            case .failure(let e) where e.rawValue != 0: e
            default: nil
            }
            let wouldBlock = n == 0 || code?.kind == .wouldBlock
            if wouldBlock && cgps_peer_closed(descriptor) == 0 { return reports }
            // The lines before the loss still count; the loss shows on the next read.
            if !reports.isEmpty { return reports }
            let cause = wouldBlock ? "gpsd closed the connection" : code.map(\.words) ?? "gpsd closed the connection"
            throw GpsdError(.lost, "gpsd: lost the watch at \(address): \(cause)")
        }
    }

    /// Ends the watch and the connection; safe twice. The C function is `gps_close`.
    public func close() {
        guard let data else { return }
        self.data = nil
        descriptor = -1
        _ = cgps_close(data)
        cgps_free(data)
    }

    /// The line just read, by its class.
    private func report(_ data: UnsafeMutablePointer<gps_data_t>) -> GpsReport {
        let line = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
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
}
