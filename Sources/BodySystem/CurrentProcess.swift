/// The running process: its environment, its id and its end.
public enum CurrentProcess {
    /// The value of `name` in the environment; nil when it is not set.
    /// The C function is `getenv`.
    public static func environment(_ name: String) -> String? { system_getenv(name) }

    /// This process's id. The C function is `getpid`.
    public static var id: Int32 { system_getpid() }

    /// Ends the process with `code`: standard output flushed, the C library's
    /// exit handlers skipped. They would tear libraries down (OpenSSL's
    /// cleanup) under threads still inside them (a libcurl transfer: the demo
    /// hub's long poll, a hello), which crashed about one stop in ten. The
    /// C functions are `fflush(NULL)` and `_exit`.
    public static func exit(_ code: Int32) -> Never { system_exit(code) }
}

/// The kernel's host name, e.g. "studio" (not Avahi's "studio.local").
public enum HostName {
    /// The C function is `gethostname`; it fails only with a bad buffer, which
    /// this is not, but its failure is said rather than assumed away.
    public static func current() throws(Errno) -> String {
        // HOST_NAME_MAX is 64 on Linux; room for it and its NUL.
        var name = [CChar](repeating: 0, count: 256)
        try nothingOrErrno { system_gethostname(&name) }.get()
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
