/// Durations counted into buckets, as Prometheus's histograms are: each
/// bucket is an upper bound, and the text gives them cumulatively with
/// `+Inf` last. The durations come from the caller's clock.
public struct Histogram: Equatable, Sendable {
    /// Upper bounds in seconds, ascending; `+Inf` is implied after the last.
    public let bounds: [Double]
    /// Observations per bucket, not cumulative; the last is past every bound.
    public private(set) var counts: [UInt64]
    public private(set) var sum: Double = 0
    public private(set) var count: UInt64 = 0

    public init(bounds: [Double]) {
        self.bounds = bounds.sorted()
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// One duration; a negative one (clocks read in the other order) counts as 0.
    public mutating func observe(_ seconds: Double) {
        let s = seconds.isFinite ? max(0, seconds) : 0
        counts[bounds.firstIndex { s <= $0 } ?? bounds.count] += 1
        sum += s
        count += 1
    }

    /// `(le, cumulative count)` for every bucket, `+Inf` last.
    public var cumulative: [(le: Double, count: UInt64)] {
        var running: UInt64 = 0
        return (bounds + [.infinity]).enumerated().map { i, le in
            running += counts[i]
            return (le, running)
        }
    }
}
