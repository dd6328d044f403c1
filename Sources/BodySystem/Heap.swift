/// The process's malloc heap.
public enum Heap {
    /// Gives the kernel back the heap's free pages, wherever they lie in it
    /// (glibc's `malloc_trim(0)`, which since 2.8 also releases free pages in
    /// the middle of the heap, not only at its top). After a flood of
    /// connections closes, about a megabyte of freed buffers would otherwise
    /// stay resident for good (docs/reliability.md, the storm). Returns
    /// whether anything was given back.
    @discardableResult
    public static func giveBackFree() -> Bool { system_malloc_trim(0) == 1 }
}
