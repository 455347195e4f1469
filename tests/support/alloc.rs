//! A counting global allocator for the tests that measure memory. It keeps two figures:
//! the heap in use across the process and its peak (for ceilings on a case's peak heap),
//! and, per thread while switched on, how many allocations were made (for "allocates
//! nothing" checks that other test threads cannot disturb).
//!
//! A test file installs it itself (a global allocator in this shared module would be
//! every test's):
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: support::alloc::Counting = support::alloc::Counting;
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counted.
pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
}

/// Counts an allocation of the current thread, when counting is on there.
fn count_one() {
    if ACTIVE.try_with(Cell::get).unwrap_or(false) {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }
}

/// `grow` more bytes in use, and the peak raised to match.
fn grown(grow: usize) {
    let now = CURRENT.fetch_add(grow, Ordering::Relaxed) + grow;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grown(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grown(new_size - layout.size());
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// Runs `f` and returns its result with how many allocations (and reallocations) the
/// current thread made meanwhile.
pub fn allocations_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    COUNT.with(|c| c.set(0));
    ACTIVE.with(|a| a.set(true));
    let result = f();
    ACTIVE.with(|a| a.set(false));
    (result, COUNT.with(Cell::get))
}

/// Runs `f` twice, the first time to warm up (buffers grown, lazy tables built), and returns
/// both results with how many allocations the current thread made during the second run.
pub fn warm_then_count<T>(mut f: impl FnMut() -> T) -> (T, T, usize) {
    let warm = f();
    let (again, n) = allocations_during(&mut f);
    (warm, again, n)
}

/// Runs `f` and returns its result with the peak heap in use meanwhile above the level at
/// its start (process-wide: the caller keeps other tests from allocating meanwhile).
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let result = f();
    (result, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}
