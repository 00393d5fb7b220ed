//! The text lines the headless runner prints: one per block, one per event. The dashboard's
//! event feed uses the same text.

use crate::chain::{Block, Event};
use crate::engine::Address;
use crate::engine::scheduler::kind::FireBound;
use std::collections::BTreeMap;

fn short(h: &crate::engine::H256) -> String {
    hex::encode(&h.0[..4])
}

/// One sealed block as a line of fixed-width columns: heights up to [`MAX_RUN_BLOCKS`] (nine
/// digits), counts up to six digits and lane figures up to ten keep every column in place.
///
/// [`MAX_RUN_BLOCKS`]: super::MAX_RUN_BLOCKS
pub fn block_line(b: &Block) -> String {
    let e = &b.eob;
    let outage = if b.header.skipped > 0 {
        format!("  (resumed after {} skipped)", b.header.skipped)
    } else {
        String::new()
    };
    // The CIP-5 drafts have no lane (issue 30): their column is the fires materialized against
    // `MAX_FIRES_PER_BLOCK`, then the cycles the fires used.
    let (label, of, cap) = if b.lane.scheduler.facts().bound == FireBound::FireQuota {
        ("fires", e.fired, b.lane.fire_quota)
    } else {
        // The capacity the block ran with, not the one its transactions set for the next.
        ("lane ", e.lane_reserved, b.lane.capacity)
    };
    format!(
        "#{:<9} txs {:<6} fired {:<6} deferred {:<6} gc {:<6} {label}{:>10}/{:<10} (used {:>10})  pending {:<8} root {}{}",
        b.header.height,
        b.receipts.len(),
        e.fired,
        e.deferred,
        e.gc_removed(),
        of,
        cap,
        e.lane_used,
        b.pending,
        short(&b.header.state_root),
        outage
    )
}

/// One event as a human line, with the fixture's names for addresses (the text is
/// [`crate::node::text::event_text`], which the dashboard's feed shows too).
pub fn event_line(e: &Event, book: &BTreeMap<Address, String>) -> String {
    format!(
        "         {:<32} {}",
        e.kind().as_str(),
        crate::node::text::event_text(e, book)
    )
}
