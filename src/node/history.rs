//! Bounded history (issue 20, Spec note 73): a live node keeps the blocks, receipts and
//! events of the last `--history` heights; queries for older heights answer `HistoryPruned`.

use super::core::NodeCore;
use super::error::NodeError;
use super::views::{BlockView, EventFilter, EventView, HeadView};

impl NodeCore {
    /// The head and the node's counters, with the oldest kept height (Spec note 73).
    pub fn head(&self) -> HeadView {
        super::read::head(
            self.chain(),
            self.mining,
            self.pending_txs,
            self.first_kept(),
        )
    }

    /// The oldest height whose block and events a live node still keeps (Spec note 73): the
    /// last `--history` heights; 1 while nothing was pruned, and for a headless node (whose
    /// history is the chain's recent blocks). After `devnet_revertTo` the head is lower but
    /// what was pruned stays pruned (issue 31 item 4, Spec note 148): never below the lowest
    /// height the history still holds.
    pub fn first_kept(&self) -> u64 {
        if !self.keep_history {
            return 1;
        }
        (self.chain().height() + 1)
            .saturating_sub(self.history_len as u64)
            .max(self.pruned_to)
            .max(1)
    }

    /// `HistoryPruned` for a height the node no longer keeps (Spec note 73).
    pub fn check_kept(&self, height: u64) -> Result<(), NodeError> {
        let first_kept = self.first_kept();
        if height < first_kept {
            return Err(NodeError::HistoryPruned {
                first_kept,
                keep: self.history_len,
            });
        }
        Ok(())
    }

    /// [`block`](Self::block), answering `HistoryPruned` for a pruned height (Spec note 73).
    pub fn block_kept(&self, height: u64) -> Result<Option<BlockView>, NodeError> {
        if height > 0 {
            self.check_kept(height)?;
        }
        Ok(self.block(height))
    }

    /// [`events`](Self::events), answering `HistoryPruned` when the filter's `from_height`
    /// asks for pruned heights (Spec note 73); without a `from_height` it starts at the
    /// oldest kept height.
    pub fn events_kept(&self, filter: &EventFilter) -> Result<Vec<EventView>, NodeError> {
        if let Some(from) = filter.from_height.filter(|f| *f > 0) {
            self.check_kept(from)?;
        }
        Ok(self.events(filter))
    }
}
