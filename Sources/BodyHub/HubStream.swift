/// A connection to a server over HTTPS carrying whatever bytes the caller
/// writes, trusted as a `HubConnection` is (the certificate file as the only
/// authority and the pinned key): for a client that must see the exchange as
/// bytes (a test of headers as sent, or an event stream read as it comes).
/// Non-blocking after `open`; one caller at a time.
public final class HubStream: @unchecked Sendable {
    private let handle: Curl.Handle

    private init(handle: Curl.Handle) { self.handle = handle }

    /// Connects and shakes hands, waiting at most `timeout` seconds; a refusal in words.
    public static func open(_ url: String, part: String, pin: String, trust certificateFile: String,
                            timeout: Double) -> Result<HubStream, HubError> {
        guard let handle = Curl.Handle() else {
            return .failure(HubError(part: part, method: "CONNECT", url: url, reason: .failed("libcurl could not make a handle")))
        }
        let request = Curl.Request(part: part, method: "CONNECT", url: url, headers: [], body: nil, timeout: timeout,
                                   pin: pin, trust: certificateFile, anyStatus: true, connectOnly: true)
        return Curl.perform(request, on: handle).map { _ in HubStream(handle: handle) }
    }

    /// Bytes taken (0 when it would wait), nil when the connection failed.
    public func send(_ bytes: [UInt8]) -> Int? { handle.send(bytes) }

    /// Bytes read ([] when none yet), nil when the server closed or the connection failed.
    public func receive(max: Int = 65536) -> [UInt8]? { handle.receive(max: max) }
}
