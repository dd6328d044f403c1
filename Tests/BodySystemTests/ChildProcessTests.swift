import Testing
import Glibc
import BodySystem

@Suite("Child processes and local sockets: how the Pi camera's feeder runs the camera")
struct ChildProcessTests {
    /// Reads `fd` until its end: everything the child wrote.
    func drain(_ fd: FileDescriptor) throws -> String {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while try FileDescriptor.waitReadable([fd], seconds: 10) == [true] {
            let n = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
            if n == 0 { break }
            out += buffer[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("the command's standard output reaches the pipe; its exit status is read in words")
    func output() throws {
        let pipe = try FileDescriptor.pipe()
        let child = try ChildProcess.spawnShell("echo frames; exit 3", output: pipe.write)
        try pipe.write.close()
        defer { try? pipe.read.close() }
        #expect(try drain(pipe.read) == "frames\n")
        #expect(child.end() == .exited(3))
        #expect(child.ended?.description == "exited with status 3")
    }

    @Test("end stops a running command with SIGTERM, its whole process group")
    func terminate() throws {
        let pipe = try FileDescriptor.pipe()
        // sh stays (no exec), its sleep is a second process in the group.
        let child = try ChildProcess.spawnShell("sleep 30; echo never", output: pipe.write)
        try pipe.write.close()
        defer { try? pipe.read.close() }
        #expect(try child.poll() == nil)
        #expect(child.end(grace: 5) == .signalled(SIGTERM))
        // The pipe ends only when every holder of its write end (the sleep too) is gone.
        #expect(try drain(pipe.read) == "")
    }

    @Test("the command holds no descriptor past standard error: a pipe opened here without close-on-exec ends when this process closes it")
    func inheritsNothing() throws {
        var ends: [Int32] = [0, 0]
        #expect(Glibc.pipe(&ends) == 0)   // no O_CLOEXEC, as a library's might be
        let out = try FileDescriptor.pipe()
        let child = try ChildProcess.spawnShell("echo started; exec sleep 30", output: out.write)
        try out.write.close()
        defer { _ = child.end(grace: 1); try? out.read.close(); close(ends[0]) }
        // The shell speaks after the spawn's actions ran (under qemu-user a spawn returns
        // before the child has run them).
        #expect(try FileDescriptor.waitReadable([out.read], seconds: 60) == [true])
        close(ends[1])
        // Its end is seen at once: no other holder of the write end (the sleep) keeps it open.
        var ready = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 10_000) == 1, "the camera's command kept a descriptor it was never given")
        var byte: UInt8 = 0
        if ready.revents != 0 { #expect(read(ends[0], &byte, 1) == 0) }
    }

    @Test("a command that ignores SIGTERM is killed after the grace")
    func kill() throws {
        let pipe = try FileDescriptor.pipe()
        let child = try ChildProcess.spawnShell("trap '' TERM; echo armed; while :; do sleep 0.05; done", output: pipe.write)
        try pipe.write.close()
        defer { try? pipe.read.close() }
        _ = try FileDescriptor.waitReadable([pipe.read], seconds: 10)  // the trap is set
        #expect(child.end(grace: 0.2) == .signalled(SIGKILL))
        #expect(child.ended?.description == "ended by signal 9 (SIGKILL)")
    }

    @Test("signals are at their defaults in the child though this process ignores SIGPIPE: a closed reader ends it")
    func brokenPipe() throws {
        SignalDescriptor.ignoreBrokenPipe()
        let pipe = try FileDescriptor.pipe()
        try pipe.read.close()
        let child = try ChildProcess.spawnShell("exec yes", output: pipe.write)
        try pipe.write.close()
        #expect(try child.wait() == .signalled(SIGPIPE))
    }

    @Test("connecting says why it cannot: no socket there, or nobody listening")
    func connectFails() throws {
        let path = "/tmp/studio-body-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        #expect(throws: Errno.noSuchFileOrDirectory) { try LocalSocket.connect(path: path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd); unlink(path) }
        try bind(fd, path)
        #expect(throws: Errno.connectionRefused) { try LocalSocket.connect(path: path) }
        #expect(throws: Errno.nameTooLong) { try LocalSocket.connect(path: "/" + String(repeating: "x", count: 200)) }
    }

    @Test("a connection is accepted, and its end is seen by the other side")
    func connectAccept() throws {
        let path = "/tmp/studio-body-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listening); unlink(path) }
        try bind(listening, path)
        #expect(listen(listening, 4) == 0)
        let server = FileDescriptor(rawValue: listening)
        try server.makeNonBlocking()
        #expect(try LocalSocket.accept(from: server) == nil)
        let client = try LocalSocket.connect(path: path)
        let accepted = try #require(try LocalSocket.accept(from: server))
        try accepted.writeAll(Array("ready\n".utf8))
        #expect(try FileDescriptor.waitReadable([client, accepted], seconds: 5) == [true, false])
        // (Unread bytes at close would reset the connection: what the feeder's read takes as the end too.)
        var heard = [UInt8](repeating: 0, count: 16)
        #expect(try heard.withUnsafeMutableBytes { try client.read(into: $0) } == 6)
        try client.close()
        #expect(try FileDescriptor.waitReadable([accepted], seconds: 5) == [true])
        var byte: UInt8 = 0
        #expect(try withUnsafeMutableBytes(of: &byte) { try accepted.read(into: $0) } == 0)
        try accepted.close()
    }

    func bind(_ fd: Int32, _ path: String) throws {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(rc == 0)
    }
}
