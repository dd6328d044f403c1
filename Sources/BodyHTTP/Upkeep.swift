import BodySystem

/// What the server does after each run of MHD: hand on the hang-ups the
/// kernel reported, cut off what is past its deadline (`Deadlines` decides),
/// and give memory back once a flood is over (`FloodEnd` decides).
extension HTTPServer {
    func upkeep(_ daemon: MHDCalls.Daemon) {
        let left = hangups?.shutDownHungUp(mhdDrained: calls.timeout(daemon) != 0) ?? []
        for connection in left { clientLeft(connection) }
        cutOffLate()
        if flood.ended(open: hangups?.open ?? 0) { Heap.giveBackFree() }
    }

    /// A head still coming after its deadline, from a connection that never
    /// showed the token, or a body still coming after its deadline (a byte a
    /// second, say): the socket is shut down, and MHD, woken by the hang-up,
    /// closes the connection (and completes a request as failed).
    private func cutOffLate() {
        // Looked for before any list is made: nothing waits after most runs.
        guard hangups?.firstHeadWaiting != nil || live.contains(where: { $0.state.isReadingBody }) else { return }
        let heads = hangups?.headsWaiting ?? []
        let bodies = live.filter { $0.state.isReadingBody }.map { ($0, $0.headAt) }
        guard !heads.isEmpty || !bodies.isEmpty else { return }  // a clock read is a system call in the VM
        let cuts = deadlines.cuts(heads: heads, bodies: bodies, at: Self.monotonic())
        for connection in cuts.heads { try? hangups?.cutOff(connection)?.shutDown() }
        for exchange in cuts.bodies {
            guard let connection = exchange.connection, let fd = hangups?.socket(of: connection) else { continue }
            if !exchange.cutOff {
                exchange.cutOff = true
                log("http: \(exchange.request.method) \(exchange.request.path) from \(exchange.request.remote): "
                    + "the body was not whole \(limits.bodyDeadline) s after the head; the connection is closed")
            }
            try? fd.shutDown()
        }
    }
}
