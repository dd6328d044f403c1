import Foundation
import Glibc
import Testing
@testable import BodyHTTP

/// Not a test: serves a trivial GET on 127.0.0.1:$BODY_HTTP_BENCH_PORT for
/// $BODY_HTTP_BENCH_SECONDS so `wrk` can be pointed at it by hand:
///   BODY_HTTP_BENCH_PORT=18790 swift test --filter BodyHTTPTests.bench &
///   wrk -t1 -c8 -d10s http://127.0.0.1:18790/status
@Test("bench server for wrk (runs only when BODY_HTTP_BENCH_PORT is set)",
      .enabled(if: ProcessInfo.processInfo.environment["BODY_HTTP_BENCH_PORT"] != nil))
func bench() throws {
    let env = ProcessInfo.processInfo.environment
    let port = UInt16(env["BODY_HTTP_BENCH_PORT"] ?? "") ?? 18790
    let seconds = Double(env["BODY_HTTP_BENCH_SECONDS"] ?? "") ?? 15
    let body = Array(#"{"ok":true}"#.utf8)
    var served = 0
    let server = try HTTPServer(listen: "127.0.0.1", port: port, log: { _ in }, handler: { _, reply in
        served += 1
        reply.send(.json(200, body))
    })
    let end = HTTPServer.monotonic() + seconds
    while HTTPServer.monotonic() < end {
        let wait = min(end - HTTPServer.monotonic(), server.timeout() ?? 1)
        var pfd = pollfd(fd: server.pollDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&pfd, 1, Int32((max(0, wait) * 1000).rounded(.up)))
        server.run()
    }
    server.stop()
    print("bench: served \(served) requests")
    #expect(served > 0)
}
