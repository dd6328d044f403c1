import Testing
import Glibc
import Synchronization
@testable import BodySystem

/// A test-only datagram socket bound at `path` (the notify socket's reader).
private func boundDatagramSocket(_ path: String) -> Int32 {
    unlink(path)
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
    let bound = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    return bound == 0 ? fd : -1
}

private func received(_ fd: Int32) -> String? {
    var got = [UInt8](repeating: 0, count: 128)
    let n = recv(fd, &got, got.count, Int32(MSG_DONTWAIT))
    return n < 0 ? nil : String(decoding: got[0..<n], as: UTF8.self)
}

@Suite("systemd's notify socket")
struct NotifySocketTests {
    @Test("no path or an empty one is no socket: outside systemd there is nobody to tell")
    func absent() {
        #expect(NotifySocket(path: nil) == nil)
        #expect(NotifySocket(path: "") == nil)
    }

    @Test("a state reaches the socket at a path, and one at an abstract name")
    func sends() throws {
        let path = "/tmp/studio-body-notify-test-\(getpid()).sock"
        let fd = boundDatagramSocket(path)
        defer { close(fd); unlink(path) }
        try #require(fd >= 0)
        try #require(NotifySocket(path: path)).send("READY=1\nSTATUS=serving")
        #expect(received(fd) == "READY=1\nSTATUS=serving")

        // "@name" is the abstract name "\0name", as systemd writes it.
        let name = "studio-body-notify-test-\(getpid())"
        let abstract = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(abstract) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in name.utf8.enumerated() { raw[i + 1] = b } }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.utf8.count)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(abstract, $0, length) } }
        try #require(bound == 0)
        try #require(NotifySocket(path: "@" + name)).send("WATCHDOG=1")
        #expect(received(abstract) == "WATCHDOG=1")
    }

    @Test("a socket that is not there, one nobody reads and a path too long each fail with their errno")
    func unreachable() throws {
        let gone = try #require(NotifySocket(path: "/tmp/studio-body-no-such-\(getpid()).sock"))
        #expect(throws: Errno.noSuchFileOrDirectory) { try gone.send("READY=1") }

        // Bound once, its reader closed: the file stays, nobody reads.
        let path = "/tmp/studio-body-notify-closed-\(getpid()).sock"
        close(boundDatagramSocket(path))
        defer { unlink(path) }
        let closed = try #require(NotifySocket(path: path))
        let error = try #require(throws: Errno.self) { try closed.send("WATCHDOG=1") }
        #expect(error == .connectionRefused)
        #expect(error.words == "Connection refused")

        let long = try #require(NotifySocket(path: "/tmp/" + String(repeating: "x", count: 200)))
        #expect(throws: Errno.nameTooLong) { try long.send("READY=1") }
    }

    @Test("sending opens no descriptor it does not close")
    func noLeak() throws {
        let before = try DeviceNode.names(in: "/proc/self/fd").count
        let gone = try #require(NotifySocket(path: "/tmp/studio-body-no-such-\(getpid()).sock"))
        for _ in 0..<50 { _ = try? gone.send("WATCHDOG=1") }
        // Other tests run beside this one and open their own; 50 leaked ones would show.
        #expect(try DeviceNode.names(in: "/proc/self/fd").count < before + 20)
    }
}

/// Interrupted by SIGWINCH: its handler only counts (installed without
/// SA_RESTART, so a wait it interrupts returns EINTR).
private let interruptions = Atomic<Int>(0)

/// What the waiting thread saw, shared with the test's thread.
private final class Waiter: Sendable {
    let thread = Mutex<pthread_t?>(nil)
    let result = Mutex<Result<Void, Errno>?>(nil)
    let posted = Atomic<Bool>(false)
}

@Suite("The semaphore between threads")
struct SemaphoreTests {
    @Test("a post is taken once; taking from 0 says no at once instead of waiting")
    func postAndTake() throws {
        let s = try Semaphore()
        #expect(try s.take() == false)
        try s.post()
        try s.post()
        #expect(try s.take() == true)
        try s.wait()
        #expect(try s.take() == false)
    }

    @Test("a wait on another thread ends with the post, and a signal in between is waited through (EINTR retried)",
          .timeLimit(.minutes(1)))
    func waitThroughSignal() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        try #require(sigaction(SIGWINCH, &action, nil) == 0)

