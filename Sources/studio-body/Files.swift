import BodySystem
import BodyConfig
import BodyCore

/// Reading the few files the body needs, with the file named in every error.
enum Files {
    static func read(_ path: String) throws(ConfigError) -> String {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: 1 << 20) } catch {
            throw ConfigError(file: path, line: nil, "cannot read: \(error.words)")
        }
        if bytes.count > 1 << 20 { throw ConfigError(file: path, line: nil, "larger than 1 MiB: not a configuration file") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The token: the file must exist, hold a token, and be readable by its owner only.
    static func token(_ path: String) throws(ConfigError) -> String {
        let mode: UInt32
        do { mode = try FileFacts.permissions(of: path) & 0o777 } catch {
            throw ConfigError(file: path, line: nil, "cannot read the token file: \(error.words)")
        }
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
