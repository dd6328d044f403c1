/// A counting semaphore between threads of the process: one thread waits
/// until another posts. Posting never blocks, so the loop may post.
/// The C functions are `sem_init`, `sem_post`, `sem_wait`, `sem_trywait`, `sem_destroy`.
public final class Semaphore: @unchecked Sendable {
    // sem_t must not move once initialised: it lives at a fixed address of its own.
    private let sem: UnsafeMutablePointer<system_sem_t>

    /// Starts at 0: the first `wait` waits for a `post`.
    public init() throws(Errno) {
        sem = .allocate(capacity: 1)
        do throws(Errno) {
            try nothingOrErrno { system_sem_init(sem) }.get()
        } catch {
            sem.deallocate()
            throw error
        }
    }

    deinit {
        _ = system_sem_destroy(sem)
        sem.deallocate()
    }

    /// Adds one and wakes a waiter. Fails only at the counter's maximum (EOVERFLOW),
    /// when a waiter has that many wake-ups already.
    public func post() throws(Errno) {
        try nothingOrErrno { system_sem_post(sem) }.get()
    }

    /// Waits until the count is above 0, then takes one. A signal that interrupts
    /// the wait waits again (the one EINTR rule, `valueOrErrno`).
    public func wait() throws(Errno) {
        try nothingOrErrno { system_sem_wait(sem) }.get()
    }

    /// Takes one if the count is above 0; false at once when it is 0 (EAGAIN).
    public func take() throws(Errno) -> Bool {
        try valueOrNilIfWouldBlock(valueOrErrno { system_sem_trywait(sem) }).get() != nil
    }
}
