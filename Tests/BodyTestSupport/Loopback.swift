import Glibc

// Sockets on 127.0.0.1, the way every test client and fake server opens them.

/// 127.0.0.1:`port` (0: any port), ready for bind(2) or connect(2).
public func loopbackAddress(port: UInt16 = 0) -> sockaddr_in {
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = port.bigEndian
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    return addr
}

/// Connects `fd` to 127.0.0.1:`port`: connect(2)'s result (0, or -1 with errno set).
@discardableResult
public func connectLoopback(_ fd: Int32, port: UInt16) -> Int32 {
    var addr = loopbackAddress(port: port)
    return withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}

/// Binds `fd` to 127.0.0.1:`port` (0: the kernel picks), listens with `backlog`
/// when one is given, and returns the port bound; nil when a call failed (errno set).
public func bindLoopback(_ fd: Int32, port: UInt16 = 0, listen backlog: Int32? = nil) -> UInt16? {
    var addr = loopbackAddress(port: port)
    var size = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
            bind(fd, sa, size) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true) && getsockname(fd, sa, &size) == 0
        }
    }
    return ok ? UInt16(bigEndian: addr.sin_port) : nil
}

/// Binds `fd`'s source to 127.0.0.`host` (any port) before a connect, so one
/// machine can be many clients: the kernel routes all of 127.0.0.0/8 to itself.
@discardableResult
public func bindSource(_ fd: Int32, host: UInt8) -> Bool {
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.\(host)")
    return withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
