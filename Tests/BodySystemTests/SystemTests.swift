import Testing
import Glibc
@testable import BodySystem

@Suite("One errno, one EINTR rule")
struct ErrnoTests {
    @Test("an errno says its words and its kind, from the one table", arguments: [
        (ENODEV, Errno.Kind.gone), (ENXIO, .gone), (ESHUTDOWN, .gone), (EIO, .inputOutput),
        (ENOENT, .absent), (EBUSY, .busy), (EACCES, .permission), (EPERM, .permission),
        (EAGAIN, .wouldBlock), (EINTR, .interrupted), (EINVAL, .other),
    ])
    func kinds(code: Int32, kind: Errno.Kind) {
        #expect(Errno(code).kind == kind)
        #expect(Errno(code).words == String(cString: strerror(code)))
    }

    @Test("ENODEV in words")
    func words() {
        #expect(Errno.noSuchDevice.description == "No such device")
    }

    @Test("a call a signal interrupts is made again; its other failures come back typed")
    func interruptedIsRetried() throws {
        var calls = 0
        let result = valueOrErrno { () -> Int32 in
            calls += 1
            if calls < 3 { Errno.current = .interrupted; return -1 }
            return 7
        }
        #expect(calls == 3)
        #expect(try result.get() == 7)

        calls = 0
        let failed = valueOrErrno { () -> Int32 in
            calls += 1
            Errno.current = .noSuchDevice
            return -1
        }
        #expect(calls == 1)
        #expect(throws: Errno.noSuchDevice) { try failed.get() }
    }

    @Test("close is not retried after EINTR")
    func closeIsNotRetried() {
        var calls = 0
        let result = nothingOrErrno(retryOnInterrupt: false) { () -> Int32 in
            calls += 1
            Errno.current = .interrupted
            return -1
        }
        #expect(calls == 1)
        #expect(throws: Errno.interrupted) { try result.get() }
    }

    @Test("a shim that returns -EINTR is called again; other negative errnos come back as they are")
    func negativeErrno() {
        var calls = 0
        #expect(retryOnInterrupt { () -> Int32 in calls += 1; return calls < 2 ? -EINTR : -ENODEV } == -ENODEV)
        #expect(calls == 2)
    }

    @Test("a shim that says -EINTR for ever is called interruptedCalls times, then its -EINTR comes back")
    func negativeErrnoBounded() {
        var calls = 0
        #expect(retryOnInterrupt { () -> Int32 in calls += 1; return -EINTR } == -EINTR)
        #expect(calls == interruptedCalls)
        calls = 0
        #expect(retryOnInterrupt { () -> Int32 in calls += 1; return calls < interruptedCalls ? -EINTR : 0 } == 0)
        #expect(calls == interruptedCalls)
    }

    @Test("a shim's negative errno becomes that Errno, after the EINTR rule; its value otherwise")
    func negativeErrnoResult() throws {
        var calls = 0
        let failed = valueOrNegativeErrno { () -> Int32 in calls += 1; return calls < 2 ? -EINTR : -ENODEV }
        #expect(throws: Errno.noSuchDevice) { try failed.get() }
        #expect(calls == 2)
        #expect(try valueOrNegativeErrno { () -> Int32 in 7 }.get() == 7)
    }

    @Test("a NULL with errno becomes that errno")
    func pointer() {
        let result: Result<Int, Errno> = pointerOrErrno { Errno.current = .noMemory; return nil }
        #expect(throws: Errno.noMemory) { try result.get() }
    }
}

@Suite("eventfd, timerfd and epoll: every result checked")
struct DescriptorTests {
    @Test("an empty eventfd reads as 0 (EAGAIN is not an error); a signalled one as its count")
    func eventCounter() throws {
        let counter = try EventCounter()
        #expect(try counter.drain() == 0)
        try counter.signal()
        try counter.signal(2)
        #expect(try counter.drain() == 3)
        #expect(try counter.drain() == 0)
    }

    @Test("a closed eventfd says EBADF instead of reading nothing; close is safe twice")
    func closedCounter() throws {
        let counter = try EventCounter()
        counter.close()
        counter.close()
        #expect(throws: Errno.badFileDescriptor) { try counter.drain() }
        #expect(throws: Errno.badFileDescriptor) { try counter.signal() }
    }

