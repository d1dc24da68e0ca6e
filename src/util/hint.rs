//! Memory hints for loops over known lists of rows.

/// Asks the processor to start loading the cache line holding `pointer`. A hint
/// only: it never faults, and the pointer need not be valid.
#[inline(always)]
pub(crate) fn prefetch<T>(pointer: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` reads nothing architecturally visible and never faults,
    // whatever the address; SSE is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(pointer.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = pointer;
}
