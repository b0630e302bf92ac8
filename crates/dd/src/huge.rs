//! Transparent huge pages for large arrays read at random (compute caches here; the explicit
//! search's markings and table use it too).

/// Bytes in a transparent huge page (x86_64 and aarch64 with 4 KiB base pages).
const HUGE: usize = 2 << 20;

/// Ask the kernel to back the 2 MiB-aligned part of a buffer of `capacity` elements starting at
/// `v` (a vector's whole buffer, not only its length) with transparent huge pages (Linux; a
/// hint, ignored elsewhere). Call it before the new part is first written: pages are backed
/// when first touched. An array probed at random, one slot per lookup, misses the TLB on nearly
/// every probe with 4 KiB pages once it spans tens of MiB. Only arrays written whole as soon as
/// they are allocated should ask: a huge page is resident as a whole once any byte of it is
/// touched (node storage that grows by doubling would hold up to 2 MiB more; slotted ring N=50
/// peaked 10 MiB higher).
pub fn huge_pages<T>(v: &[T], capacity: usize) {
    #[cfg(target_os = "linux")]
    {
        let start = v.as_ptr() as usize;
        let bytes = capacity * std::mem::size_of::<T>();
        let (lo, hi) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
        if hi > lo {
            // SAFETY: `madvise` with MADV_HUGEPAGE only changes how the kernel backs pages of
            // the range, which lies inside the buffer's own allocation; it never changes their
            // contents or validity.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (v, capacity, HUGE);
}
