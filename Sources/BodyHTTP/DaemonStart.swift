import BodySystem

/// Starting the daemon, and what libmicrohttpd says in its log.
extension HTTPServer {
    /// MHD in external epoll mode with suspend and resume, its log routed to `mhdSaid`.
    func startDaemon(_ options: DaemonOptions) throws(HTTPServerError) -> MHDCalls.Daemon {
        let daemon = calls.start(options, self)
        let said = startMessages ?? []
        startMessages = nil
        guard let daemon else {
            let cause = said.last ?? "libmicrohttpd refused to start"
            throw HTTPServerError("http: cannot listen on \(options.address): \(cause)")
        }
        for message in said { log("http: libmicrohttpd: \(message)") }
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
