internal import CCurl
internal import FoundationEssentials

/// The one file that calls libcurl (through CCurl, which loads it at the first
/// request): one easy handle per request, made and cleaned up here on every path,
/// or one `Handle` kept for many (its connection kept alive between them).
enum Curl {
    /// Answers larger than this are cut off as a failure: a hub's answers are small.
    static let answerLimit = 1 << 20

    /// libcurl is loaded at the first request (ccurl.h: a body that never
    /// calls Oriel never maps it), and again at the next if that failed;
    /// nil when ready, else why it is not.
    private static func unready() -> String? {
        var why = [CChar](repeating: 0, count: 256)
        guard body_curl_load(&why, why.count) != 0 else { return nil }
        return String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    struct Request {
        var part: String
        var method: String
        var url: String
        var headers: [(String, String)]
        var body: [UInt8]?
        var timeout: Double
        /// For https: the server's public key, pinned (`sha256//BASE64`,
        /// CURLOPT_PINNEDPUBLICKEY): then the pin, not the system's certificate
        /// authorities, is what the server is trusted by. nil: the system's CAs.
        var pin: String? = nil
        /// For https: a certificate file trusted as the only authority
        /// (CURLOPT_CAINFO, and no directory of others), the chain and the host
        /// name checked against it, as well as the pin when there is one.
        var trust: String? = nil
        /// Any status is an answer, not only 2xx (a client testing a server wants its 401s).
        var anyStatus = false
        /// Only connect (and shake hands, trusting as above), for bytes sent and read
        /// through the handle after (CURLOPT_CONNECT_ONLY); the answer is status 0.
        var connectOnly = false
    }

    /// An easy handle kept for many requests, one at a time: libcurl keeps its
    /// connection alive between them, so HTTPS pays one handshake, not one a request.
    final class Handle {
        fileprivate let easy: UnsafeMutableRawPointer
        /// Connections its requests opened so far: 1 for many requests when kept alive.
        fileprivate(set) var opened = 0
        init?() {
            guard unready() == nil, let easy = body_curl_easy_init() else { return nil }
            self.easy = easy
        }
        deinit { body_curl_easy_cleanup(easy) }

        /// After a `connectOnly` request: bytes sent (0 when it would wait), or nil when the connection failed.
        func send(_ bytes: [UInt8]) -> Int? {
            var sent = 0
            let code = bytes.withUnsafeBytes { body_curl_easy_send(easy, $0.baseAddress, $0.count, &sent) }
            return code == CURLE_OK ? sent : code == CURLE_AGAIN ? 0 : nil
        }

        /// After a `connectOnly` request: the bytes read, [] when none are there yet, nil when the peer closed or it failed.
        func receive(max: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: max), got = 0
            let code = buffer.withUnsafeMutableBytes { body_curl_easy_recv(easy, $0.baseAddress, $0.count, &got) }
            if code == CURLE_AGAIN { return [] }
            guard code == CURLE_OK, got > 0 else { return nil }
            return Array(buffer[..<got])
        }
    }

