//! The slab of timer records: fixed pages of [`PAGE`] slots, pooled or given to one busy ring
//! height (see the module docs of [`super`], "Records of a busy height sit together").

use super::{CalendarQueue, Slot, prefetch};
use std::sync::Arc;

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
#[derive(Clone, Default)]
pub(super) struct Slab {
    pub(super) pages: Vec<Arc<[Slot]>>,
    pub(super) uses: Vec<PageUse>,
}

impl Slab {
    /// Slots allocated (free or not).
    pub(super) fn len(&self) -> usize {
        self.pages.len() * PAGE
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Slot> {
        self.pages.iter().flat_map(|p| p.iter())
    }

    fn new_page(&mut self, page_use: PageUse) -> u32 {
        self.pages.push(Arc::from(vec![Slot::EMPTY; PAGE]));
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
    #[inline]
    fn index_mut(&mut self, slot: usize) -> &mut Slot {
        &mut Arc::make_mut(&mut self.pages[slot >> PAGE_BITS])[slot & (PAGE - 1)]
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
