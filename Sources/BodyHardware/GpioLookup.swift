/// Finding lines without requesting them, for `studio-body check` (which must
/// work while the daemon holds the lines).
public enum GpioLookup {
    /// Every name's chip and offset; a name on no chip or on two fails with the chips searched.
    public static func find(_ names: [String], devDirectory: String = "/dev") throws(BoardError) -> [String: FoundLine] {
        try GpioFinder(directory: devDirectory).find(names).mapValues(\.line)
    }

    /// Which libgpiod this build uses, e.g. "libgpiod 1.6.3 (v1 API)".
    public static var library: String { "libgpiod \(GpioBoard.libgpiodVersion) (v\(GpioBoard.libgpiodAPI) API)" }
}