    /// Performs the request, blocking the calling thread for at most `timeout` seconds,
    /// on `handle` when given (its options from an earlier request replaced), else on a handle of its own.
    static func perform(_ request: Request, on handle: Handle? = nil) -> Result<HubResponse, HubError> {
        func failure(_ reason: HubError.Reason) -> Result<HubResponse, HubError> {
            .failure(HubError(part: request.part, method: request.method, url: request.url, reason: reason))
        }
        if let unready = unready() { return failure(.failed("libcurl could not be loaded: \(unready)")) }
        for (name, value) in request.headers where (name + value).utf8.contains(where: { $0 == 13 || $0 == 10 }) {
            return failure(.failed("the \(name) header holds a line break"))
        }
        guard let kept = handle ?? Handle() else { return failure(.failed("libcurl could not make a handle")) }
        defer { withExtendedLifetime(kept) {} }  // not cleaned up before its last use below
        let easy = kept.easy

        var list: UnsafeMutablePointer<curl_slist>? = nil
        // A kept handle must not point at the freed list until its next request sets one.
        defer {
            _ = body_curl_set_headers(easy, nil)
            body_curl_slist_free_all(list)
        }
        // An empty Expect stops libcurl waiting for "100 Continue" on larger bodies.
        for line in request.headers.map({ "\($0.0): \($0.1)" }) + ["Expect:"] {
            guard let longer = body_curl_slist_append(list, line) else { return failure(.failed("out of memory for headers")) }
            list = longer
        }

        let sink = Sink()
        let milliseconds = max(1, Int(request.timeout * 1000))
        var code = CURLE_OK
        func set(_ step: @autoclosure () -> CURLcode) { if code == CURLE_OK { code = step() } }
        set(body_curl_set_string(easy, CURLOPT_URL, request.url))
        set(body_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(body_curl_set_string(easy, CURLOPT_PROXY, ""))  // the hub is on the house's network: no proxy from the environment
        set(body_curl_set_long(easy, CURLOPT_NOSIGNAL, 1))  // signals and threads do not mix
        set(body_curl_set_long(easy, CURLOPT_TIMEOUT_MS, milliseconds))
        set(body_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, milliseconds))
        set(body_curl_set_string(easy, CURLOPT_USERAGENT, "studio-body"))
        set(body_curl_set_headers(easy, list))
        // TLS 1.2 at least, and at 1.2 only ECDHE with an AEAD (docs/tls.md):
        // Oriel's server is not the body's to choose, so 1.2 stays for the hello,
        // without the CBC and SHA-1 suites. OpenSSL's names: libcurl.so.4 is Debian's OpenSSL build.
        set(body_curl_set_long(easy, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)))  // Int32 in Trixie's curl.h, Int in Bookworm's
        set(body_curl_set_string(easy, CURLOPT_SSL_CIPHER_LIST, "ECDHE+AESGCM:ECDHE+CHACHA20"))
        if let pin = request.pin {
            // The pin is the one trust anchor: a self-signed certificate (a body's,
            // or an Oriel's) has no authority to chain to. libcurl checks the pin
            // whether or not it checks the chain, and refuses any other key.
            set(body_curl_set_string(easy, CURLOPT_PINNEDPUBLICKEY, pin))
            if request.trust == nil {
                set(body_curl_set_long(easy, CURLOPT_SSL_VERIFYPEER, 0))
                set(body_curl_set_long(easy, CURLOPT_SSL_VERIFYHOST, 0))
            }
        }
        if let trust = request.trust {
            set(body_curl_set_string(easy, CURLOPT_CAINFO, trust))
            set(body_curl_set_string(easy, CURLOPT_CAPATH, nil))
            set(body_curl_set_long(easy, CURLOPT_SSL_VERIFYPEER, 1))
            set(body_curl_set_long(easy, CURLOPT_SSL_VERIFYHOST, 2))
        }
        set(body_curl_set_writer(easy, { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            let total = size * count
            if sink.bytes.count + total > Curl.answerLimit { sink.overflowed = true; return 0 }
            sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: total))
            return total
        }, Unmanaged.passUnretained(sink).toOpaque()))
        // A kept handle remembers the last request's method: each says its own.
        if let body = request.body {
            set(body.withUnsafeBytes { body_curl_set_post(easy, $0.baseAddress, $0.count) })
        } else if request.method == "POST" {
            set(body_curl_set_post(easy, nil, 0))
        } else {
            set(body_curl_set_long(easy, CURLOPT_HTTPGET, 1))
        }
        if request.method == "GET" || request.method == "POST" {
            set(body_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, nil))
        } else {
            set(body_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if request.connectOnly { set(body_curl_set_long(easy, CURLOPT_CONNECT_ONLY, 1)) }
        if code != CURLE_OK { return failure(.failed("libcurl refused an option: \(words(code))")) }

        code = withExtendedLifetime(sink) { body_curl_easy_perform(easy) }
        var connects = 0
        if body_curl_new_connections(easy, &connects) == CURLE_OK { kept.opened += connects }
        switch code {
        case CURLE_OK:
            break
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return failure(.unreachable(words(code)))
        case CURLE_OPERATION_TIMEDOUT:
            return failure(.timedOut(request.timeout))
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return failure(.failed("refused: its certificate's public key is not the pinned \(request.pin.map { "sha256:" + $0.dropFirst("sha256//".count) } ?? "one")"))
        case CURLE_PEER_FAILED_VERIFICATION:
            if let trust = request.trust {
                return failure(.failed("refused: its certificate is not the trusted \(trust) (\(words(code)))"))
            }
            return failure(.failed("refused: its certificate is not trusted by this system's certificate authorities (\(words(code))); pin its public key to trust it alone"))
        case CURLE_WRITE_ERROR where sink.overflowed:
            return failure(.failed("the answer is larger than \(answerLimit / 1024) KiB"))
        default:
            return failure(.failed(words(code)))
        }
        if request.connectOnly { return .success(HubResponse(status: 0, body: [])) }
        var status = 0
        if body_curl_response_code(easy, &status) != CURLE_OK || status == 0 {
            return failure(.failed("the answer had no status"))
        }
        if !request.anyStatus, !(200..<300).contains(status) {
            return failure(.status(status, HubError.words(answer: sink.bytes)))
        }
        var type: UnsafeMutablePointer<CChar>? = nil
        let contentType = body_curl_content_type(easy, &type) == CURLE_OK ? type.map { String(cString: $0) } : nil
        return .success(HubResponse(status: status, body: sink.bytes, contentType: contentType))
    }

    private final class Sink {
        var bytes: [UInt8] = []
        var overflowed = false
    }

    private static func words(_ code: CURLcode) -> String {
        String(cString: body_curl_easy_strerror(code))
    }
}
