//! Where a node's bytes are (issue 31, serve under 300 MB): a bench or a test drops one part
//! of what the node retains at a time, under a counting allocator, and reads the bytes that
//! part alone held (`benches/retained_block.rs`). Not part of the node's behaviour.

use super::NodeCore;
use std::collections::VecDeque;

/// A part of what a live node retains, in the order [`NodeCore::test_hook_drop_part`] is meant
/// to drop them (each after the ones before it, so shared bytes count once, for the part that
/// lets go of them last).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetainedPart {
    /// The last past states read (`past_cache.rs`).
    PastStates,
    /// Kept snapshots (`evm_snapshot`).
    Snapshots,
    /// The checkpoints but the newest: what each holds that the live chain does not.
    Checkpoints,
    /// The session log (every command applied since its base or its last trim).
    SessionLog,
    /// The compact fate records (Spec note 150) and their index.
    Fates,
    /// Execution traces (`--trace`).
    Traces,
    /// The header archive of the blocks older than the window (Spec note 183).
    HeaderArchive,
    /// The history's sealed blocks (bodies, receipts, events), held by the node's window and
    /// the chain's recent blocks.
    Blocks,
}

impl RetainedPart {
    /// Every part, in the order to drop them.
    pub const ALL: [RetainedPart; 8] = [
        RetainedPart::PastStates,
        RetainedPart::Snapshots,
        RetainedPart::Checkpoints,
        RetainedPart::SessionLog,
        RetainedPart::Fates,
        RetainedPart::Traces,
        RetainedPart::HeaderArchive,
        RetainedPart::Blocks,
    ];
}

impl NodeCore {
    /// Bench and test hook: lets go of `part` (the node is not meant to run on after it: past
    /// reads and exports lose what they replay from). What is left after every part is the
    /// live chain (engine, accounts, actors, state commitment).
    #[doc(hidden)]
    pub fn test_hook_drop_part(&mut self, part: RetainedPart) {
        match part {
            RetainedPart::PastStates => self.drop_past_states(),
            RetainedPart::Snapshots => self.snapshots.clear(),
            RetainedPart::Checkpoints => {
                let newest = self.checkpoints.pop_back();
                self.checkpoints = newest.into_iter().collect::<VecDeque<_>>();
            }
            RetainedPart::SessionLog => {
                self.checkpoints.clear();
                self.session = Default::default();
                self.start = None;
            }
            RetainedPart::Fates => self.fates = Default::default(),
            RetainedPart::Traces => self.traces = Default::default(),
            RetainedPart::HeaderArchive => self.chain.set_archive_headers(false),
            RetainedPart::Blocks => {
                self.history.clear();
                self.chain.set_keep_blocks(1);
            }
        }
    }

    /// Bench hook: lets go of a part of the live chain's timer queue (after the parts above:
    /// what is left of the live chain by the queue's parts, `benches/retained_block.rs`).
    #[doc(hidden)]
    pub fn test_hook_drop_queue_part(&mut self, part: crate::engine::queue::QueuePart) {
        self.chain.test_hook_drop_queue_part(part);
    }

    /// Bench hook: lets go of a part of the live chain by name (`Chain::test_hook_drop_field`).
    #[doc(hidden)]
    pub fn test_hook_drop_chain_field(&mut self, name: &str) {
        self.chain.test_hook_drop_field(name);
    }
}
