import Synchronization

/// One connection to a server over HTTPS, trusted the way Oriel trusts a body:
/// its own certificate file as the only authority and its public key pinned,
/// never verification switched off. Kept alive between requests (one handshake
/// for many), one request at a time; any status is an answer. Blocking: call
/// from a thread of your own.
public final class HubConnection: Sendable {
    public let part: String
    /// curl's `sha256//BASE64` (`TLSPin.curl`).
    public let pin: String
    /// The certificate file trusted as the only authority.
    public let trust: String
    private let handle = Mutex<Curl.Handle?>(nil)

    /// Connections opened so far: 1 for many requests while the server keeps it alive.
    public var connectionsOpened: Int { handle.withLock { $0?.opened ?? 0 } }

    public init(part: String, pin: String, trust certificateFile: String) {
        self.part = part
        self.pin = pin
        self.trust = certificateFile
    }

    /// Sends one request and waits at most `timeout` seconds; a failure is the
    /// connection's (refused, not trusted, timed out), in words.
    public func send(_ method: String, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                     timeout: Double) -> Result<HubResponse, HubError> {
        handle.withLock { kept in
            if kept == nil { kept = Curl.Handle() }
            return Curl.perform(Curl.Request(part: part, method: method, url: url, headers: headers, body: body,
                                             timeout: timeout, pin: pin, trust: trust, anyStatus: true), on: kept)
        }
    }
}
