/// What a person's process may know about a file without opening it.
public enum FileFacts {
    /// Why this process may not read `path`; nil when it may. The C function is `access`.
    public static func readError(_ path: String) -> Errno? {
        system_access(path, read: true) == 0 ? nil : Errno.current
    }

    /// True when `path` is there (through links). The C function is `access`.
    public static func exists(_ path: String) -> Bool {
        system_access(path, read: false) == 0
    }

    /// The name of the user owning `path`, e.g. "studio-body"; nil when unknown.
    public static func owner(of path: String) -> String? {
        system_owner_name(path)
    }

    /// The permission bits of `path` (through links), e.g. 0o600. The C function is `stat`.
    public static func permissions(of path: String) throws(Errno) -> UInt32 {
        UInt32(try valueOrErrno { system_permissions(path) }.get())
    }
}
