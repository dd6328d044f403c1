internal import CTLS
public import BodyCore

/// The body's own key and self-signed certificate, in its state
/// directory as `tls.key` and `tls.crt`, both mode 0600. Made once, on the
/// first start that finds neither; read at every later start; made again
/// only when asked (`studio-body tls --renew`). The one file that calls
/// GnuTLS (through CTLS).
public struct TLSIdentity: Sendable {
    /// PEM: the key (PKCS #8) and the certificate, as libmicrohttpd takes them.
    public let key: [UInt8]
    public let certificate: [UInt8]
    /// What Oriel pins: the SHA-256 of the certificate's public key.
    public let pin: TLSPin
    public let keyFile: String
    public let certificateFile: String

    public static func keyFile(in directory: String) -> String { join(directory, "tls.key") }
    public static func certificateFile(in directory: String) -> String { join(directory, "tls.crt") }

    /// The identity in `directory`, or nil when there is none yet. A key
    /// without its certificate (or the reverse), a file others may read, or a
    /// key that is not the certificate's is an error in words.
    public static func read(directory: String) throws(TLSError) -> TLSIdentity? {
        let keyPath = keyFile(in: directory), certPath = certificateFile(in: directory)
        let key = try readFile(keyPath), cert = try readFile(certPath)
        switch (key, cert) {
        case (nil, nil):
            return nil
        case (nil, _?):
            throw TLSError("tls: \(certPath) is there but its key \(keyPath) is not; run studio-body tls --renew to make both again")
        case (_?, nil):
            throw TLSError("tls: \(keyPath) is there but its certificate \(certPath) is not; run studio-body tls --renew to make both again")
        case (let key?, let cert?):
            for (path, mode) in [(keyPath, key.mode), (certPath, cert.mode)] where mode & 0o077 != 0 {
                throw TLSError("tls: \(path) is readable by others (mode \(String(mode, radix: 8))); run chmod 600 \(path)")
            }
            var digest = [UInt8](repeating: 0, count: 32)
            var why = [CChar](repeating: 0, count: 256)
            let checked = key.bytes.withUnsafeBufferPointer { k in
                cert.bytes.withUnsafeBufferPointer { c in
                    body_tls_check(k.baseAddress, k.count, c.baseAddress, c.count, &digest, &why, why.count)
                }
            }
            guard checked == 0, let pin = TLSPin(digest: digest) else {
                throw TLSError("tls: \(keyPath) and \(certPath): \(words(why))")
            }
            return TLSIdentity(key: key.bytes, certificate: cert.bytes, pin: pin, keyFile: keyPath, certificateFile: certPath)
        }
    }

    /// The identity in `directory`, made first when there is none (or when
    /// `renew`), for `names`. `made` says whether it is new.
    public static func obtain(directory: String, commonName: String, names: (dns: [String], ips: [String]),
                              renew: Bool = false) throws(TLSError) -> (identity: TLSIdentity, made: Bool) {
        if !renew, let found = try read(directory: directory) { return (found, false) }
        var why = [CChar](repeating: 0, count: 256)
        guard body_tls_make_directory(directory, &why, why.count) == 0 else { throw TLSError("tls: \(words(why))") }
        var key = body_tls_bytes(data: nil, size: 0), cert = body_tls_bytes(data: nil, size: 0)
        defer {
            body_tls_free(&key)
            body_tls_free(&cert)
        }
        let made = withCStrings(names.dns) { dns in
            withCStrings(names.ips) { ips in
                body_tls_make(commonName, dns.baseAddress, dns.count, ips.baseAddress, ips.count, &key, &cert, &why, why.count)
            }
        }
        guard made == 0 else { throw TLSError("tls: cannot make the body's key and certificate: \(words(why))") }
        // The key first: a certificate found alone says plainly that the make was cut short.
        for (path, bytes) in [(keyFile(in: directory), key), (certificateFile(in: directory), cert)] {
            guard body_tls_write_file(path, bytes.data, bytes.size, &why, why.count) == 0 else {
                throw TLSError("tls: \(words(why))")
            }
        }
        guard let identity = try read(directory: directory) else {
            throw TLSError("tls: the key and certificate just written to \(directory) cannot be found")
        }
        return (identity, true)
    }

    /// The names the certificate carries, one a line in order (DNS names, then addresses).
    public var names: [String] {
        var out = [CChar](repeating: 0, count: 4096)
        var why = [CChar](repeating: 0, count: 256)
        let done = certificate.withUnsafeBufferPointer { c in
            body_tls_names(c.baseAddress, c.count, &out, out.count, &why, why.count)
        }
        guard done == 0 else { return [] }
        return Self.words(out).split(separator: "\n").map(String.init)
    }

    /// This machine's interface addresses (IPv6 link-local left out: a URL cannot name one without its zone).
    public static func localAddresses() -> [String] {
        var out = [CChar](repeating: 0, count: 8192)
        var why = [CChar](repeating: 0, count: 256)
        guard body_tls_local_addresses(&out, out.count, &why, why.count) == 0 else { return [] }
        return words(out).split(separator: "\n").map(String.init)
    }

    private struct FileRead {
        var bytes: [UInt8]
        var mode: UInt32
    }

    private static func readFile(_ path: String) throws(TLSError) -> FileRead? {
        var out = body_tls_bytes(data: nil, size: 0)
        defer { body_tls_free(&out) }
        var mode: UInt32 = 0
        var why = [CChar](repeating: 0, count: 256)
        switch body_tls_read_file(path, &out, &mode, &why, why.count) {
        case 0: return FileRead(bytes: Array(UnsafeBufferPointer(start: out.data, count: out.size)), mode: mode)
        case 1: return nil
        default: throw TLSError("tls: \(words(why))")
        }
    }

    private static func join(_ directory: String, _ file: String) -> String {
        directory.hasSuffix("/") ? directory + file : directory + "/" + file
    }

    static func words(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Hands C an array of C strings that live for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { text -> UnsafeMutablePointer<CChar> in
        let utf8 = Array(text.utf8)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
        for (i, b) in utf8.enumerated() { copy[i] = CChar(bitPattern: b) }
        copy[utf8.count] = 0
        return copy
    }
    defer { copies.forEach { $0.deallocate() } }
    return copies.map { UnsafePointer<CChar>?($0) }.withUnsafeBufferPointer(body)
}

/// Why the body's TLS identity cannot be had, in one line.
public struct TLSError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ words: String) { description = words }
}
