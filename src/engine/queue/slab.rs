//! The slab of timer records: fixed pages of [`PAGE`] slots, pooled or given to one busy ring
//! height (see the module docs of [`super`], "Records of a busy height sit together").

use super::{CalendarQueue, Slot, prefetch};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Slots per slab page (a power of two).
pub(super) const PAGE_BITS: u32 = 6;
pub(super) const PAGE: usize = 1 << PAGE_BITS;

/// A ring bucket holding at least this many handles draws the records of further timers from
/// pages of its own (see [`Slab`]). Below it, a page could sit mostly empty: at this threshold a
/// bucket's open page is at most a `PAGE / BUSY_BUCKET` (1/8) overhead on its records.
pub(super) const BUSY_BUCKET: usize = 8 * PAGE;

/// No page.
pub(super) const NO_PAGE: u32 = u32::MAX;

/// How a slab page hands out its slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PageUse {
    /// In the free-page list.
    Free,
    /// Slot by slot, through the free-slot list (quiet buckets, epoch and overflow tiers).
    Pool,
    /// In order, to the timers of one busy ring height: its records sit together in memory, so
    /// the height is written and drained as a stream rather than as scattered single records.
    /// The page is freed as a whole once every timer it held has left.
    Height { live: u32, fill: u32, open: bool },
}

/// The timer records, in fixed pages of [`PAGE`] slots: a slot number is `page * PAGE + i`.
/// Pages are separate allocations, so growing the slab never moves (or doubles) the records.
///
/// Pages are shared on clone and copied on write (`Arc::make_mut`): a clone of the queue (a
/// snapshot, a history checkpoint: issue 24) costs the page table, and holds on to no more
/// records than the pages written since (issue 24's checkpoints were one full copy of every
/// pending timer each).
///
/// Issue 31 (the calendar queue back within 1.1x of the unshared slab): `Arc::make_mut` is an
/// atomic read-modify-write on every write to a record, 20-45 % of a queue operation. Each page
/// carries an `owned` flag instead: set when this slab made the page its own (a new page, or
/// the first write after a clone, through `make_mut`), cleared on every page by a clone (on
/// both sides). A write to an owned page takes the record in place, with no atomic operation
/// but a relaxed load.
#[derive(Default)]
pub(super) struct Slab {
    pages: Vec<Arc<[Slot]>>,
    pub(super) uses: Vec<PageUse>,
    /// `owned[p]`: page `p` is held by this slab alone (see above).
    owned: Vec<AtomicBool>,
}

impl Clone for Slab {
    fn clone(&self) -> Self {
        // Both sides share every page from here on: neither may write one in place until
        // `make_mut` has made it its own again.
        for o in &self.owned {
            o.store(false, Ordering::Relaxed);
        }
        Slab {
            pages: self.pages.clone(),
            uses: self.uses.clone(),
            owned: self.pages.iter().map(|_| AtomicBool::new(false)).collect(),
        }
    }
}

