/// Finding lines without requesting them, for `studio-body check` (which must
/// work while the daemon holds the lines).
public enum GpioLookup {
    /// Every name's chip and offset; a name on no chip or on two fails with the chips searched.
    public static func find(_ names: [String], devDirectory: String = "/dev") throws(BoardError) -> [String: FoundLine] {
        try places(names, devDirectory: devDirectory).mapValues(\.line)
    }

    /// `find`, with the path each chip was opened by (the kernel's name may differ from it).
    public static func places(_ names: [String], devDirectory: String = "/dev") throws(BoardError) -> [String: (path: String, line: FoundLine)] {
        try GpioFinder(directory: devDirectory).find(names)
    }

    /// Which libgpiod this build uses, e.g. "libgpiod 1.6.3 (v1 API)".
    public static var library: String { "libgpiod \(GpioBoard.libgpiodVersion) (v\(GpioBoard.libgpiodAPI) API)" }
}
