/// One line gpsd sent on a watch, as the adapter read it. Numbers are nil
/// when gpsd did not report them (libgps's NaN never gets this far).
public enum GpsReport: Equatable, Sendable {
    /// A TPV: time, position, velocity.
    case fix(GpsFix)
    /// DEVICES: every receiver gpsd has right now (empty: none attached).
    case devices([GpsDevice])
    /// DEVICE: one receiver appeared, changed or went away.
    case device(GpsDevice)
    /// Anything else gpsd says (VERSION, WATCH, SKY, ...): it is still answering.
    case other
    /// A line that is not one JSON object with a class (torn, random bytes,
    /// invalid UTF-8, a NUL): not gpsd answering, whatever it holds. The words
    /// are the line's start, made visible, for the log.
    case garbage(String)
}

/// What one TPV says. `time` is the fix time in epoch seconds.
public struct GpsFix: Equatable, Sendable {
    public var mode: Int
    public var time: Double?
    public var latitude: Double?
    public var longitude: Double?
    /// Above mean sea level; `altitudeHAE` above the ellipsoid.
    public var altitudeMSL: Double?
    public var altitudeHAE: Double?
    /// Horizontal error estimate in metres; `epx`/`epy` per axis.
    public var eph: Double?
    public var epx: Double?
    public var epy: Double?
    /// Course over ground, degrees from true north.
    public var track: Double?
    /// Metres per second.
    public var speed: Double?
    /// The receiver's path, as gpsd names it.
    public var device: String

    public init(mode: Int, time: Double? = nil, latitude: Double? = nil, longitude: Double? = nil,
                altitudeMSL: Double? = nil, altitudeHAE: Double? = nil,
                eph: Double? = nil, epx: Double? = nil, epy: Double? = nil,
                track: Double? = nil, speed: Double? = nil, device: String = "") {
        self.mode = mode
        self.time = time.finite
        self.latitude = latitude.finite
        self.longitude = longitude.finite
        self.altitudeMSL = altitudeMSL.finite
        self.altitudeHAE = altitudeHAE.finite
        self.eph = eph.finite
        self.epx = epx.finite
        self.epy = epy.finite
        self.track = track.finite
        self.speed = speed.finite
        self.device = device
    }
}

/// A receiver gpsd has. `cycle` is its report period in seconds when known.
public struct GpsDevice: Equatable, Sendable {
    public var path: String
    public var driver: String?
    public var cycle: Double?
    /// False when gpsd says the receiver went away.
    public var active: Bool

    public init(path: String, driver: String? = nil, cycle: Double? = nil, active: Bool = true) {
        self.path = path
        self.driver = driver.flatMap { $0.isEmpty ? nil : $0 }
        self.cycle = cycle.finite.flatMap { $0 > 0 ? $0 : nil }
        self.active = active
    }
}

extension Optional where Wrapped == Double {
    /// The value only when it is a finite number: NaN and infinity count as absent.
    var finite: Double? {
        guard let v = self, v.isFinite else { return nil }
        return v
    }
}
