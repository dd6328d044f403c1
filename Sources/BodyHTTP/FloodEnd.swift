/// When a flood of connections is over: the moment to give its freed
/// buffers back to the kernel. A rule on the count of open connections,
/// seen after each run of the server; no clock.
struct FloodEnd {
    /// At or above this many open connections, it is a flood (an eighth of
    /// the limit; one address's worth while `perAddress` is 16): MHD's malloc'd pools of the ones
    /// past calm would otherwise stay in the heap (`HTTPLimits.headMemory`).
    let flood: Int
    /// At or below this many, the flood is over: Oriel's poll and push, a
    /// dashboard or two.
    let calm: Int
    private var flooded = false

    init(limit: Int) {
        flood = max(2, limit / 8)
        calm = max(1, limit / 16)
    }

    /// True once per flood, on the first count at or below `calm` after it.
    mutating func ended(open: Int) -> Bool {
        if open >= flood { flooded = true }
        guard flooded, open <= calm else { return false }
        flooded = false
        return true
    }
}
