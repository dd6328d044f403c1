/// What the daemon is started with, as one value: a new start option (TLS,
/// say) is a field here and its line in `MHDCalls`' start, nothing else.
struct DaemonOptions {
    /// The listening address; an IPv6 "any" also takes IPv4 (dual stack).
    var address: SocketAddress
    var port: UInt16
    /// The connection limits, the idle timeout and so on (HTTPLimits).
    var limits: HTTPLimits
    /// Bytes of memory each connection gets (`HTTPLimits.headMemory`).
    var headMemory: Int = HTTPLimits.headMemory
    /// HTTPS with this key and certificate (MHD_USE_TLS); nil serves plain HTTP.
    var tls: HTTPTLS? = nil
}
