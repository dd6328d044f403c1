import Glibc
import BodySystem
import BodyConfig
import BodyCore

/// Reading the few files the body needs, with the file named in every error.
enum Files {
    static func read(_ path: String) throws(ConfigError) -> String {
        guard let f = fopen(path, "r") else {
            throw ConfigError(file: path, line: nil, "cannot read: \(Errno.current.words)")
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n > 0 { bytes.append(contentsOf: buffer[0..<n]) }
            if n < buffer.count { break }
            if bytes.count > 1 << 20 { throw ConfigError(file: path, line: nil, "larger than 1 MiB: not a configuration file") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The token: the file must exist, hold a token, and be readable by its owner only.
    static func token(_ path: String) throws(ConfigError) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw ConfigError(file: path, line: nil, "cannot read the token file: \(Errno.current.words)")
        }
        let mode = st.st_mode & 0o777
        if mode & 0o077 != 0 {
            throw ConfigError(file: path, line: nil,
                              "the token file is readable by others (mode \(String(mode, radix: 8))); run chmod 600 \(path)")
        }
        let token = try read(path).split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first.map(String.init) ?? ""
        let trimmed = token.trimmed
        guard trimmed.count >= 16 else {
            throw ConfigError(file: path, line: nil, "the token is missing or shorter than 16 characters")
        }
        return trimmed
    }
}
