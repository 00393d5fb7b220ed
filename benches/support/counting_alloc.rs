//! A counting global allocator for the memory reports of `long_jump` and `end_of_block`: it
//! forwards every call to the system allocator and, only while counting is on (so the timed
//! benches pay one relaxed load per call), tracks the live heap bytes and their peak.
//!
//! Use: `#[path = "support/counting_alloc.rs"] mod counting_alloc;` (the module installs
//! itself as the global allocator), then [`measure`].
#![allow(dead_code)] // not every bench reads every figure of a `Heap`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);
static PEAK_BYTES: AtomicIsize = AtomicIsize::new(0);

fn grew(by: isize) {
    let now = LIVE_BYTES.fetch_add(by, Ordering::Relaxed) + by;
    PEAK_BYTES.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counters are a side
// effect only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            grew(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            grew(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        if COUNTING.load(Ordering::Relaxed) {
            LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            grew(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What [`measure`] saw: heap bytes still held when `f` returned, and the most held at once,
/// both above the level when it started (allocations `f` frees count against the first).
pub struct Heap {
    pub retained: isize,
    pub peak: isize,
}

/// Runs `f` with counting on; returns its result and the heap it took.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Heap) {
    COUNTING.store(true, Ordering::SeqCst);
    let before = LIVE_BYTES.load(Ordering::SeqCst);
    PEAK_BYTES.store(before, Ordering::SeqCst);
    let out = f();
    let after = LIVE_BYTES.load(Ordering::SeqCst);
    let peak = PEAK_BYTES.load(Ordering::SeqCst);
    COUNTING.store(false, Ordering::SeqCst);
    (
        out,
        Heap {
            retained: after - before,
            peak: peak - before,
        },
    )
}
