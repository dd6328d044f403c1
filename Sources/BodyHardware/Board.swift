public import BodyCore
public import BodySystem

/// Where a line name was found.
public struct FoundLine: Sendable, Equatable, CustomStringConvertible {
    /// The chip's name, e.g. "gpiochip0".
    public var chip: String
    public var offset: UInt32
    public var name: String

    public init(chip: String, offset: UInt32, name: String) {
        self.chip = chip
        self.offset = offset
        self.name = name
    }

    public var description: String { "\"\(name)\" on \(chip) line \(offset)" }
}

/// A board that failed, in words that name the part, the action, the
/// object and the cause.
public struct BoardError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No chip has a line by that name.
        case lineNotFound
        /// More than one line has that name.
        case lineAmbiguous
        /// Another process holds the line.
        case busy
        /// The chip went away under a request (unplugged, unloaded): re-open later.
        case chipGone
        /// No permission on the chip device.
        case permission
        case other
    }

    public var kind: Kind
    public var words: String

    public init(_ kind: Kind, _ words: String) {
        self.kind = kind
        self.words = words
    }

    public var description: String { words }
}

/// The lamp, the LEDs and the buttons, real or simulated. All calls come
/// from the event loop's thread.
public protocol Board: AnyObject {
    var outputs: [OutputRole] { get }
    var buttons: [ButtonRole] { get }
    /// Every role's line, for `studio-body check`.
    var found: [(role: String, line: FoundLine)] { get }
    /// Drives an output; `lit` is the active level (active-low honoured).
    func drive(_ role: OutputRole, lit: Bool) throws(BoardError)
    /// Descriptors to watch for readability; `readEdges` drains one.
    var edgeDescriptors: [FileDescriptor] { get }
    /// Edges waiting on `fd`; never blocks. `pressed` honours active-low;
    /// `at` is the kernel's timestamp in CLOCK_MONOTONIC seconds.
    func readEdges(from fd: FileDescriptor) throws(BoardError) -> [ButtonEdge]
    /// The button's level now (active-low honoured).
    func isPressed(_ button: ButtonRole) throws(BoardError) -> Bool
    /// Edges the kernel dropped (gaps in sequence numbers) since the board
    /// opened; 0 where the API has no sequence numbers.
    var lostEdges: Int { get }
    /// Darkens the outputs and releases every line; safe twice.
    func release()
}
