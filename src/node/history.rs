//! Bounded history (issue 20, Spec note 73): a live node keeps the blocks, receipts and
//! events of the last `--history` heights; queries for older heights answer `HistoryPruned`.

use super::core::NodeCore;
use super::error::NodeError;
use super::views::{
    BlockAnswer, BlockView, BodyError, EventFilter, EventView, HeadView, PrunedBlockView,
};

impl NodeCore {
    /// The head and the node's counters, with the oldest kept height (Spec note 73).
    pub fn head(&self) -> HeadView {
        super::read::head(
            self.chain(),
            self.mining,
            self.pending_txs,
            self.first_kept(),
            self.first_state(),
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

    /// `devnet_getBlock` (issue 31, Spec note 183): the whole block while it is kept; for a
    /// height older than the kept history its header (from the chain's header archive) with a
    /// `HistoryPruned` body error; `HistoryPruned` as before when no header is held either (a
    /// height before a load or a reset, or skipped by an outage); `None` above the head.
    pub fn block_answer(&self, height: u64) -> Result<Option<BlockAnswer>, NodeError> {
        let (first_kept, keep) = match self.block_kept(height) {
            Err(NodeError::HistoryPruned { first_kept, keep }) => (first_kept, keep),
            kept => return kept.map(|b| b.map(BlockAnswer::Whole)),
        };
        let header = self
            .chain()
            .header(height)
            .ok_or(NodeError::HistoryPruned { first_kept, keep })?;
        let body_error = BodyError {
            reason: "HistoryPruned".into(),
            code: super::codes::code_of("HistoryPruned"),
            message: format!(
                "blocks before #{first_kept} keep their header only; this node keeps the last {keep} whole (--history)"
            ),
            first_kept,
            keep,
        };
        Ok(Some(BlockAnswer::HeaderOnly(Box::new(PrunedBlockView {
            header,
            body: None,
            body_error,
        }))))
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
