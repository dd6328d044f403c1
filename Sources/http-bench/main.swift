// http-bench: the HTTP server alone with a trivial handler, for wrk.
// Not a test and not part of the body: scripts/bench runs it and points wrk at it
// (docs/benchmarks.md, "HTTP server alone").
//
//   http-bench [PORT [SECONDS]]     defaults 18790 and 15
//
// Serves `GET /status` (any path) with {"ok":true} on 127.0.0.1:PORT for SECONDS,
// then prints "http-bench: served N requests" and exits 1 if it served none.
import BodyHTTP
import BodySystem

/// Serves until `seconds` have passed; the number of requests answered.
func serve(port: UInt16, seconds: Double) throws -> Int {
    let body = Array(#"{"ok":true}"#.utf8)
    var served = 0
    let server = try HTTPServer(listen: "127.0.0.1", port: port, log: { _ in }, handler: { _, reply in
        served += 1
        reply.send(.json(200, body))
    })
    // The server's two descriptors in one set, as the body's loop watches them.
    let ready = try Epoll.of(server.pollDescriptor, server.hangupDescriptor)
    print("http-bench: serving on 127.0.0.1:\(port) for \(seconds) s")
    let end = SystemClock.monotonic() + seconds
    while SystemClock.monotonic() < end {
        let wait = min(end - SystemClock.monotonic(), server.timeout() ?? 1)
        // A wait that fails (the server stopped) is followed by a run that says so, or nothing to do.
        if let events = try? ready.wait(maxEvents: 2, timeout: Int32((max(0, wait) * 1000).rounded(.up))),
           events.contains(where: { $0.registration == 1 }) {
            server.hangUpsReported()
        }
        server.run()
    }
    server.stop()
    return served
}

extension Epoll {
    /// A set of `first` (registration 0) and `second` (1), readable.
    static func of(_ first: FileDescriptor?, _ second: FileDescriptor?) throws(Errno) -> Epoll {
        let set = try Epoll(capacity: 2)
        for (i, fd) in [first, second].enumerated() {
            if let fd { try set.add(fd, .readable, registration: UInt64(i)) }
        }
        return set
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 2,
      let port = UInt16(arguments.first ?? "18790"),
      let seconds = Double(arguments.dropFirst().first ?? "15") else {
    try? FileDescriptor.standardError.writeAll(Array("usage: http-bench [PORT [SECONDS]]\n".utf8))
    CurrentProcess.exit(2)
}
do {
    let served = try serve(port: port, seconds: seconds)
    print("http-bench: served \(served) requests")
    CurrentProcess.exit(served > 0 ? 0 : 1)
} catch {
    try? FileDescriptor.standardError.writeAll(Array("http-bench: cannot serve on 127.0.0.1:\(port): \(error)\n".utf8))
    CurrentProcess.exit(1)
}
