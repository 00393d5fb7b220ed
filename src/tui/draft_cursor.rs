//! The drafts' pane as a list (issue 22): its rows (the Globalbox head first, the last
//! block's Mailbox in `deliver_seq` order, the watch index), the row the user selected, and
//! what `Enter` opens. As in the buckets' timer list, the first `↑`/`↓` selects the row under
//! the cursor; the selection follows its timer while blocks pass and is cleared (never moved
//! to another timer) when the timer leaves the list it was in.

use crate::engine::{Address, TimerId};
use crate::node::DraftView;

/// The list of the drafts' pane a row belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DraftList {
    Globalbox,
    Mailbox,
    Watches,
}

/// One selectable row of the drafts' pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DraftRow {
    pub list: DraftList,
    pub timer: TimerId,
    pub target: Address,
    /// What tells two rows of one timer apart: a Mailbox entry's `deliver_seq` (0 elsewhere).
    pub seq: u64,
}

/// The pane's selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DraftCursor {
    /// The row under the cursor, in [`rows`] order.
    pub sel: usize,
    /// The row the user selected; `None`: nothing is selected (the cursor only).
    pub pin: Option<DraftRow>,
}

/// The selectable rows, in the order the pane draws them.
pub fn rows(d: &DraftView) -> Vec<DraftRow> {
    let g = d.globalbox.iter().map(|g| DraftRow {
        list: DraftList::Globalbox,
        timer: g.timer_id,
        target: g.target,
        seq: 0,
    });
    let m = d.mailbox.iter().map(|m| DraftRow {
        list: DraftList::Mailbox,
        timer: m.timer_id,
        target: m.target,
        seq: m.deliver_seq,
    });
    let w = d.watches.iter().map(|w| DraftRow {
        list: DraftList::Watches,
        timer: w.timer_id,
        target: w.target,
        seq: 0,
    });
    g.chain(m).chain(w).collect()
}

impl DraftCursor {
    /// After a refresh: the pinned row where it is now, or nothing selected when it left.
    pub fn follow(&mut self, d: Option<&DraftView>) {
        let rows = d.map(rows).unwrap_or_default();
        match self.pin.and_then(|p| rows.iter().position(|r| *r == p)) {
            Some(i) => self.sel = i,
            None => {
                self.pin = None;
                self.sel = self.sel.min(rows.len().saturating_sub(1));
            }
        }
    }

    /// The selected row's timer and target.
    pub fn selected(&self) -> Option<(TimerId, Option<Address>)> {
        self.pin.map(|r| (r.timer, Some(r.target)))
    }
}