impl Slab {
    /// Slots allocated (free or not).
    pub(super) fn len(&self) -> usize {
        self.pages.len() * PAGE
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Slot> {
        self.pages.iter().flat_map(|p| p.iter())
    }

    /// Heap bytes of the page table (the pages themselves are counted by their slots).
    pub(super) fn table_bytes(&self) -> usize {
        self.pages.capacity() * std::mem::size_of::<Arc<[Slot]>>()
            + self.owned.capacity() * std::mem::size_of::<AtomicBool>()
    }

    /// Issue 31 (checkpoints bounded by bytes): each page's address and heap bytes (the pages
    /// are what a clone shares until written). A page's bytes are its slots and what their
    /// timers own (payloads, boxed fee caps): a write copies the page with them, so a
    /// checkpoint whose pages the live chain wrote holds those alone too (Spec note 203; they
    /// were left out, and the estimate undercounted the checkpoints by a third).
    pub(super) fn visit_pages(&self, f: &mut dyn FnMut(usize, usize)) {
        for p in &self.pages {
            let owned: usize = p
                .iter()
                .filter_map(|s| s.timer.as_ref())
                .map(|t| t.heap_bytes())
                .sum();
            f(
                Arc::as_ptr(p) as *const u8 as usize,
                std::mem::size_of_val::<[Slot]>(p) + owned,
            );
        }
    }

    fn new_page(&mut self, page_use: PageUse) -> u32 {
        self.pages.push(Arc::from(vec![Slot::EMPTY; PAGE]));
        self.owned.push(AtomicBool::new(true));
        self.uses.push(page_use);
        (self.pages.len() - 1) as u32
    }

    fn page_of(slot: u32) -> usize {
        (slot >> PAGE_BITS) as usize
    }
}

impl std::ops::Index<usize> for Slab {
    type Output = Slot;
    #[inline]
    fn index(&self, slot: usize) -> &Slot {
        &self.pages[slot >> PAGE_BITS][slot & (PAGE - 1)]
    }
}

impl std::ops::IndexMut<usize> for Slab {
    /// The owned page's record in place (inlined: a relaxed load and a branch), else the
    /// page made this slab's own first ([`Slab::own_page`], out of line).
    ///
    /// Issue 31, sixth session: this was one out-of-line call per write, and the queue wrote a
    /// record up to five times per insert and four per removal, each paying the call and the
    /// flag's load again; the hot paths now reach a record once per step (`store`, `unstore`,
    /// `take_due`) and this fast path is inlined into them.
    #[inline(always)]
    fn index_mut(&mut self, slot: usize) -> &mut Slot {
        let p = slot >> PAGE_BITS;
        if !self.owned[p].load(Ordering::Relaxed) {
            self.own_page(p);
        }
        // SAFETY: `owned[p]` is set only once this slab holds page `p` alone (a page it
        // created, or one `Arc::make_mut` just made unique in `own_page`), and a clone, the
        // only place a page's `Arc` is cloned, clears it on both sides before the page is
        // shared. No `Weak` is ever made. So the page's strong count is 1 and no other
        // reference to its slots exists; `&mut self` keeps it so (a clone needs `&self`) for
        // the lifetime of the returned reference. This is what `Arc::get_mut` returns after
        // its (atomic) uniqueness check.
        #[allow(unsafe_code)]
        let page = unsafe { &mut *(Arc::as_ptr(&self.pages[p]) as *mut [Slot]) };
        &mut page[slot & (PAGE - 1)]
    }
}

impl Slab {
    /// Makes page `p` this slab's own (copied if another holder shares it) and marks it owned.
    #[cold]
    #[inline(never)]
    fn own_page(&mut self, p: usize) {
        Arc::make_mut(&mut self.pages[p]);
        self.owned[p].store(true, Ordering::Relaxed);
    }
}

impl CalendarQueue {
    /// A free slot of a pool page.
    #[inline]
    pub(super) fn alloc_pooled(&mut self) -> u32 {
        if self.free.is_empty() {
            let page = self.take_page(PageUse::Pool);
            let first = page << PAGE_BITS;
            // Popped in ascending order.
            self.free.extend((first..first + PAGE as u32).rev());
        }
        let slot = self.free.pop().expect("a pool page was just added");
        // The next pooled timer's record: fetch it while this one is written.
        if let Some(&next) = self.free.last() {
            prefetch(&self.slots[next as usize]);
        }
        slot
    }

    /// The next slot of the page of the busy ring bucket at `pos`, opening a page if it has
    /// none or its page is full.
    #[inline]
    pub(super) fn alloc_for_height(&mut self, pos: usize) -> u32 {
        let mut page = self.ring_page[pos];
        if page == NO_PAGE {
            page = self.take_page(PageUse::Height {
                live: 0,
                fill: 0,
                open: true,
            });
            self.ring_page[pos] = page;
        }
        let PageUse::Height { live, fill, .. } = &mut self.slots.uses[page as usize] else {
            unreachable!("a ring bucket's page is a height page");
        };
        let slot = (page << PAGE_BITS) + *fill;
        *live += 1;
        *fill += 1;
        if *fill as usize == PAGE {
            self.close_page(pos);
        } else {
            // The height's next record: fetch it now, so that the next timer of this height
            // (dozens of inserts later, at a million pending) finds it in the cache.
            prefetch(&self.slots[slot as usize + 1]);
        }
        slot
    }

