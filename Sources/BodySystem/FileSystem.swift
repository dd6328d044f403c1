/// The few things the body does with whole files: read one it is given
/// (the configuration, the board file, the token), make a file or a folder
/// of its own (the demo's). Every failure is an `Errno`; the caller names the file.
public enum FileSystem {
    /// Every byte of `path`, but no more than `limit` + 1: a caller that gets
    /// more than `limit` knows the file is too large without reading all of it.
    /// The C functions are `open`, `read` and `close`.
    public static func read(_ path: String, limit: Int) throws(Errno) -> [UInt8] {
        let file = FileDescriptor(rawValue: try valueOrErrno { system_open_read(path) }.get())
        defer { try? file.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let n = try valueOrErrno { chunk.withUnsafeMutableBytes { system_read(file.rawValue, $0.baseAddress, $0.count) } }.get()
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// Makes `path`, which must not exist yet, readable and writable by `mode`
    /// (0o600: its owner only), and writes `bytes` into it. A file half
    /// written is removed by no one: the caller's folder is its own.
    /// The C functions are `open(O_CREAT | O_EXCL)`, `write` and `close`.
    public static func create(_ path: String, mode: UInt32, writing bytes: [UInt8]) throws(Errno) {
        let file = FileDescriptor(rawValue: try valueOrErrno { system_create_exclusive(path, mode) }.get())
        do throws(Errno) {
            try file.writeAll(bytes)
        } catch {
            try? file.close()
            throw error
        }
        try file.close()
    }

    /// A new folder, `prefix` followed by six characters that make it unique
    /// (e.g. /tmp/studio-body-demo-a8Xk2Q), readable by its owner only.
    /// The C function is `mkdtemp`.
    public static func makeTemporaryFolder(_ prefix: String) throws(Errno) -> String {
        try pointerOrErrno { system_mkdtemp(prefix + "XXXXXX") }.get()
    }

    /// Removes a folder this process made and the files in it (one level: a
    /// folder inside stays, and so does `path`, with ENOTEMPTY).
    /// The C functions are `opendir`/`readdir`, `unlink` and `rmdir`.
    public static func removeFolder(_ path: String) throws(Errno) {
        guard let names = system_directory_names(path) else { throw Errno.current }
        for name in names {
            let file = path + "/" + name
            if system_unlink(file) != 0 {
                let error = Errno.current
                if error != .isADirectory { throw error }
            }
        }
        _ = try valueOrErrno { system_rmdir(path) }.get()
    }
}
