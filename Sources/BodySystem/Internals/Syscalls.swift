// The one file of BodySystem that calls Glibc and CSystem: each function is
// the C call with its C arguments, nothing more. The Swift types, the errno
// and the EINTR rule live in the files above (Results.swift, Errno.swift).
import Glibc
internal import CSystem

// Modelled on apple/swift-system's Internals/Syscalls.swift: one `system_`
// function per C function, so a reader finds every call into C here.

internal var system_errno: Int32 {
    get { Glibc.errno }
    set { Glibc.errno = newValue }
}

internal func system_strerror(_ code: Int32) -> String {
    guard let words = strerror(code) else { return "errno \(code)" }
    return String(cString: words)
}

internal func system_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    Glibc.read(fd, buffer, count)
}

internal func system_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    Glibc.write(fd, buffer, count)
}

internal func system_close(_ fd: Int32) -> Int32 {
    Glibc.close(fd)
}

internal func system_dup2(_ fd: Int32, _ target: Int32) -> Int32 {
    Glibc.dup2(fd, target)
}

internal func system_pipe(_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
    Glibc.pipe(fds)
}

/// Sets FD_CLOEXEC and O_NONBLOCK: -1 with errno when either fails.
internal func system_set_cloexec_nonblock(_ fd: Int32) -> Int32 {
    if Glibc.fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 { return -1 }
    let flags = Glibc.fcntl(fd, F_GETFL)
    if flags < 0 { return -1 }
    return Glibc.fcntl(fd, F_SETFL, flags | O_NONBLOCK)
}

internal func system_clock_gettime(_ clock: clockid_t, _ ts: UnsafeMutablePointer<timespec>) -> Int32 {
    Glibc.clock_gettime(clock, ts)
}

/// adjtimex(2) with no change asked (modes 0): the clock state it returns
/// (TIME_ERROR while unsynchronised), and the status bits in `status`.
internal func system_adjtimex_read(_ status: inout Int32) -> Int32 {
    var tx = timex()
    let state = CSystem.adjtimex(&tx)
    status = tx.status
    return state
}

internal let system_TIME_ERROR = Int32(TIME_ERROR)
internal let system_STA_UNSYNC = Int32(STA_UNSYNC)

internal func system_nanosleep(_ want: UnsafePointer<timespec>, _ left: UnsafeMutablePointer<timespec>?) -> Int32 {
    Glibc.nanosleep(want, left)
}

/// poll(2) on one descriptor for POLLIN: what poll returned.
internal func system_poll_readable(_ fd: Int32, _ milliseconds: Int32) -> Int32 {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return Glibc.poll(&pfd, 1, milliseconds)
}

/// poll(2) on one descriptor for POLLOUT: what poll returned.
internal func system_poll_writable(_ fd: Int32, _ milliseconds: Int32) -> Int32 {
    var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    return Glibc.poll(&pfd, 1, milliseconds)
}

/// shutdown(2) both ways.
internal func system_shutdown(_ fd: Int32) -> Int32 {
    Glibc.shutdown(fd, Int32(SHUT_RDWR))
}

// epoll

internal let system_EPOLLIN = EPOLLIN.rawValue
internal let system_EPOLLOUT = EPOLLOUT.rawValue
internal let system_EPOLLERR = EPOLLERR.rawValue
internal let system_EPOLLHUP = EPOLLHUP.rawValue
internal let system_EPOLLRDHUP = EPOLLRDHUP.rawValue
internal let system_EPOLLET = EPOLLET.rawValue

internal func system_epoll_create1() -> Int32 {
    epoll_create1(Int32(EPOLL_CLOEXEC))
}

internal enum system_EpollOperation {
    case add, modify, remove
    var raw: Int32 {
        switch self {
        case .add: EPOLL_CTL_ADD
        case .modify: EPOLL_CTL_MOD
        case .remove: EPOLL_CTL_DEL
        }
    }
}

internal func system_epoll_ctl(_ epfd: Int32, _ op: system_EpollOperation, _ fd: Int32, _ events: UInt32, _ data: UInt64) -> Int32 {
    var ev = epoll_event()
    ev.events = events
    ev.data.u64 = data
    if op == .remove { return epoll_ctl(epfd, op.raw, fd, nil) }
    return epoll_ctl(epfd, op.raw, fd, &ev)
}

/// Fills `out` with (events, data) pairs; returns what `epoll_wait` returned.
internal typealias system_epoll_event = epoll_event

