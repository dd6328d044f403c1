public import BodySystem

/// Why the server could not start, in words, with the errno when a system call said it.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public let errno: Errno?

    init(_ description: String) {
        self.description = description
        errno = nil
    }

    init(_ what: String, _ errno: Errno) {
        description = "\(what): \(errno.words)"
        self.errno = errno
    }

    init(_ what: String, _ code: Int32) { self.init(what, Errno(code)) }
}
