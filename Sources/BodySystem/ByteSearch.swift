/// Searching bytes at the C library's speed, even in a debug build (the JPEG
/// walker runs on the loop thread for every frame). The C functions are `memchr`, `strlen`.
public enum ByteSearch {
    /// The index of the first `byte` in `bytes[from..<end]`; nil when there is none.
    public static func first(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from: Int, end: Int? = nil) -> Int? {
        let end = min(end ?? bytes.count, bytes.count)
        guard let base = bytes.baseAddress, from < end else { return nil }
        return system_memchr(base + from, byte, end - from).map { base.distance(to: UnsafeRawPointer($0)) }
    }

    /// The bytes of a C string before its NUL: each header line of every
    /// request is measured (a Swift loop would be four instructions a byte).
    public static func length(ofCString text: UnsafePointer<CChar>) -> Int {
        system_strlen(text)
    }
}
