/// What Oriel pins a body by, and the body pins Oriel by (`[oriel] pin`): the
/// SHA-256 of a certificate's public key, its DER SubjectPublicKeyInfo (RFC
/// 7469's pin-sha256). The key, not the whole certificate: the same digest is
/// what curl's `--pinnedpubkey sha256//…` and Chromium's
/// `--ignore-certificate-errors-spki-list` take. Written `sha256:` and the
/// digest in base64: `sha256:1Bv…Ow=`.
public struct TLSPin: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let digest: [UInt8]

    public init?(digest: [UInt8]) {
        guard digest.count == 32 else { return nil }
        self.digest = digest
    }

    public var base64: String { Base64.encode(digest) }
    /// `sha256:BASE64`, as the body says it everywhere.
    public var description: String { "sha256:" + base64 }
    /// libcurl's CURLOPT_PINNEDPUBLICKEY form.
    public var curl: String { "sha256//" + base64 }

    /// Reads `sha256:BASE64` (or curl's `sha256//BASE64`); nil with the words when it is not one.
    public static func parse(_ text: String) -> Result<TLSPin, PinError> {
        let t = text.trimmed
        let prefix = t.hasPrefix("sha256//") ? "sha256//" : "sha256:"
        guard t.hasPrefix(prefix) else {
            return .failure(PinError("expected sha256: and the base64 SHA-256 of the certificate's public key, found \(text)"))
        }
        let rest = String(t.dropFirst(prefix.count))
        guard let bytes = Base64.decode(rest) else {
            return .failure(PinError("the pin after sha256: is not base64: \(rest)"))
        }
        guard let pin = TLSPin(digest: bytes) else {
            return .failure(PinError("the pin after sha256: is \(bytes.count) bytes; a SHA-256 is 32 (44 base64 characters)"))
        }
        return .success(pin)
    }
}

public struct PinError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ words: String) { description = words }
}

/// RFC 4648 base64 with padding, for pins.
enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let b0 = bytes[i], b1 = n > 1 ? bytes[i + 1] : 0, b2 = n > 2 ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(n > 1 ? alphabet[Int((b1 & 0x0f) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(n > 2 ? alphabet[Int(b2 & 0x3f)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < chars.count {
            var values: [UInt8] = []
            var padding = 0
            for (k, c) in chars[i..<i + 4].enumerated() {
                if c == UInt8(ascii: "=") {
                    // Padding only at the end of the last group, and at most two.
                    guard i + 4 == chars.count, k >= 2 else { return nil }
                    padding += 1
                    values.append(0)
                } else {
                    guard padding == 0, let v = alphabet.firstIndex(of: c) else { return nil }
                    values.append(UInt8(v))
                }
            }
            out.append(values[0] << 2 | values[1] >> 4)
            if padding < 2 { out.append(values[1] << 4 | values[2] >> 2) }
            if padding < 1 { out.append(values[2] << 6 | values[3]) }
            i += 4
        }
        return out
    }
}
