/// The `200` answer of `GET /where` (DESIGN section 6). Every number is finite:
/// the optional ones are left out when the receiver did not give them.
public struct WherePlace: Equatable, Sendable, Encodable {
    public var lat: Double
    public var lon: Double
    /// Horizontal error estimate in metres; null only when the receiver gave none within the wait.
    public var accuracyM: Double?
    /// The fix time, epoch seconds.
    public var sampledAt: Double
    /// The receiver, as gpsd names it: its path, and its driver when gpsd knows it.
    public var source: String
    /// Metres above mean sea level (above the ellipsoid when that is all there is); 3D fixes only.
    public var altitude: Double?
    /// Course over ground, degrees from true north.
    public var heading: Double?
    /// Metres per second.
    public var speed: Double?

    enum CodingKeys: String, CodingKey {
        case lat, lon, accuracyM = "accuracy_m", sampledAt = "sampled_at", source, altitude, heading, speed
    }

    /// The place one fresh fix says, from the receiver `device` names.
    public init?(fix: GpsFix, receiver: GpsDevice?) {
        guard let lat = fix.latitude, let lon = fix.longitude, let time = fix.time else { return nil }
        self.lat = lat
        self.lon = lon
        self.accuracyM = FixRule.accuracy(fix)
        self.sampledAt = time
        let path = fix.device.isEmpty ? (receiver?.path ?? "gpsd") : fix.device
        self.source = receiver?.driver.map { "\(path) (\($0))" } ?? path
        self.altitude = fix.mode >= 3 ? (fix.altitudeMSL ?? fix.altitudeHAE) : nil
        self.heading = fix.track
        self.speed = fix.speed
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(accuracyM, forKey: .accuracyM)
        try c.encode(sampledAt, forKey: .sampledAt)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(altitude, forKey: .altitude)
        try c.encodeIfPresent(heading, forKey: .heading)
        try c.encodeIfPresent(speed, forKey: .speed)
    }
}

/// Why no fresh fix came within the deadline, in the words of DESIGN section 6
/// (`garbled` is ours: docs/decisions.md).
public enum WhereCause: Equatable, Sendable {
    case noFix, noReceiver, onlyStale, gpsdSilent, garbled

    public var words: String {
        switch self {
        case .noFix: "the receiver has no fix: indoors, or no sky"
        case .noReceiver: "no receiver is attached to gpsd"
        case .onlyStale: "the receiver gave only stale fixes: is its clock or this computer's clock wrong?"
        case .gpsdSilent: "gpsd stopped answering"
        case .garbled: "gpsd sent lines that are not gpsd's JSON"
        }
    }
}

/// What one `GET /where` is answered with.
public enum WhereAnswer: Equatable, Sendable {
    case place(WherePlace)
    /// 403: a person has not allowed location in the configuration.
    case notAllowed
    /// 503: nothing listens at gpsd's address.
    case gpsdNotRunning(host: String, port: UInt16)
    /// 504: no fresh fix within the deadline, and why.
    case noFreshFix(WhereCause)

    public var status: Int {
        switch self {
        case .place: 200
        case .notAllowed: 403
        case .gpsdNotRunning: 503
        case .noFreshFix: 504
        }
    }

    /// The refusal in words, nil for a place.
    public var words: String? {
        switch self {
        case .place: nil
        case .notAllowed: "location is not allowed for this body; a person allows it in the configuration"
        case .gpsdNotRunning(let host, let port): "gpsd is not running at \(Self.address(host: host, port: port))"
        case .noFreshFix(let cause): "no fresh fix within \(Int(FixRule.deadline)) s (\(cause.words))"
        }
    }

    /// "HOST:PORT", with an IPv6 host in brackets.
    public static func address(host: String, port: UInt16) -> String { HostText.withPort(host, port) }

    /// The body of the answer, through the body's one encoder.
    public var json: [UInt8] {
        if case .place(let place) = self { return BodyJSON.encode(place) }
        return BodyJSON.error(words ?? "")
    }
}