/// epoll_wait(2) into the caller's buffer of `max` events.
internal func system_epoll_wait(_ epfd: Int32, _ buffer: UnsafeMutablePointer<epoll_event>, _ max: Int32, _ timeout: Int32) -> Int32 {
    epoll_wait(epfd, buffer, max, timeout)
}

/// An event's mask and its registration number (`data.u64`).
internal func system_epoll_event_fields(_ event: epoll_event) -> (events: UInt32, data: UInt64) {
    (event.events, event.data.u64)
}

// eventfd, timerfd, signalfd

internal func system_eventfd(nonBlocking: Bool) -> Int32 {
    eventfd(0, Int32(EFD_CLOEXEC) | (nonBlocking ? Int32(EFD_NONBLOCK) : 0))
}

internal func system_timerfd_create_monotonic() -> Int32 {
    timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
}

/// Arms `fd` for the absolute monotonic time `seconds` + `nanoseconds`; zero disarms.
internal func system_timerfd_settime_absolute(_ fd: Int32, _ seconds: Int, _ nanoseconds: Int) -> Int32 {
    var spec = itimerspec()
    spec.it_value.tv_sec = seconds
    spec.it_value.tv_nsec = nanoseconds
    return timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
}

/// Blocks `signals` for the process and opens a non-blocking signalfd for them.
internal func system_signalfd_blocking(_ signals: [Int32]) -> Int32 {
    var set = sigset_t()
    sigemptyset(&set)
    for s in signals { sigaddset(&set, s) }
    if sigprocmask(SIG_BLOCK, &set, nil) < 0 { return -1 }
    return signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
}

internal let system_signalfd_siginfo_size = MemoryLayout<signalfd_siginfo>.size

/// Reads one signalfd_siginfo; the signal number goes to `signal`.
internal func system_signalfd_read(_ fd: Int32, _ signal: inout Int32) -> Int {
    var info = signalfd_siginfo()
    let n = Glibc.read(fd, &info, MemoryLayout<signalfd_siginfo>.size)
    if n == MemoryLayout<signalfd_siginfo>.size { signal = Int32(bitPattern: info.ssi_signo) }
    return n
}

/// `signal` fails only for a signal number that does not exist, which SIGPIPE is not.
internal func system_ignore_sigpipe() {
    _ = Glibc.signal(SIGPIPE, SIG_IGN)
}

// who = 0 under NPTL is the calling thread alone (setpriority(2), BUGS: the
// nice value is per thread on Linux).
internal func system_setpriority_thread(_ nice: Int32) -> Int32 {
    Glibc.setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
}

/// 1 when memory was given back to the kernel, 0 when there was none to give.
internal func system_malloc_trim(_ pad: Int) -> Int32 {
    CSystem.malloc_trim(pad)
}

// The journal's stream (JournalOutlet)

/// What kind of file `fd` is: 1 socket, 2 pipe or terminal (what can make a
/// writer wait), 0 anything else: a regular file, or a character device that
/// never waits and that epoll refuses (/dev/null, with EPERM); -1 with errno.
internal func system_stream_kind(_ fd: Int32) -> Int32 {
    var st = stat()
    if Glibc.fstat(fd, &st) < 0 { return -1 }
    switch st.st_mode & S_IFMT {
    case S_IFSOCK: return 1
    case S_IFIFO: return 2
    case S_IFCHR: return Glibc.isatty(fd) == 1 ? 2 : 0
    default: return 0
    }
}

/// Opens `/proc/self/fd/N` for writing, non-blocking and close-on-exec: a new
/// open file description of the same pipe or terminal, so O_NONBLOCK is ours
/// alone and not the shell's that shares the old one.
internal func system_reopen_nonblocking(_ fd: Int32) -> Int32 {
    Glibc.open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
}

