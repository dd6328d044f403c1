/// Blocking HTTP calls to a hub (Oriel, or the demo hub's calls to the body),
/// each with the bearer token. Call only from a thread of your own: never from
/// the body's loop thread.
public final class HubClient: Sendable {
    /// Seconds a POST may take in all, connecting included.
    public let timeout: Double
    /// The part named in error words: "hello: cannot reach ...".
    public let part: String
    /// For https: the server's public key pinned, curl's `sha256//BASE64`
    /// (`TLSPin.curl`); nil trusts the system's certificate authorities.
    public let pin: String?

    public init(timeout: Double = 10, part: String = "hello", pin: String? = nil) {
        self.timeout = timeout
        self.part = part
        self.pin = pin
    }

    /// POSTs `json`; any status outside 2xx is a failure naming it.
    public func post(_ url: String, token: String, json: [UInt8], headers: [(String, String)] = []) -> Result<HubResponse, HubError> {
        Curl.perform(Curl.Request(
            part: part, method: "POST", url: url,
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"), ("Accept", "application/json")] + headers,
            body: json, timeout: timeout, pin: pin))
    }

    /// GETs `url`, waiting at most `timeout` seconds (a long poll passes more than its wait).
    public func get(_ url: String, token: String, timeout: Double, headers: [(String, String)] = []) -> Result<HubResponse, HubError> {
        Curl.perform(Curl.Request(
            part: part, method: "GET", url: url,
            headers: [("Authorization", "Bearer \(token)"), ("Accept", "application/json")] + headers,
            body: nil, timeout: timeout, pin: pin))
    }
}
