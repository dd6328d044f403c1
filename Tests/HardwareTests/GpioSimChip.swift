import Foundation
import Glibc
import BodySystem
import BodyTestSupport

/// Tests run inside the HIL VM only (Tests/hil/gpio-tests sets this).
let insideHIL = ProcessInfo.processInfo.environment["STUDIO_BODY_HIL"] == "1"

struct SimChipError: Error, CustomStringConvertible {
    var description: String
}

/// A real gpio-sim chip, made through configfs for one test and removed
/// after it: the kernel's own GPIO character device, not a fake.
final class GpioSimChip {
    static let configfs = "/sys/kernel/config/gpio-sim"

    let name: String
    let lines: [String]
    private var dir: String { "\(Self.configfs)/\(name)" }

    /// `pulls` sets a line's simulated pull before the test starts ("pull-up").
    init(_ name: String, lines: [String], pulls: [String: String] = [:]) throws {
        self.name = name
        self.lines = lines
        try? remove()
        try Self.mkdir(dir)
        try Self.mkdir("\(dir)/gpio-bank0")
        try Self.write("\(dir)/gpio-bank0/label", name)
        try Self.write("\(dir)/gpio-bank0/num_lines", "\(lines.count)")
        for (i, line) in lines.enumerated() {
            try Self.mkdir("\(dir)/gpio-bank0/line\(i)")
            try Self.write("\(dir)/gpio-bank0/line\(i)/name", line)
        }
        try setLive(true)
        for (line, pull) in pulls { try setPull(line, pull) }
    }

    deinit { try? remove() }

    /// "gpiochipN" while live.
    var chipName: String { (try? Self.read("\(dir)/gpio-bank0/chip_name")) ?? "" }

    func offset(_ line: String) throws -> Int {
        guard let i = lines.firstIndex(of: line) else { throw SimChipError(description: "no line \(line) on \(name)") }
        return i
    }

    private func simDir(_ line: String) throws -> String {
        let dev = try Self.read("\(dir)/dev_name")
        return "/sys/devices/platform/\(dev)/\(chipName)/sim_gpio\(try offset(line))"
    }

    /// The level on the wire: what a consumer drives, or the pull on an input.
    func value(_ line: String) throws -> Int {
        guard let v = Int(try Self.read("\(try simDir(line))/value")) else {
            throw SimChipError(description: "\(line): value is not a number")
        }
        return v
    }

    /// "pull-up" or "pull-down": the simulated outside world; makes edges on an input.
    func setPull(_ line: String, _ pull: String) throws {
        try Self.write("\(try simDir(line))/pull", pull)
    }

    /// Writes pulls through one open descriptor, fast enough to look like
    /// contact bounce (opening the file each time is slow in the VM).
    func bounce(_ line: String, pulls: [String]) throws {
        let path = "\(try simDir(line))/pull"
        let fd = open(path, O_WRONLY)
        if fd < 0 { throw SimChipError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        for pull in pulls {
            let bytes = Array(pull.utf8)
            if Glibc.write(fd, bytes, bytes.count) < 0 {
                throw SimChipError(description: "cannot write \"\(pull)\" to \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    func setLive(_ live: Bool) throws {
        try Self.write("\(dir)/live", live ? "1" : "0")
    }

    func remove() throws {
        guard access(dir, F_OK) == 0 else { return }
        try? setLive(false)
        for i in lines.indices { _ = rmdir("\(dir)/gpio-bank0/line\(i)") }
        _ = rmdir("\(dir)/gpio-bank0")
        if rmdir(dir) < 0 { throw SimChipError(description: "cannot remove \(dir): \(String(cString: strerror(errno)))") }
    }

    private static func mkdir(_ path: String) throws {
        if Glibc.mkdir(path, 0o755) < 0 {
            throw SimChipError(description: "cannot mkdir \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY)
        if fd < 0 { throw SimChipError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        if Glibc.write(fd, bytes, bytes.count) < 0 {
            throw SimChipError(description: "cannot write \"\(text)\" to \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY)
        if fd < 0 { throw SimChipError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = Glibc.read(fd, &buffer, buffer.count)
        if n < 0 { throw SimChipError(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
        return String(decoding: buffer.prefix(n), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Seconds on CLOCK_MONOTONIC, the kernel timestamps' scale.

/// poll(2) events on `fd` within `ms` (0 when none came).
func waitReadable(_ fd: FileDescriptor, ms: Int32 = 2000) -> Int16 {
    var p = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
    let n = poll(&p, 1, ms)
    return n > 0 ? p.revents : 0
}
