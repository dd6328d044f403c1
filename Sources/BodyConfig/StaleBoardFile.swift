/// A `[board] file` that `make install` put under /usr/local/share, gone since
/// `make uninstall`: what a configuration kept while moving to the Debian
/// package (whose board files are under /usr/share) points at. No I/O: the
/// caller says which paths exist.
public enum StaleBoardFile {
    static let makeInstallShare = "/usr/local/share/"
    static let packageShare = "/usr/share/"

    /// One mistake naming the configuration's line and the file to use instead;
    /// nil when the board file is there or is not under /usr/local/share.
    public static func check(_ config: BodyConfig, exists: (String) -> Bool) -> ConfigError? {
        guard let board = config.boardFile, board.hasPrefix(makeInstallShare), !exists(board) else { return nil }
        let packaged = packageShare + board.dropFirst(makeInstallShare.count)
        let use = exists(packaged)
            ? "set `file = \(packaged)` (the package's copy)"
            : "copy a board file to /etc/studio-body/board.conf and set `file = /etc/studio-body/board.conf`"
        return ConfigError(file: config.file, line: config.boardFileLine,
                           "[board] file \(board) does not exist (make uninstall removes /usr/local/share/studio-body): \(use)")
    }
}