/// send(2) that never waits and never raises SIGPIPE.
internal func system_send_nowait(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    Glibc.send(fd, buffer, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
}

// Directories and device nodes

/// The names in `path`, without "." and ".."; nil with errno when it cannot be opened.
internal func system_directory_names(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// stat(2) through links: the device number when `path` is a character device, else 0 and `isCharacter` false.
internal func system_stat_character_device(_ path: String, _ isCharacter: inout Bool, _ device: inout UInt64) -> Int32 {
    var st = stat()
    let result = stat(path, &st)
    isCharacter = result == 0 && (st.st_mode & S_IFMT) == S_IFCHR
    device = isCharacter ? UInt64(st.st_rdev) : 0
    return result
}

/// lstat(2): -1 with errno, else 1 for a symbolic link and 0 for anything else.
internal func system_is_symlink(_ path: String) -> Int32 {
    var st = stat()
    guard Glibc.lstat(path, &st) == 0 else { return -1 }
    return (st.st_mode & S_IFMT) == S_IFLNK ? 1 : 0
}

/// access(2) for reading (`R_OK`) or being there (`F_OK`).
internal func system_access(_ path: String, read: Bool) -> Int32 {
    Glibc.access(path, read ? R_OK : F_OK)
}

/// The name of the user owning `path` (stat, then getpwuid_r); nil when either fails.
internal func system_owner_name(_ path: String) -> String? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    var pw = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 1024)
    guard getpwuid_r(st.st_uid, &pw, &buffer, buffer.count, &found) == 0, found != nil, let name = pw.pw_name else { return nil }
    return String(cString: name)
}

