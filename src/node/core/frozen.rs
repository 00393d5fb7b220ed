//! Immutable copies of the node for work off its thread (issue 31 item 7, "a past read, an
//! export and a dump work on an immutable copy on other threads"): the node's thread takes the
//! copy, which costs shared pointers (the chain's timer pages and commitment tables are shared
//! copy-on-write, the session log is a persistent list, blocks and checkpoints are `Arc`s),
//! and another thread does the expensive part (a dump's image of 1M timers and its text, an
//! export's replay and fixture). What the copy answers is what the live node answered when the
//! copy was taken: the node goes on sealing meanwhile without touching it.

use super::NodeCore;
use crate::chain::{Chain, ChainDump};
use crate::node::NodeError;
use std::collections::VecDeque;

/// The state to dump, as the node's thread left it ([`NodeCore::dump_copy`]): the chain, and
/// the fixture player's position taken there (a hook stays on the node's thread).
pub struct DumpCopy {
    chain: Chain,
    fixture_player: Option<serde_json::Value>,
}

impl std::fmt::Debug for DumpCopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DumpCopy")
            .field("height", &self.chain.height())
            .finish_non_exhaustive()
    }
}

impl DumpCopy {
    /// The height of the sealed head the copy holds.
    pub fn height(&self) -> u64 {
        self.chain.height()
    }

    /// The dump, on any thread: what [`NodeCore::dump`] answered when the copy was taken.
    pub fn dump(&self) -> ChainDump {
        let mut d = self
            .chain
            .dump()
            .expect("a copy is taken only with no block open");
        d.fixture_player = self.fixture_player.clone();
        d
    }
}

/// A copy of the node to read on another thread ([`NodeCore::freeze`]); [`Frozen::build`]
/// finishes it there.
pub struct Frozen(NodeCore);

impl Frozen {
    /// The copy, ready to read: the timers' compact records indexed again (the one part that
    /// costs per timer, done here rather than on the node's thread).
    pub fn build(self) -> NodeCore {
        let mut n = self.0;
        n.fates = std::mem::take(&mut n.fates).reindexed();
        n
    }
}

impl NodeCore {
    /// The state to dump on another thread: refused as [`NodeCore::dump`] refuses (a block
    /// open with transactions is `BlockOpen`), checked before anything is copied.
    pub fn dump_copy(&self) -> Result<DumpCopy, NodeError> {
        self.chain.check_dumpable()?;
        Ok(DumpCopy {
            chain: self.chain.clone(),
            fixture_player: self.hook.as_ref().and_then(|h| h.dump_state()),
        })
    }

    /// A copy of the node for reads on another thread (an export, `serve --record`): the
    /// chain, its history, checkpoints and session log as they are now, shared. It has no
    /// hook, snapshots, kept past states, traces, labels or pending events: a read of those
    /// stays on the node's thread.
    pub fn freeze(&self) -> Frozen {
        Frozen(NodeCore {
            chain: self.chain.clone(),
            genesis: self.genesis.clone(),
            runtime: self.runtime.clone(),
            keep_blocks: self.keep_blocks,
            mining: self.mining,
            next_seal_at: None,
            pending_txs: self.pending_txs,
            keep_history: self.keep_history,
            history: self.history.clone(),
            history_len: self.history_len,
            pruned_to: self.pruned_to,
            fates: self.fates.shared(),
            labels: Default::default(),
            pace: self.pace,
            snapshots: Default::default(),
            next_snapshot: self.next_snapshot,
            max_snapshots: self.max_snapshots,
            checkpoint_budget: self.checkpoint_budget,
            events: VecDeque::new(),
            quiet: self.quiet,
            dev: self.dev.clone(),
            names: self.names.clone(),
            initial_names: self.initial_names.clone(),
            hook: None,
            initial_hook: None,
            start: self.start.clone(),
            session: self.session.clone(),
            recording: self.recording,
            checkpoints: self.checkpoints.clone(),
            past: Default::default(),
            traces: Default::default(),
        })
    }
}
