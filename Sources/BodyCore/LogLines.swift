/// The last lines the body said, with their times, for the page:
/// a ring of `capacity` lines, the oldest dropped first. Each line has a
/// number that only grows, so a reader knows whether anything is new.
public struct LogLines: Equatable, Sendable {
    public struct Line: Equatable, Sendable {
        /// 1 for the first line said, then one more each line.
        public var number: UInt64
        /// Wall-clock seconds since the epoch, for a person to read.
        public var at: Double
        public var words: String
        /// `error`, `warning`, `notice`, `info` or `debug`.
        public var level: String
    }

    public let capacity: Int
    private var ring: [Line] = []
    /// Where the oldest line is in `ring` once it is full.
    private var head = 0
    /// The number of the newest line (0: none yet).
    public private(set) var newest: UInt64 = 0

    public init(capacity: Int = 100) {
        self.capacity = max(1, capacity)
        ring.reserveCapacity(self.capacity)
    }

    public mutating func add(_ words: String, level: String, at wall: Double) {
        newest += 1
        let line = Line(number: newest, at: wall, words: words, level: level)
        if ring.count < capacity {
            ring.append(line)
        } else {
            ring[head] = line
            head = (head + 1) % capacity
        }
    }

    /// The lines kept, oldest first.
    public var lines: [Line] {
        Array(ring[head...] + ring[..<head])
    }
}
