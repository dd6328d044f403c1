import Foundation

/// Files of this repository, found from this file's own path (Tests/BodyTestSupport/).
public enum Repository {
    /// The repository's top directory.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `path` (relative to the top) as a URL.
    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// The text of the file at `path` (relative to the top).
    public static func text(_ path: String) throws -> String { try String(contentsOf: url(path), encoding: .utf8) }

    /// The studio-body binary under test: $STUDIO_BODY_BIN (the VM's runs set it),
    /// or the debug build beside the tests.
    public static var studioBody: String {
        ProcessInfo.processInfo.environment["STUDIO_BODY_BIN"] ?? url(".build/debug/studio-body").path
    }
}
