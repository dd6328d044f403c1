/// What the file system says of a path in /dev: which device it is, through
/// any links. A device is known by its number (`st_rdev`), not its path: a
/// distribution's udev rules may add links to it (Raspberry Pi OS's
/// /dev/gpiochip4) and a kernel may renumber it.
public struct DeviceNode: Equatable, Sendable, CustomStringConvertible {
    public var path: String
    /// The character device's number; nil when the path is no character device.
    public var device: UInt64?
    /// True when the path itself is a symbolic link.
    public var isLink: Bool

    public init(path: String, device: UInt64?, isLink: Bool) {
        self.path = path
        self.device = device
        self.isLink = isLink
    }

    /// stat(2) and lstat(2) of `path`; a path that does not resolve is no device.
    public static func at(_ path: String) -> DeviceNode {
        var isCharacter = false
        var device: UInt64 = 0
        let found = system_stat_character_device(path, &isCharacter, &device) == 0 && isCharacter
        return DeviceNode(path: path, device: found ? device : nil, isLink: system_is_symlink(path) == 1)
    }

    /// The names in `directory`. The C functions are `opendir` and `readdir`.
    public static func names(in directory: String) throws(Errno) -> [String] {
        try pointerOrErrno { system_directory_names(directory) }.get()
    }

    /// "MAJOR:MINOR", as glibc's `major` and `minor` split the number.
    public var number: String? {
        device.map { "\(($0 >> 8) & 0xfff | ($0 >> 32) & ~0xfff):\($0 & 0xff | ($0 >> 12) & ~0xff)" }
    }

    public var description: String {
        "\(path) (\(isLink ? "a link, " : "")\(number.map { "character device \($0)" } ?? "not a character device"))"
    }
}
