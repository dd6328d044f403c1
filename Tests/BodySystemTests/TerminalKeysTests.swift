import Testing
import Glibc
@testable import BodySystem

// The Glibc module leaves out the pseudo-terminal calls (they need
// _XOPEN_SOURCE); the test declares the four it uses, plain C symbols of libc.
@_silgen_name("posix_openpt") private func posix_openpt(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantpt(_ fd: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockpt(_ fd: Int32) -> Int32
@_silgen_name("ptsname") private func ptsname(_ fd: Int32) -> UnsafeMutablePointer<CChar>?

/// A pseudo-terminal's two ends: what the test types goes in at `typing`,
/// and `terminal` is what the command reads, as from a person's terminal.
private struct PseudoTerminal {
    let typing: Int32
    let terminal: Int32

    init() throws {
        typing = posix_openpt(O_RDWR | O_NOCTTY)
        guard typing >= 0, grantpt(typing) == 0, unlockpt(typing) == 0, let name = ptsname(typing) else {
            throw Errno.current
        }
        terminal = open(name, O_RDWR | O_NOCTTY)
        guard terminal >= 0 else { throw Errno.current }
    }

    func close() {
        Glibc.close(terminal)
        Glibc.close(typing)
    }

    /// Whether the terminal is in line mode (ICANON) and echoes (ECHO).
    var lineModeAndEcho: (Bool, Bool) {
        var t = termios()
        tcgetattr(terminal, &t)
        return (t.c_lflag & tcflag_t(ICANON) != 0, t.c_lflag & tcflag_t(ECHO) != 0)
    }
}

@Suite("a terminal read a key at a time, and given back as it was")
struct TerminalKeysTests {
    @Test("keys one at a time without echo; Ctrl-C still a signal; restored on restore(), safe twice")
    func rawAndBack() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let fd = FileDescriptor(rawValue: pty.terminal)
        #expect(TerminalKeys.isTerminal(fd))
        #expect(pty.lineModeAndEcho == (true, true), "a fresh terminal edits lines and echoes")
        #expect(try TerminalKeys.readsKeys(fd) == false)

        let keys = try TerminalKeys(fd)
        #expect(pty.lineModeAndEcho == (false, false))
        #expect(try TerminalKeys.readsKeys(fd))
        var t = termios()
        tcgetattr(pty.terminal, &t)
        #expect(t.c_lflag & tcflag_t(ISIG) != 0, "Ctrl-C still sends SIGINT, which the loop hears")
        #expect(t.c_oflag & tcflag_t(OPOST) != 0, "a new line still starts at the left")

        // One key typed is readable at once, without a return.
        var key: UInt8 = 0x31
        #expect(write(pty.typing, &key, 1) == 1)
        #expect(try fd.waitReadable(seconds: 5))
        var got = [UInt8](repeating: 0, count: 8)
        let n = try got.withUnsafeMutableBytes { try fd.read(into: $0) }
        #expect(Array(got.prefix(n)) == [0x31])

        keys.restore()
        #expect(pty.lineModeAndEcho == (true, true))
        keys.restore()
        #expect(pty.lineModeAndEcho == (true, true))
    }

    @Test("a pipe is no terminal: keys come as lines, and raw mode is refused in words")
    func pipeIsNoTerminal() throws {
        let ends = try FileDescriptor.pipe()
        defer { try? ends.read.close(); try? ends.write.close() }
        #expect(!TerminalKeys.isTerminal(ends.read))
        #expect(throws: Errno(ENOTTY)) { try TerminalKeys(ends.read) }
    }
}
