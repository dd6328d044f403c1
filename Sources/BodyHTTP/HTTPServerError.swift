import Glibc

/// Why the server could not start, in words.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
    init(_ what: String, _ code: Int32) { description = "\(what): \(String(cString: strerror(code)))" }
}
