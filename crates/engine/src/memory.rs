//! Giving freed memory back to the system between phases.
//!
//! Reading a net allocates many small blocks (names, arc lists, the reader's tables); once the
//! net is lowered and dropped, glibc's allocator keeps those pages resident, and the generation's
//! large arrays (mapped apart) never reuse them: on philosophers N=10000 the process stayed
//! 40 MB above its live heap. `malloc_trim` hands the free pages back.

/// Return the pages of freed blocks to the system (glibc; nothing elsewhere).
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases memory the allocator holds free; it takes no pointer
    // and is safe to call at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Fix the size from which blocks are mapped apart (and unmapped when freed) at 256 KiB.
/// glibc raises that threshold each time a mapped block is freed (up to 32 MiB); after the
/// reader frees its tables, the forest's and the caches' arrays then grow inside the heap,
/// and each doubling leaves the old array behind as a resident hole.
pub fn map_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` sets an allocator parameter; called once, before any other thread runs.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
    }
}