        let s = try Semaphore()
        let done = try Semaphore()
        let w = Waiter()
        try WorkerThread.detach {
            // A thread started from the test runner's inherits its blocked signals: SIGWINCH must reach this one.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGWINCH)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            w.thread.withLock { $0 = pthread_self() }
            let result = Result { () throws(Errno) in try s.wait() }
            // The wait must not end before the post: an EINTR passed up would end it early.
            w.result.withLock { $0 = w.posted.load(ordering: .acquiring) ? result : .failure(.interrupted) }
            try? done.post()
        }
        var thread: pthread_t?
        while thread == nil { thread = w.thread.withLock { $0 }; SystemClock.sleep(0.001) }
        let before = interruptions.load(ordering: .relaxed)
        // Signals until several were handled on that thread, which is then waiting.
        var sent = 0
        while interruptions.load(ordering: .relaxed) < before + 5 && sent < 1_000 {
            pthread_kill(thread!, SIGWINCH)
            sent += 1
            SystemClock.sleep(0.005)
        }
        #expect(interruptions.load(ordering: .relaxed) >= before + 5, "the waiting thread heard the signals")
        w.posted.store(true, ordering: .releasing)
        try s.post()
        try done.wait()
        let result = try #require(w.result.withLock { $0 })
        #expect(throws: Never.self) { try result.get() }
    }
}

@Suite("The process: its environment, host name and threads")
struct ProcessTests {
    @Test("an environment variable set is read; one unset is nil")
    func environment() {
        setenv("STUDIO_BODY_TEST_VALUE", "42", 1)
        defer { unsetenv("STUDIO_BODY_TEST_VALUE") }
        #expect(CurrentProcess.environment("STUDIO_BODY_TEST_VALUE") == "42")
        #expect(CurrentProcess.environment("STUDIO_BODY_NO_SUCH_VARIABLE") == nil)
        #expect(CurrentProcess.id == getpid())
    }

    @Test("the host name is the kernel's")
    func hostName() throws {
        let kernel = try String(decoding: FileSystem.read("/proc/sys/kernel/hostname", limit: 256), as: UTF8.self)
        #expect(try HostName.current() == kernel.split(separator: "\n").first.map(String.init))
    }

    @Test("a worker thread runs its work", .timeLimit(.minutes(1)))
    func worker() throws {
        let ran = try Semaphore()
        try WorkerThread.detach { try? ran.post() }
        try ran.wait()
    }
}

@Suite("Whole files")
struct FileSystemTests {
    @Test("a file made is read back; made again it is EEXIST; its mode is what was asked")
    func createAndRead() throws {
        let dir = try FileSystem.makeTemporaryFolder("/tmp/studio-body-test-")
        defer { unlink(dir + "/token"); rmdir(dir) }
        #expect(dir.hasPrefix("/tmp/studio-body-test-") && dir.count == "/tmp/studio-body-test-".count + 6)
        #expect(try FileFacts.permissions(of: dir) == 0o700)
        try FileSystem.create(dir + "/token", mode: 0o600, writing: Array("secret\n".utf8))
        #expect(try FileSystem.read(dir + "/token", limit: 100) == Array("secret\n".utf8))
        #expect(try FileFacts.permissions(of: dir + "/token") == 0o600)
        #expect(throws: Errno.fileExists) { try FileSystem.create(dir + "/token", mode: 0o600, writing: []) }
    }

    // The name is read from the buffer mkdtemp filled in (a1a9544: read after that
    // buffer was gone, it crashed `studio-body demo` built -O with Swift 6.2.3).
    // A hundred, not two: on that old code one or two calls crash ("initialize
    // overlapping range") only when malloc hands the freed buffer back for the
    // name, 9 of 20 runs of two under scripts/cross test trixie; a hundred, 21 of 21.
    @Test("each folder made is a directory that exists, of mode 0700, named the prefix and six characters of its own")
    func temporaryFolders() throws {
        let prefix = "/tmp/studio-body-mkdtemp-"
        var names: [String] = []
        defer { names.forEach { rmdir($0) } }  // registered first: a throw part-way leaves none behind
        for _ in 0..<100 { names.append(try FileSystem.makeTemporaryFolder(prefix)) }
        #expect(Set(names).count == names.count, "\(names.count) names, \(Set(names).count) of them apart")
        for name in names {
            #expect(name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 && !name.hasSuffix("XXXXXX"), "\(name)")
            var facts = stat()
            try #require(stat(name, &facts) == 0, "\(name) does not exist: \(Errno.current)")
            #expect(facts.st_mode & S_IFMT == S_IFDIR && facts.st_mode & 0o7777 == 0o700, "\(name): mode \(String(facts.st_mode, radix: 8))")
        }
    }

