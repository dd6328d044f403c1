/// Framing for `GET /preview`: each JPEG becomes one part of a
/// `multipart/x-mixed-replace` body, offered to an `HTTPStream` as one chunk
/// so a dropped frame never leaves half a part on the wire.
public enum MultipartJPEG {
    public static let boundary = "studio-body-frame"
    public static let contentType = "multipart/x-mixed-replace; boundary=\(boundary)"

    /// One whole part: boundary line, part headers, the JPEG, CRLF.
    public static func part(_ jpeg: [UInt8]) -> [UInt8] {
        var out = Array("--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8)
        out.reserveCapacity(out.count + jpeg.count + 2)
        out += jpeg
        out += [13, 10]
        return out
    }
}
