import Testing
import Glibc
@testable import BodySystem

/// Everything waiting in the read end, read now (the end is non-blocking).
private func drain(_ fd: FileDescriptor) throws -> [UInt8] {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = try valueOrNilIfWouldBlock(valueOrErrno {
            buffer.withUnsafeMutableBytes { system_read(fd.rawValue, $0.baseAddress, $0.count) }
        }).get()
        guard let n, n > 0 else { return out }
        out += buffer[..<n]
    }
}

/// Reads and flushes until nothing waits: the reader comes back.
private func readAll(_ fd: FileDescriptor, _ outlet: JournalOutlet) throws -> String {
    var bytes: [UInt8] = []
    repeat {
        bytes += try drain(fd)
        outlet.flush()
    } while outlet.pending > 0
    bytes += try drain(fd)
    return String(decoding: bytes, as: UTF8.self)
}

private func line(_ i: Int) -> [UInt8] { Array("line \(String(i + 10000).dropFirst()) of the body's log, as long as a real one\n".utf8) }

@Suite("The journal's outlet: the loop never waits for a reader that stopped", .serialized)
struct JournalOutletTests {
    @Test("a pipe nobody reads: every write returns at once, the bound holds, and the drop is said before the next line",
          .timeLimit(.minutes(1)))
    func pipeNobodyReads() throws {
        let (r, w) = try FileDescriptor.pipe()
        defer { try? r.close(); try? w.close() }
        let outlet = JournalOutlet(w, bound: 16 * 1024)
        #expect(outlet.descriptor != nil, "a pipe is watched for room")
        var clock = 100.0
        // 3,000 lines of 60 bytes: 180 KB, past the pipe's 64 KiB and the 16 KiB bound.
        for i in 0..<3000 { outlet.write(line(i), at: clock); clock += 0.01 }
        #expect(outlet.pending <= 16 * 1024)
        clock = 142.5
        let text = try readAll(r, outlet)
        outlet.write(Array("after the stall\n".utf8), at: clock)
        let after = try readAll(r, outlet)
        let kept = text.split(separator: "\n")
        #expect(kept.first == "line 0000 of the body's log, as long as a real one")
        // In order, none torn: each kept line is the next one.
        for (i, l) in kept.enumerated() { #expect(l == String(decoding: line(i).dropLast(), as: UTF8.self)) }
        let dropped = 3000 - kept.count
        #expect(dropped > 0)
        let started = 100.0 + Double(kept.count) * 0.01
        #expect(after == "log: \(JournalOutlet.grouped(dropped)) lines dropped in \(JournalOutlet.seconds(142.5 - started)): the journal was not reading\nafter the stall\n")
    }

    @Test("the reader came back but the loop has not flushed yet: the next line is not dropped", .timeLimit(.minutes(1)))
    func readerBackBeforeFlush() throws {
        let (r, w) = try FileDescriptor.pipe()
        defer { try? r.close(); try? w.close() }
        let outlet = JournalOutlet(w, bound: 16 * 1024)
        for i in 0..<3000 { outlet.write(line(i), at: 100) }  // dropping now
        // The journal reads everything, but no writable edge reached the loop: no flush.
        var text = String(decoding: try drain(r), as: UTF8.self)
        outlet.write(Array("the next line\n".utf8), at: 101)
        text += try readAll(r, outlet)
        #expect(text.hasSuffix("the journal was not reading\nthe next line\n"),
                "the line went out after the drop's note: \(text.suffix(200))")
    }

    @Test("a line from another thread goes through the same buffer, in order, whole", .timeLimit(.minutes(1)))
    func otherThread() async throws {
        let (r, w) = try FileDescriptor.pipe()
        defer { try? r.close(); try? w.close() }
        let outlet = JournalOutlet(w, bound: 1 << 20)
        for i in 0..<1500 { outlet.write(line(i)) }  // the pipe fills: the rest waits
        #expect(outlet.pending > 0)
        let other = Task.detached { for i in 1500..<2000 { outlet.write(line(i)) } }
        await other.value
        let text = try readAll(r, outlet)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2000)
        #expect(lines.last == "line 1999 of the body's log, as long as a real one")
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 < $1 }, "in order")
    }

    @Test("a socket (journald's stream) is sent to without waiting; a regular file is written as it is")
    func kinds() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        var size: Int32 = 4096
        setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let outlet = JournalOutlet(FileDescriptor(rawValue: pair[0]), bound: 64 * 1024)
        #expect(outlet.descriptor?.rawValue == pair[0])
        for i in 0..<2000 { outlet.write(line(i)) }
        #expect(outlet.pending > 0, "the socket is full; nothing blocked")
        _ = fcntl(pair[1], F_SETFL, O_NONBLOCK)
        let text = try readAll(FileDescriptor(rawValue: pair[1]), outlet)
        #expect(text.hasPrefix("line 0000"))

        let path = "/tmp/studio-body-outlet-\(getpid())"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd); unlink(path) }
        let file = JournalOutlet(FileDescriptor(rawValue: fd))
        #expect(file.descriptor == nil, "a file never stalls on a reader: nothing to watch")
        file.write(line(7))
        #expect(file.pending == 0)
    }

    @Test("a line given as prefix and words is the same whole line, to a socket and to a file")
    func prefixAndWords() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let outlet = JournalOutlet(FileDescriptor(rawValue: pair[0]))
        outlet.write(prefix: "<6>", "button kill: armed")
        outlet.write(prefix: "<4>", "ünïcode, and a long one: " + String(repeating: "x", count: 3000))
        _ = fcntl(pair[1], F_SETFL, O_NONBLOCK)
        let text = try readAll(FileDescriptor(rawValue: pair[1]), outlet)
        #expect(text == "<6>button kill: armed\n<4>ünïcode, and a long one: " + String(repeating: "x", count: 3000) + "\n")

        let path = "/tmp/studio-body-outlet-words-\(getpid())"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { unlink(path) }
        let file = JournalOutlet(FileDescriptor(rawValue: fd))
        file.write(prefix: "studio-body: ", "one")
        file.write(prefix: "studio-body: ", "twö")
        close(fd)
        let read = open(path, O_RDONLY)
        defer { close(read) }
        _ = fcntl(read, F_SETFL, O_NONBLOCK)
        #expect(String(decoding: try drain(FileDescriptor(rawValue: read)), as: UTF8.self) == "studio-body: one\nstudio-body: twö\n")
    }

    @Test("/dev/null (StandardError=null, 2>/dev/null) is nothing to watch: epoll refuses it, and it never waits")
    func devNull() throws {
        let fd = open("/dev/null", O_WRONLY)
        defer { close(fd) }
        let outlet = JournalOutlet(FileDescriptor(rawValue: fd))
        #expect(outlet.descriptor == nil)
        for i in 0..<100 { outlet.write(line(i)) }
        #expect(outlet.pending == 0)
    }

    @Test("a drop is said with its count grouped and its time in words", arguments: [
        (0.44, "0.4 s"), (9.94, "9.9 s"), (42.2, "42 s"), (1204.4, "1,204 s"),
    ])
    func words(seconds: Double, said: String) {
        #expect(JournalOutlet.seconds(seconds) == said)
        #expect(JournalOutlet.grouped(1204) == "1,204")
        #expect(JournalOutlet.grouped(1_000_000) == "1,000,000")
        #expect(JournalOutlet.grouped(999) == "999")
    }
}
