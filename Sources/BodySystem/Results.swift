// C results into Swift results: -1 (or NULL) with errno becomes a typed
// `Errno`, and EINTR is decided here, once, for every call the body makes.
// Modelled on apple/swift-system's `valueOrErrno` and `nothingOrErrno`.

/// The EINTR rule, one for the body, in this file: a call a signal
/// interrupts is made again, because every descriptor the body waits on is
/// non-blocking or the call is one that restarts cleanly. A call that sets
/// errno is made again for as long as it says EINTR (the body's signals come
/// through a signalfd, so only a stop and continue or a debugger interrupts
/// it, and each once); a shim that returns a negative errno (`CV4L2`'s ioctls,
/// below) at most `interruptedCalls` times, because there EINTR can be the
/// driver's own answer. The one exception is `close`
/// (`FileDescriptor.close`): Linux frees the descriptor even when close says
/// EINTR, so closing again could close a descriptor another thread just got.
@inlinable
public func valueOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> I) -> Result<I, Errno> {
    while true {
        let value = call()
        if value != -1 { return .success(value) }
        let error = Errno.current
        if retryOnInterrupt && error == .interrupted { continue }
        return .failure(error)
    }
}

/// `valueOrErrno` for calls whose only news is success.
@inlinable
public func nothingOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> I) -> Result<Void, Errno> {
    valueOrErrno(retryOnInterrupt: retryOnInterrupt, call).map { _ in () }
}

/// `valueOrErrno` for calls that return NULL with errno set.
@inlinable
public func pointerOrErrno<P>(retryOnInterrupt: Bool = true, _ call: () -> P?) -> Result<P, Errno> {
    while true {
        if let value = call() { return .success(value) }
        let error = Errno.current
        if retryOnInterrupt && error == .interrupted { continue }
        return .failure(error)
    }
}

/// A read on a non-blocking descriptor: nothing there yet (EAGAIN) is nil, not an error.
@inlinable
public func valueOrNilIfWouldBlock<T>(_ result: Result<T, Errno>) -> Result<T?, Errno> {
    switch result {
    case .success(let value): .success(value)
    case .failure(let error) where error == .wouldBlock: .success(nil)
    case .failure(let error): .failure(error)
    }
}

/// The EINTR rule for C shims that return 0 (or a value) or a negative errno
/// instead of setting errno (CV4L2's ioctls): a call that says -EINTR is made
/// again, at most `interruptedCalls` times in all (as ustreamer's `us_xioctl`):
/// a driver that keeps saying EINTR is an error the camera reports, not a spin.
@inlinable
public func retryOnInterrupt<I: FixedWidthInteger & SignedInteger>(negativeErrno call: () -> I) -> I {
    var rc = call()
    var calls = 1
    while rc == -I(Errno.interrupted.rawValue), calls < interruptedCalls {
        rc = call()
        calls += 1
    }
    return rc
}

/// `retryOnInterrupt(negativeErrno:)` as a result: a negative value is its
/// `Errno`, anything else the call's value.
@inlinable
public func valueOrNegativeErrno<I: FixedWidthInteger & SignedInteger>(_ call: () -> I) -> Result<I, Errno> {
    let value = retryOnInterrupt(negativeErrno: call)
    return value < 0 ? .failure(Errno(Int32(truncatingIfNeeded: -value))) : .success(value)
}

/// How many times `retryOnInterrupt` makes a call that keeps saying EINTR.
public let interruptedCalls = 8
