/// A gpsd session that failed, in words: the part, the action, the object, the cause.
public struct GpsdError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Nothing answered at the address: gpsd is not running there.
        case unreachable
        /// The connection broke or gpsd closed it during the watch.
        case lost
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
