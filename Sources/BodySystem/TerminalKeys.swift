/// A terminal read a key at a time: no line editing, no echo, while a command
/// such as `studio-body watch` takes single keys; the person's own settings
/// back on `restore()`. Ctrl-C still sends SIGINT and "\n" still starts a new
/// line on the screen. Restored on `restore()` or deinit, safe twice.
/// The C functions are `isatty`, `tcgetattr` and `tcsetattr`.
public final class TerminalKeys {
    public let descriptor: FileDescriptor
    private var saved: system_termios?

    /// Whether `fd` is a terminal (else its input comes as lines, from a pipe or a file).
    public static func isTerminal(_ fd: FileDescriptor) -> Bool {
        system_isatty(fd.rawValue) == 1
    }

    /// Reads the terminal's settings, keeps them, and sets keys one at a
    /// time. Not a terminal: ENOTTY.
    public init(_ fd: FileDescriptor) throws(Errno) {
        descriptor = fd
        var settings = system_termios()
        try nothingOrErrno { system_tcgetattr(fd.rawValue, &settings) }.get()
        var keys = settings
        system_termios_keys(&keys)
        try nothingOrErrno { system_tcsetattr_drain(fd.rawValue, &keys) }.get()
        saved = settings
    }

    deinit { restore() }

    /// Whether the terminal reads keys one at a time now (for tests).
    public static func readsKeys(_ fd: FileDescriptor) throws(Errno) -> Bool {
        var settings = system_termios()
        try nothingOrErrno { system_tcgetattr(fd.rawValue, &settings) }.get()
        return system_termios_reads_keys(settings)
    }

    /// The settings as they were; a terminal gone meanwhile has nothing to restore.
    public func restore() {
        guard var settings = saved else { return }
        saved = nil
        _ = system_tcsetattr_drain(descriptor.rawValue, &settings)
    }
}
