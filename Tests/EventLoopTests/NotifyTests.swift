import Glibc
import Testing
@testable import BodyAgent

/// systemd's notify datagram, against a real AF_UNIX socket.
@Suite("Notify")
struct NotifyTests {
    @Test("a ping reaches the socket; a socket that is not there is a failure in words")
    func sendAndFail() throws {
        let path = "/tmp/studio-body-notify-\(getpid()).sock"
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd); unlink(path) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(Notify(path: path).send("WATCHDOG=1") == nil)
        var got = [UInt8](repeating: 0, count: 64)
        let n = recv(fd, &got, got.count, Int32(MSG_DONTWAIT))
        #expect(n > 0 && String(decoding: got[0..<max(0, n)], as: UTF8.self) == "WATCHDOG=1")

        let gone = "/tmp/studio-body-no-such-\(getpid()).sock"
        #expect(Notify(path: gone).send("READY=1\nSTATUS=serving")
                == "systemd: cannot send READY=1 to \(gone): No such file or directory")
        #expect(Notify(path: nil).send("WATCHDOG=1") == nil, "outside systemd there is nobody to tell")
    }
}