    @Test("a folder made is removed with its files; one with a folder inside stays, with ENOTEMPTY; a missing one is ENOENT")
    func removeFolder() throws {
        let dir = try FileSystem.makeTemporaryFolder("/tmp/studio-body-remove-")
        for name in ["token", "tls.key", "tls.crt"] { try FileSystem.create(dir + "/" + name, mode: 0o600, writing: [1, 2]) }
        try FileSystem.removeFolder(dir)
        #expect(access(dir, F_OK) != 0 && Errno.current == .noSuchFileOrDirectory, "\(dir) is still there")
        let nested = try FileSystem.makeTemporaryFolder("/tmp/studio-body-remove-")
        defer { rmdir(nested + "/inner"); rmdir(nested) }
        try FileSystem.create(nested + "/token", mode: 0o600, writing: [])
        #expect(mkdir(nested + "/inner", 0o700) == 0)
        #expect(throws: Errno(ENOTEMPTY)) { try FileSystem.removeFolder(nested) }
        #expect(access(nested + "/token", F_OK) != 0, "the file beside the inner folder went")
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileSystem.removeFolder("/nonexistent/studio-body-x") }
    }

    @Test("a read stops one byte past its limit, so a file too large is known without reading it all")
    func limit() throws {
        let bytes = try FileSystem.read("/proc/self/maps", limit: 10)
        #expect(bytes.count > 10 && bytes.count <= 10 + 4096)
    }

    @Test("a file that is not there, or a folder, is an errno in words")
    func failures() {
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileSystem.read("/nonexistent/body.conf", limit: 10) }
        #expect(throws: Errno(EISDIR)) { try FileSystem.read("/tmp", limit: 10) }
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileFacts.permissions(of: "/nonexistent/token") }
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileSystem.makeTemporaryFolder("/nonexistent/x-") }
    }
}

@Suite("Internet addresses from text")
struct InternetAddressTests {
    @Test("IPv4 and IPv6 in numbers, the wildcard of each known", arguments: [
        ("127.0.0.1", false, false, 16), ("0.0.0.0", false, true, 16),
        ("::1", true, false, 28), ("::", true, true, 28), ("0::0", true, true, 28),
    ])
    func parsed(text: String, v6: Bool, any: Bool, size: Int) throws {
        let a = try #require(InternetAddress(numeric: text, port: 8790))
        #expect(a.isIPv6 == v6)
        #expect(a.isAny == any)
        a.withSocketAddress { raw, count in
            #expect(count == size)
            // The port in network order after the family.
            #expect(raw.load(fromByteOffset: 2, as: UInt8.self) == 0x22 && raw.load(fromByteOffset: 3, as: UInt8.self) == 0x56)
        }
    }

    @Test("a name or a wrong number is no address", arguments: ["localhost", "300.1.1.1", "studio.local", "", "1.2.3"])
    func refused(text: String) {
        #expect(InternetAddress(numeric: text, port: 1) == nil)
    }
}

@Suite("Bytes searched")
struct ByteSearchTests {
    @Test("the first byte from an index, before an end; none found is nil")
    func first() {
        let bytes: [UInt8] = [0xFF, 0x00, 0x12, 0xFF, 0xD9]
        bytes.withUnsafeBytes { b in
            #expect(ByteSearch.first(0xFF, in: b, from: 0) == 0)
            #expect(ByteSearch.first(0xFF, in: b, from: 1) == 3)
            #expect(ByteSearch.first(0xFF, in: b, from: 1, end: 3) == nil)
            #expect(ByteSearch.first(0xD9, in: b, from: 5) == nil)
            #expect(ByteSearch.first(0xAA, in: b, from: 0) == nil)
        }
    }
}