// The signals whose default action ends the process and that someone sends (a person,
// systemd, a shell going away), with their names. Not the faults (SIGSEGV, SIGBUS, SIGFPE,
// SIGILL, SIGTRAP, SIGABRT, SIGSYS): the program's own, they cannot wait for a loop.
internal let system_ending_signals: [(Int32, String)] = [
    (SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"),
    (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"), (SIGVTALRM, "SIGVTALRM"),
    (SIGPROF, "SIGPROF"), (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"), (SIGPWR, "SIGPWR"),
    (SIGSTKFLT, "SIGSTKFLT"), (SIGIO, "SIGIO"),
]

// The process: its environment, its id, its end

/// The value of `name` in the environment; nil when unset.
internal func system_getenv(_ name: String) -> String? {
    Glibc.getenv(name).map { String(cString: $0) }
}

internal func system_getpid() -> Int32 {
    Glibc.getpid()
}

internal func system_exit(_ code: Int32) -> Never {
    fflush(nil)
    Glibc._exit(code)
}

/// gethostname(2) into `buffer`; the name ends at the first NUL.
internal func system_gethostname(_ buffer: inout [CChar]) -> Int32 {
    Glibc.gethostname(&buffer, buffer.count)
}

// systemd's notify socket (NotifySocket)

/// How long a path `sockaddr_un` holds, its terminating NUL included.
internal let system_unix_path_capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

/// One datagram of `message` to the AF_UNIX datagram socket at `path` (bytes;
/// a leading 0 names an abstract socket) from a socket made and closed here:
/// what sendto returned, or -1 with errno (the socket's own failure included).
internal func system_send_datagram(to path: [UInt8], _ message: [UInt8]) -> Int {
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if fd < 0 { return -1 }
    defer {
        // The datagram went or did not; a failed close changes neither, and keeps errno.
        let saved = Glibc.errno
        _ = Glibc.close(fd)
        Glibc.errno = saved
    }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        for (i, b) in path.enumerated() { raw[i] = b }
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
    return message.withUnsafeBytes { msg in
        withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                Glibc.sendto(fd, msg.baseAddress, msg.count, Int32(MSG_NOSIGNAL), sa, length)
            }
        }
    }
}

// Semaphores (Semaphore)

internal typealias system_sem_t = sem_t

internal func system_sem_init(_ sem: UnsafeMutablePointer<sem_t>) -> Int32 {
    Glibc.sem_init(sem, 0, 0)
}

internal func system_sem_destroy(_ sem: UnsafeMutablePointer<sem_t>) -> Int32 {
    Glibc.sem_destroy(sem)
}

internal func system_sem_post(_ sem: UnsafeMutablePointer<sem_t>) -> Int32 {
    Glibc.sem_post(sem)
}

internal func system_sem_wait(_ sem: UnsafeMutablePointer<sem_t>) -> Int32 {
    Glibc.sem_wait(sem)
}

internal func system_sem_trywait(_ sem: UnsafeMutablePointer<sem_t>) -> Int32 {
    Glibc.sem_trywait(sem)
}

// Threads (WorkerThread)

/// pthread_create and pthread_detach: 0, or the error number pthread_create
/// returned (pthreads do not set errno).
internal func system_start_detached_thread(_ context: UnsafeMutableRawPointer,
                                           _ start: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?) -> Int32 {
    var thread = pthread_t()
    let rc = Glibc.pthread_create(&thread, nil, start, context)
    if rc == 0 { Glibc.pthread_detach(thread) }
    return rc
}

// Files (FileSystem, FileFacts)

/// open(2) read-only, close-on-exec.
internal func system_open_read(_ path: String) -> Int32 {
    Glibc.open(path, O_RDONLY | O_CLOEXEC)
}

/// open(2) for writing a file that must not exist yet, close-on-exec, with `mode`.
internal func system_create_exclusive(_ path: String, _ mode: UInt32) -> Int32 {
    Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
}

/// mkdtemp(3): `template` ends in XXXXXX, replaced in place; nil with errno.
internal func system_mkdtemp(_ template: String) -> String? {
    var bytes = Array(template.utf8CString)
    // The name is read inside the closure: mkdtemp returns the buffer's own
    // pointer, which is dangling once withUnsafeMutableBufferPointer returns.
    return bytes.withUnsafeMutableBufferPointer { buffer -> String? in
        Glibc.mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
    }
}

/// unlink(2): 0, or -1 with errno.
internal func system_unlink(_ path: String) -> Int32 { Glibc.unlink(path) }

/// rmdir(2): 0, or -1 with errno (ENOTEMPTY while anything is left in it).
internal func system_rmdir(_ path: String) -> Int32 { Glibc.rmdir(path) }

/// stat(2) through links: the permission bits (`st_mode & 0o7777`), or -1 with errno.
internal func system_permissions(_ path: String) -> Int32 {
    var st = stat()
    guard stat(path, &st) == 0 else { return -1 }
    return Int32(st.st_mode & 0o7777)
}

// Internet addresses (InternetAddress)

/// inet_pton(3) of `text` as IPv4 into `sockaddr_in` bytes with `port`, else
/// as IPv6 into `sockaddr_in6` bytes; nil when it is neither.
internal func system_socket_address(_ text: String, _ port: UInt16) -> (bytes: [UInt8], isIPv6: Bool, isAny: Bool)? {
    var v4 = sockaddr_in()
    if Glibc.inet_pton(AF_INET, text, &v4.sin_addr) == 1 {
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = port.bigEndian
        return (withUnsafeBytes(of: &v4) { Array($0) }, false, v4.sin_addr.s_addr == 0)
    }
    var v6 = sockaddr_in6()
    if Glibc.inet_pton(AF_INET6, text, &v6.sin6_addr) == 1 {
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        let any = withUnsafeBytes(of: &v6.sin6_addr) { $0.allSatisfy { $0 == 0 } }
        return (withUnsafeBytes(of: &v6) { Array($0) }, true, any)
    }
    return nil
}

// Memory

/// strlen(3): the bytes before the NUL.
internal func system_strlen(_ text: UnsafePointer<CChar>) -> Int {
    Glibc.strlen(text)
}

/// memchr(3): the first `byte` in `count` bytes from `start`.
internal func system_memchr(_ start: UnsafeRawPointer, _ byte: UInt8, _ count: Int) -> UnsafeMutableRawPointer? {
    Glibc.memchr(start, Int32(byte), count)
}

// A terminal's key mode (TerminalKeys)

internal typealias system_termios = termios

internal func system_isatty(_ fd: Int32) -> Int32 {
    Glibc.isatty(fd)
}

internal func system_tcgetattr(_ fd: Int32, _ settings: inout termios) -> Int32 {
    Glibc.tcgetattr(fd, &settings)
}

/// tcsetattr(2) once the output written so far has gone out (TCSADRAIN).
internal func system_tcsetattr_drain(_ fd: Int32, _ settings: inout termios) -> Int32 {
    Glibc.tcsetattr(fd, TCSADRAIN, &settings)
}

/// Keys one at a time without echo (ICANON and ECHO off, a read returns at
/// the first byte); signals from the keyboard (ISIG) and output processing
/// (OPOST: "\n" as "\r\n") stay as they were.
internal func system_termios_keys(_ settings: inout termios) {
    settings.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL)
    withUnsafeMutableBytes(of: &settings.c_cc) { cc in
        cc[Int(VMIN)] = 1
        cc[Int(VTIME)] = 0
    }
}

/// Whether the settings read keys one at a time without echo.
internal func system_termios_reads_keys(_ settings: termios) -> Bool {
    settings.c_lflag & tcflag_t(ICANON | ECHO) == 0
}

