internal import CMicroHTTPD
import BodySystem

/// Starting libmicrohttpd and the C entry points it calls back; each finds
/// the server through its context pointer.
extension HTTPServer {
    /// MHD in external epoll mode with suspend and resume, its log routed to `mhdSaid`.
    /// The C function is `MHD_start_daemon` (through the shim).
    func startDaemon(_ address: SocketAddress, port: UInt16) throws(HTTPServerError) -> OpaquePointer {
        MHDPages.installed
        let me = Unmanaged.passUnretained(self).toOpaque()
        logSink.pointee.fn = { context, message in
            guard let context, let message else { return }
            Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().mhdSaid(String(cString: message))
        }
        logSink.pointee.context = me

        var flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 { flags |= address.isAny ? MHD_USE_DUAL_STACK.rawValue : MHD_USE_IPv6.rawValue }
        let daemon = address.withSockaddr { sa in
            tlsPEM.key.withUnsafeBufferPointer { key in
                tlsPEM.certificate.withUnsafeBufferPointer { cert in
                    body_mhd_start(flags, port, sa, accessHandler, me, completedHandler, me,
                                   connectionHandler, me, logSink, UInt32(limits.idle),
                                   UInt32(limits.connections), UInt32(limits.perAddress),
                                   HTTPLimits.headMemory,
                                   tls == nil ? nil : key.baseAddress, tls == nil ? nil : cert.baseAddress)
                }
            }
        }
        let said = startMessages ?? []
        startMessages = nil
        guard let daemon else {
            let cause = said.last ?? "libmicrohttpd refused to start"
            throw HTTPServerError("http: cannot listen on \(address): \(cause)")
        }
        // libmicrohttpd 0.9.75 says this even when the logger is the first option
        // (it counts an option of its own first); the logger is in place, so drop it.
        for message in said where !message.hasPrefix("MHD_OPTION_EXTERNAL_LOGGER is not the first option") {
            log("http: libmicrohttpd: \(message)")
        }
        return daemon
    }

    func mhdSaid(_ message: String) {
        var text = message
        while text.last == "\n" { text.removeLast() }
        if quietRefusal, text.hasPrefix("Application reported internal error") {
            quietRefusal = false
            return
        }
        // While starting, messages wait: a failure says them once, in its error.
        if startMessages != nil { startMessages?.append(text); return }
        if let line = repeats.say(text, at: SystemClock.monotonic()) { log("http: libmicrohttpd: \(line)") }
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, data, size, context in
    guard let cls, let connection, let size, let context else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.access(connection, url.map { String(cString: $0) } ?? "/",
                         method.map { String(cString: $0) } ?? "GET", data, size, context)
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, connection, context, code in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().completed(connection, context, code)
}

private let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().connection(connection, code)
}
