import BodyHardware

// The JPEG end-of-image walker: a camera's frame is untrusted bytes, cut at
// its EOI before it is served (docs/reliability.md). A cut is at least SOI
// plus EOI, ends with FF D9, and depends only on the bytes before it: the
// frame cut at its end, or with anything after it, cuts at the same place.
// The same bytes as a stream (`MJPEGStream`, camera-feed's cutter) give only
// whole frames, and the same ones however the stream is split.

func check(_ ok: Bool, _ words: @autoclosure () -> String) {
    if !ok { fatalError("rule broken: \(words())") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    // The walker reads through the raw buffer libFuzzer hands over, so
    // AddressSanitizer sees any read past the frame.
    let raw = UnsafeRawBufferPointer(start: size == 0 ? nil : UnsafeRawPointer(data), count: size)
    let end = JPEG.endOfImage(in: raw)
    let bytes = Array(raw)
    stream(bytes)
    guard let end else {
        check(JPEG.cutAtEndOfImage(bytes) == nil, "the copy cut where the buffer did not")
        return 0
    }
    check(end >= 4 && end <= size, "cut at \(end) of \(size)")
    check(bytes[0] == 0xFF && bytes[1] == 0xD8, "cut a frame without SOI")
    check(bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9, "cut at \(end) not after FF D9")
    let frame = Array(bytes[..<end])
    check(JPEG.cutAtEndOfImage(frame) == frame, "the cut frame cuts elsewhere")
    check(JPEG.cutAtEndOfImage(frame + [0xFF, 0xD8, 0x00, 0xFF]) == frame, "padding moved the cut")
    return 0
}

func stream(_ bytes: [UInt8]) {
    var whole = MJPEGStream()
    let frames = whole.take(bytes)
    let at = bytes.isEmpty ? 0 : Int(bytes[0]) % bytes.count
    var split = MJPEGStream()
    check(split.take(bytes[..<at]) + split.take(bytes[at...]) == frames, "a split at \(at) gave other frames")
    for f in frames { check(JPEG.cutAtEndOfImage(f) == f, "the stream gave a frame that is not whole") }
    check(frames.reduce(0) { $0 + $1.count } + whole.skipped <= bytes.count, "more bytes out than in")
}
