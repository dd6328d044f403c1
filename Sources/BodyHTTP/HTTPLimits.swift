/// How much of the server one client may take, so Oriel always gets through
/// (docs/decisions.md, "Oriel always gets through").
public struct HTTPLimits: Sendable, Equatable {
    /// Connections at once, in all (libmicrohttpd's connection limit).
    public var connections: Int = 128
    /// Connections at once from one address (its per-address limit):
    /// Oriel needs about four (a long poll, a push, a status, a /where).
    public var perAddress: Int = 16
    /// Places kept free for Oriel: when more than `connections - reserve`
    /// are open, the oldest that never showed the token is closed for each
    /// new one, so MHD never reaches its limit (where it stops accepting)
    /// and Oriel's connect is always accepted and heard.
    public var reserve: Int = 16
    /// Seconds a connection that never showed the token has to send a whole
    /// request head, from its opening or its last answer; a byte now and then
    /// does not extend it.
    public var headDeadline: Double = 5
    /// Seconds any request has for its whole body, from its head: a push is
    /// at most 64 KiB and goes out at once, so a body sent a byte a second is
    /// a hostile one and is cut off (MHD's idle timeout alone would let each
    /// byte buy another 90 s). A request with no body, or one waiting for its
    /// answer (a long poll), is never cut off by this.
    public var bodyDeadline: Double = 5
    /// Seconds of silence before MHD closes any connection (a waiting long
    /// poll is suspended and not silent).
    public var idle: Int = 90
    /// Bytes of memory MHD gives each connection (its connection memory limit):
    /// a request line and head must fit in it, or MHD refuses them with 414
    /// or 431 (in the body's words, MHDPages). Oriel's heads are a few hundred
    /// bytes, a browser's one or two KiB. Small on purpose: 0.9.75
    /// zeroes the whole pool after every request on a kept-alive connection
    /// and half of it again once the head is read (MHD_pool_reset and
    /// MHD_pool_reallocate), 1.5 times this a request, which a VM without a
    /// fast memset pays byte by byte. A pool this size is malloc'd, and the
    /// freed ones stay in the heap until the flood they came with is over
    /// (`FloodEnd`, then `Heap.giveBackFree`); fewer than a flood's stay for
    /// good (+124 KiB after 15). A head of the last ~300 bytes below this
    /// leaves MHD no room to answer: it closes (docs/decisions.md).
    public static let headMemory = 16 * 1024

    public init() {}
}