    @Test("a read failure other than EAGAIN is said: an eventfd number that became a pipe's write end")
    func readFailure() throws {
        let counter = try EventCounter()
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.read.close() }
        // The counter's number now refers to the pipe's write end, which cannot be read.
        try pipe.write.duplicate(as: counter.descriptor!)
        try pipe.write.close()
        #expect(throws: Errno.badFileDescriptor) { try counter.drain() }
    }

    @Test("a pipe drains until empty, and EAGAIN ends the drain instead of failing it")
    func discard() throws {
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.read.close(); try? pipe.write.close() }
        let bytes = [UInt8](repeating: 7, count: 1000)
        #expect(try bytes.withUnsafeBytes { try pipe.write.write($0) } == 1000)
        try pipe.read.discardAvailable()
        var one: UInt8 = 0
        #expect(throws: Errno.wouldBlock) { try withUnsafeMutableBytes(of: &one) { try pipe.read.read(into: $0) } }
    }

    @Test("a timer armed in the past fires at once; an unfired one reads 0")
    func timer() throws {
        let timer = try MonotonicTimer()
        #expect(try timer.drain() == 0)
        let epoll = try Epoll()
        try epoll.add(timer.descriptor!, registration: 42)
        try timer.arm(at: SystemClock.monotonic() - 1)
        let ready = try epoll.wait(timeout: 1000)
        #expect(ready.map(\.registration) == [42])
        #expect(ready.first?.events.contains(.readable) == true)
        #expect(try timer.drain() == 1)
        try timer.arm(at: nil)
        #expect(try epoll.wait(timeout: 0).isEmpty)
    }

    @Test("a wait that asks for more events than the set's buffer holds gets them all")
    func moreThanItsBuffer() throws {
        let epoll = try Epoll(capacity: 1)
        let counters = try (0..<3).map { _ throws(Errno) in try EventCounter() }
        for (i, counter) in counters.enumerated() {
            try epoll.add(counter.descriptor!, registration: UInt64(10 + i))
            try counter.signal()
        }
        // Kept to the end: built -O, an array not used again may be freed here, and each
        // counter's close takes its descriptor out of the set (the waits then saw none).
        defer { withExtendedLifetime(counters) {} }
        #expect(try epoll.wait(maxEvents: 1, timeout: 0).count == 1)
        #expect(try Set(epoll.wait(maxEvents: 8, timeout: 0).map(\.registration)) == [10, 11, 12])
    }

    @Test("a wait while the last one's events are still held leaves them as they were")
    func heldEventsKept() throws {
        let epoll = try Epoll()
        let a = try EventCounter(), b = try EventCounter()
        try epoll.add(a.descriptor!, registration: 1)
        try a.signal()
        let first = try epoll.wait(timeout: 0)
        _ = try a.drain()
        try epoll.add(b.descriptor!, registration: 2)
        try b.signal()
        // `b` kept to the end: -O may free it after its last use, and its close would
        // take it out of the set.
        defer { withExtendedLifetime(b) {} }
        // As an action that waits again while the loop walks `first` would.
        let second = try epoll.wait(timeout: 0)
        #expect(second.map(\.registration) == [2])
        #expect(first.map(\.registration) == [1], "the second wait wrote over the first's events")
    }

    @Test("epoll reports the registration it was given, not the descriptor")
    func registration() throws {
        let epoll = try Epoll()
        let counter = try EventCounter()
        try epoll.add(counter.descriptor!, registration: 1 << 40)
        try counter.signal()
        #expect(try epoll.wait(timeout: 1000).map(\.registration) == [1 << 40])
        try epoll.modify(counter.descriptor!, registration: 9)
        #expect(try epoll.wait(timeout: 1000).map(\.registration) == [9])
        try epoll.remove(counter.descriptor!)
        #expect(try epoll.wait(timeout: 0).isEmpty)
        #expect(throws: Errno.noSuchFileOrDirectory) { try epoll.remove(counter.descriptor!) }
    }

    @Test("the monotonic clock moves forward and sleeps are at least as long as asked")
    func clock() {
        let start = SystemClock.monotonic()
        SystemClock.sleep(0.01)
        #expect(SystemClock.monotonic() - start >= 0.01)
        #expect(SystemClock.wall() > 1_700_000_000)
    }
}

@Suite("the kernel's word on the wall clock")
struct WallClockTests {
    // Both answers are checked in the VM with the guest's clock set
    // (Tests/hil/clock-tests): settimeofday unsynchronises, adjtimex can clear it.
    @Test("adjtimex answers without privilege, changing nothing")
    func answers() throws {
        let first = try SystemClock.wallSynchronised().get()
        #expect(try SystemClock.wallSynchronised().get() == first)
    }
}