    /// A page for `page_use`: a free one (the most recently freed, likeliest still cached) or
    /// a new one.
    pub(super) fn take_page(&mut self, page_use: PageUse) -> u32 {
        match self.free_pages.pop() {
            Some(page) => {
                self.slots.uses[page as usize] = page_use;
                page
            }
            None => self.slots.new_page(page_use),
        }
    }

    /// Detaches the ring bucket at `pos` from its page (full, or its height drained or moved);
    /// the page is freed now if every timer it held has already gone, else when the last goes.
    pub(super) fn close_page(&mut self, pos: usize) {
        let page = std::mem::replace(&mut self.ring_page[pos], NO_PAGE);
        if page == NO_PAGE {
            return;
        }
        let page_use = &mut self.slots.uses[page as usize];
        if let PageUse::Height { live, open, .. } = page_use {
            *open = false;
            if *live == 0 {
                *page_use = PageUse::Free;
                self.free_pages.push(page);
            }
        }
    }

    /// Frees a removed timer's slot (its index entry is gone).
    #[inline]
    pub(super) fn free_slot(&mut self, slot: u32) {
        let page = Slab::page_of(slot);
        let page_use = &mut self.slots.uses[page];
        match page_use {
            PageUse::Pool => self.free.push(slot),
            PageUse::Height { live, open, .. } => {
                *live -= 1;
                if *live == 0 && !*open {
                    *page_use = PageUse::Free;
                    self.free_pages.push(page as u32);
                }
            }
            PageUse::Free => unreachable!("a slot of a free page was in use"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{PAGE, PageUse, Slab};
    use std::sync::Arc;

    fn gens(s: &Slab) -> Vec<u32> {
        s.iter().map(|slot| slot.meta.generation).collect()
    }

    /// Issue 31: writes in place to owned pages never reach a clone, in either direction, over
    /// several rounds of clones (a checkpoint of a checkpoint), and a page written after a
    /// clone is the writer's own again (copied once, then written in place).
    #[test]
    fn owned_pages_are_written_in_place_and_clones_stay_apart() {
        let mut a = Slab::default();
        a.new_page(PageUse::Pool);
        a.new_page(PageUse::Pool);
        for i in 0..2 * PAGE {
            a[i].meta.generation = 1;
        }
        let b = a.clone();
        a[0].meta.generation = 2;
        let copied = Arc::as_ptr(&a.pages[0]);
        a[1].meta.generation = 3;
        assert_eq!(
            Arc::as_ptr(&a.pages[0]),
            copied,
            "copied once, then in place"
        );
        assert!(
            Arc::ptr_eq(&a.pages[1], &b.pages[1]),
            "an unwritten page stays shared"
        );
        assert!(
            gens(&b).iter().all(|g| *g == 1),
            "the clone kept its records"
        );
        let mut c = a.clone();
        c[PAGE].meta.generation = 9;
        a[PAGE + 1].meta.generation = 7;
        c[0].meta.generation = 8;
        assert_eq!(a[0].meta.generation, 2);
        assert_eq!(a[PAGE].meta.generation, 1);
        assert_eq!(c[PAGE + 1].meta.generation, 1);
        assert_eq!(c[1].meta.generation, 3);
        assert!(gens(&b).iter().all(|g| *g == 1));
        drop(b);
        drop(c);
        // The last holder of a page copies nothing: make_mut finds it unique.
        let p = Arc::as_ptr(&a.pages[0]);
        a[2].meta.generation = 5;
        assert_eq!(Arc::as_ptr(&a.pages[0]), p);
    }
}
