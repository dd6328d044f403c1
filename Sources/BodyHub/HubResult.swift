internal import FoundationEssentials

/// What a server answered: a 2xx status from HubClient, any status from a HubConnection.
public struct HubResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// The answer's Content-Type, when it had one.
    public var contentType: String?

    public init(status: Int, body: [UInt8], contentType: String? = nil) {
        self.status = status
        self.body = body
        self.contentType = contentType
    }
}

/// Why a request to a hub did not succeed, in words for the journal.
///
/// Equatable so a caller can log a failure once per change, not once per try.
public struct HubError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// No connection: refused, no route, or the name did not resolve. Carries libcurl's words.
        case unreachable(String)
        /// No complete answer within this many seconds.
        case timedOut(Double)
        /// An answer with a status outside 2xx, and the `error` words of its body if it had them.
        case status(Int, String?)
        /// Anything else that stopped the request, in words.
        case failed(String)
    }

    /// The part of the body that asked, e.g. "hello".
    public var part: String
    public var method: String
    public var url: String
    public var reason: Reason

    public init(part: String, method: String, url: String, reason: Reason) {
        self.part = part
        self.method = method
        self.url = url
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .unreachable(let cause):
            return "\(part): cannot reach \(url): \(cause)"
        case .timedOut(let seconds):
            return "\(part): no answer from \(url) within \(Self.seconds(seconds))"
        case .status(let status, let words):
            let head = "\(part): \(method) \(url) answered \(status) \(Self.phrase(status))"
            return words.map { "\(head): \($0)" } ?? head
        case .failed(let cause):
            return "\(part): cannot \(method) \(url): \(cause)"
        }
    }

    private static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }

    private static func phrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 300..<400: return "(a redirect, which the body does not follow)"
        default: return "(not a success)"
        }
    }
}

extension HubError {
    /// The words of a `{"error": "..."}` answer, cut to 160 characters; nil for
    /// any other body. A hub's answer is untrusted bytes (the fuzz target reads it too).
    package static func words(answer bytes: [UInt8]) -> String? {
        struct Answer: Decodable { var error: String }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(bytes)), !answer.error.isEmpty else { return nil }
        return String(answer.error.prefix(160))
    }
}
