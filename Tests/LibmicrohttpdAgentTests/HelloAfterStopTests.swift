import Testing
@testable import BodyAgent
@testable import AgentHarness
import BodyHub
import BodySystem
import BodyTestSupport
import Glibc

/// A stop with a hello under way: libcurl's transfer goes on, on the sender's
/// thread, after the agent is gone. The hello's callback held the agent
/// `unowned`, and a freed agent read that way traps (a body ending with a hello
/// unanswered; seen once under TSan, where the process's exit waits a second).
@Suite("A hello answered after its agent is gone")
struct HelloAfterStopTests {
    @Test("is dropped: no trap, and the agent was really gone before the answer came")
    func helloAfterTheAgent() throws {
        let oriel = try HeldOriel()
        var rig: AgentRig? = try AgentRig(more: "[oriel]\nurl = http://127.0.0.1:\(oriel.port)\n")
        // The start's turn queued the hello; the sender's thread is in its transfer.
        try #require(oriel.waitForRequest(within: 20), "no hello reached the held Oriel")
        let sender = try #require(rig?.agent.helloSender)
        weak let agent = rig?.agent
        rig = nil
        try #require(agent == nil, "the agent outlived its rig: the test would not show the case")
        // A second hello, to a closed port, queued behind the held one: its callback
        // runs on the same thread after the first one's, so it says when that ran.
        // Left open: a callback still to come would write to whatever took the number.
        let after = try FileDescriptor.pipe()
        sender.send(url: "http://127.0.0.1:\(oriel.closedPort)/", token: "t", body: []) { _ in
            _ = try? after.write.writeAll([1])
        }
        oriel.answer()
        #expect(try after.read.waitReadable(seconds: 30), "the held hello's callback and the next one did not run within 30 s")
    }
}

/// Oriel's hello route on a loopback socket, holding its answer until `answer()`.
private final class HeldOriel: @unchecked Sendable {
    let port: UInt16
    /// A port bound and never listened on, held while this lives: a connection is refused.
    let closedPort: UInt16
    private let listener: Int32
    private let closed: Int32
    private let heard: (read: FileDescriptor, write: FileDescriptor)
    private let go: (read: FileDescriptor, write: FileDescriptor)

    init() throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0, let bound = bindLoopback(listener, listen: 4) else { throw HeldOrielFailed(what: "bind", errno: errno) }
        port = bound
        closed = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard closed >= 0, let refusing = bindLoopback(closed) else { throw HeldOrielFailed(what: "bind a closed port", errno: errno) }
        closedPort = refusing
        heard = try FileDescriptor.pipe()
        go = try FileDescriptor.pipe()
        let (listener, heard, go) = (listener, heard, go)
        try WorkerThread.detach {
            let c = accept(listener, nil, nil)
            guard c >= 0 else { return }
            defer { close(c) }
            // The whole request: its head, then Content-Length bytes of body.
            var got = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !HeldOriel.whole(got) {
                let n = recv(c, &buffer, buffer.count, 0)
                if n <= 0 { return }
                got += buffer[0..<n]
            }
            _ = try? heard.write.writeAll([1])
            guard (try? go.read.waitReadable(seconds: 60)) == true else { return }
            let reply = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
            _ = reply.withCString { send(c, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }
    }

    // The pipes stay open: the thread may still hold them when the test ends.
    deinit { close(listener); close(closed) }

    func waitForRequest(within seconds: Double) -> Bool { (try? heard.read.waitReadable(seconds: seconds)) == true }
    func answer() { _ = try? go.write.writeAll([1]) }


    static func whole(_ bytes: [UInt8]) -> Bool {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        guard let at = (0...max(0, bytes.count - 4)).first(where: { bytes.count >= 4 && Array(bytes[$0..<$0 + 4]) == end }) else { return false }
        let head = String(decoding: bytes[..<at], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).filter { $0 != " " }) } ?? 0
        return bytes.count >= at + 4 + length
    }
}

private struct HeldOrielFailed: Error { var what: String; var errno: Int32 }
