import Foundation
import Glibc
import BodyTestSupport

/// A small HTTP/1.1 client over a plain socket, for the preview tests: it
/// reads a chunked multipart stream part by part with arrival times, and can
/// stop reading altogether to play the slow client.
final class CameraHTTPClient {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var ended = false

    init(port: Int, method: String = "GET", path: String, token: String, body: [UInt8] = [],
         receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard connectLoopback(fd, port: UInt16(port)) == 0 else { Glibc.close(fd); throw ClientError("connect to port \(port): \(String(cString: strerror(errno)))") }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
        if !body.isEmpty { request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        let bytes = Array((request + "\r\n").utf8) + body
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit { Glibc.close(fd) }

    /// Reads what is there within `seconds`; false once the server closed.
    @discardableResult
    func fill(within seconds: Double) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(max(0, seconds) * 1000)) > 0 else { return !ended }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { ended = true; return false }
        buffer += chunk[..<n]
        return true
    }

    private func take(until marker: [UInt8], within seconds: Double) -> [UInt8]? {
        let deadline = CameraHIL.now() + seconds
        while true {
            if let r = find(marker) {
                let out = Array(buffer[..<r])
                buffer.removeFirst(r + marker.count)
                return out
            }
            if ended || CameraHIL.now() >= deadline { return nil }
            fill(within: deadline - CameraHIL.now())
        }
    }

    private func take(count: Int, within seconds: Double) -> [UInt8]? {
        let deadline = CameraHIL.now() + seconds
        while buffer.count < count {
            if ended || CameraHIL.now() >= deadline { return nil }
            fill(within: deadline - CameraHIL.now())
        }
        let out = Array(buffer[..<count])
        buffer.removeFirst(count)
        return out
    }

    private func find(_ marker: [UInt8]) -> Int? {
        guard buffer.count >= marker.count else { return nil }
        return search(marker, in: buffer)
    }

    private var chunked = false
    private var body: [UInt8] = []  // decoded bytes not yet taken as parts

    /// The status line and headers.
    func head(within seconds: Double = 10) throws -> (status: Int, headers: [String: String]) {
        guard let raw = take(until: Array("\r\n\r\n".utf8), within: seconds) else { throw ClientError("no response head") }
        let lines = String(decoding: raw, as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
        return (status, headers)
    }

    /// A whole, non-streamed response.
    func response(within seconds: Double = 10) throws -> Response {
        let (status, headers) = try head(within: seconds)
        if let length = headers["content-length"].flatMap(Int.init) {
            guard let bytes = take(count: length, within: seconds) else { throw ClientError("short body") }
            return Response(status: status, headers: headers, body: bytes)
        }
        var all: [UInt8] = []
        while let chunk = try nextChunk(within: seconds) { all += chunk }
        return Response(status: status, headers: headers, body: all)
    }

    enum Chunk { case data([UInt8]), end, notYet }

    /// The next chunk of a chunked body, taken only once it is whole.
    func chunk(within seconds: Double) throws -> Chunk {
        let deadline = CameraHIL.now() + seconds
        while true {
            if let lineEnd = search(Array("\r\n".utf8), in: buffer) {
                let line = String(decoding: buffer[..<lineEnd], as: UTF8.self)
                guard let size = Int(line.split(separator: ";").first ?? "", radix: 16) else {
                    throw ClientError("a bad chunk size line: \(line.prefix(40))")
                }
                let whole = lineEnd + 2 + size + 2
                if buffer.count >= whole {
                    let data = Array(buffer[(lineEnd + 2)..<(lineEnd + 2 + size)])
                    buffer.removeFirst(whole)
                    return size == 0 ? .end : .data(data)
                }
            }
            if ended { throw ClientError("the stream was cut without its last chunk") }
            let left = deadline - CameraHIL.now()
            if left <= 0 { return .notYet }
            fill(within: left)
        }
    }

    /// The next chunk of a chunked body; nil at its end.
    func nextChunk(within seconds: Double) throws -> [UInt8]? {
        switch try chunk(within: seconds) {
        case .data(let d): return d
        case .end: return nil
        case .notYet: throw ClientError("no chunk within \(seconds) s")
        }
    }

    enum Part { case jpeg([UInt8]), end, notYet }

    /// The next multipart part (a JPEG), `.end` when the stream ended cleanly,
    /// `.notYet` when no whole part came within `seconds`.
    func nextPart(within seconds: Double) throws -> Part {
        let deadline = CameraHIL.now() + seconds
        while true {
            if let part = try parsePart() { return part }
            switch try chunk(within: max(0, deadline - CameraHIL.now())) {
            case .data(let d): body += d
            case .end: return .end
            case .notYet: return .notYet
            }
        }
    }

    private func parsePart() throws -> Part? {
        let sep = Array("\r\n\r\n".utf8)
        guard let headEnd = search(sep, in: body) else {
            if String(decoding: body, as: UTF8.self).hasPrefix("--frame--") { return .end }
            return nil
        }
        let head = String(decoding: body[..<headEnd], as: UTF8.self)
        guard head.hasPrefix("--frame\r\n"), let line = head.components(separatedBy: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
              let length = Int(line.split(separator: ":")[1].trimmingCharacters(in: CharacterSet.whitespaces)) else {
            throw ClientError("a part without its boundary or length: \(head.prefix(80))")
        }
        let start = headEnd + 4
        guard body.count >= start + length + 2 else { return nil }
        let jpeg = Array(body[start..<(start + length)])
        body.removeFirst(start + length + 2)
        return .jpeg(jpeg)
    }
}

struct ClientError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Where `marker` first starts in `bytes`: memchr for its first byte, then a compare.
func search(_ marker: [UInt8], in bytes: [UInt8]) -> Int? {
    guard let first = marker.first, bytes.count >= marker.count else { return nil }
    return bytes.withUnsafeBytes { raw -> Int? in
        guard let base = raw.baseAddress else { return nil }
        var i = 0
        while i + marker.count <= raw.count {
            guard let hit = memchr(base + i, Int32(first), raw.count - i - marker.count + 1) else { return nil }
            i = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(base + i, marker, marker.count) == 0 { return i }
            i += 1
        }
        return nil
    }
}