// Local stream sockets (LocalSocket)

/// A non-blocking, close-on-exec AF_UNIX stream socket connected to `path`
/// (bytes, no NUL, shorter than `system_unix_path_capacity`): the descriptor,
/// or -1 with errno (the socket closed again, errno kept).
internal func system_connect_local(_ path: [UInt8]) -> Int32 {
    let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    let fd = Glibc.socket(AF_UNIX, flags, 0)
    if fd < 0 { return -1 }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        for (i, b) in path.enumerated() { raw[i] = b }
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + 1)
    let rc = withUnsafePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
    }
    if rc < 0 {
        let saved = Glibc.errno
        _ = Glibc.close(fd)
        Glibc.errno = saved
        return -1
    }
    return fd
}

/// accept(2), then close-on-exec and non-blocking (Glibc's module has no
/// accept4; the feeder that accepts spawns nothing in between): the
/// connection, or -1 with errno (the connection closed again, errno kept).
internal func system_accept(_ fd: Int32) -> Int32 {
    let connection = Glibc.accept(fd, nil, nil)
    if connection < 0 { return -1 }
    if system_set_cloexec_nonblock(connection) < 0 {
        let saved = Glibc.errno
        _ = Glibc.close(connection)
        Glibc.errno = saved
        return -1
    }
    return connection
}

/// poll(2) for POLLIN on every descriptor of `fds`: what poll returned, and
/// each one's revents in `ready` (POLLHUP and POLLERR count as readable: a
/// read then says the end or the error).
internal func system_poll_readable(_ fds: [Int32], _ ready: inout [Bool], _ milliseconds: Int32) -> Int32 {
    var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let rc = Glibc.poll(&pfds, nfds_t(pfds.count), milliseconds)
    ready = pfds.map { $0.revents != 0 }
    return rc
}

// Child processes (ChildProcess)

/// posix_spawn(3) of `/bin/sh -c command` in a process group of its own, its
/// standard output on `output`, every signal at its default and none blocked
/// (an ignored SIGPIPE would outlive exec), and no descriptor past standard
/// error: one a library opened without close-on-exec (a socket, a pipe to
/// another child) would otherwise live as long as the camera does, and keep
/// its other end from ever seeing an end. The pid, or -1 with errno.
internal func system_spawn_shell(_ command: String, output: Int32) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    guard posix_spawn_file_actions_init(&actions) == 0 else { return -1 }
    defer { posix_spawn_file_actions_destroy(&actions) }
    guard posix_spawnattr_init(&attributes) == 0 else { return -1 }
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t(), none = sigset_t()
    sigfillset(&all)
    sigemptyset(&none)
    var rc = posix_spawn_file_actions_adddup2(&actions, output, 1)
    if rc == 0 { rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3) }
    if rc == 0 { rc = posix_spawnattr_setsigdefault(&attributes, &all) }
    if rc == 0 { rc = posix_spawnattr_setsigmask(&attributes, &none) }
    if rc == 0 { rc = posix_spawnattr_setpgroup(&attributes, 0) }
    let flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP
    if rc == 0 { rc = posix_spawnattr_setflags(&attributes, Int16(flags)) }
    // The argument strings are copied and freed here: no pointer outlives its owner.
    let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (word: String) in strdup(word) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    if rc == 0, argv.dropLast().allSatisfy({ $0 != nil }) {
        rc = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
    } else if rc == 0 {
        rc = ENOMEM
    }
    if rc != 0 {
        Glibc.errno = rc
        return -1
    }
    return pid
}

/// kill(2); a negative pid names a process group.
internal func system_kill(_ pid: Int32, _ signal: Int32) -> Int32 {
    Glibc.kill(pid, signal)
}

/// waitpid(2) without waiting: 0 while `pid` runs, `pid` once it ended (its
/// wait status in `status`), -1 with errno.
internal func system_wait_nohang(_ pid: Int32, _ status: inout Int32) -> Int32 {
    Glibc.waitpid(pid, &status, WNOHANG)
}

/// waitpid(2), waiting: `pid` once it ended (its wait status in `status`), -1 with errno.
internal func system_wait(_ pid: Int32, _ status: inout Int32) -> Int32 {
    Glibc.waitpid(pid, &status, 0)
}

internal let system_SIGTERM = SIGTERM
internal let system_SIGKILL = SIGKILL
