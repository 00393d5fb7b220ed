//! Snapshots: keep the node's state under an id, go back to one, drop one (moved out of
//! `core.rs`).

use super::{HookSnap, NodeCore, NodeEvent, Snap};
use crate::node::NodeError;

impl NodeCore {
    pub(crate) fn take_snapshot(&mut self) -> u64 {
        let id = self.next_snapshot;
        self.next_snapshot += 1;
        self.snapshots.insert(
            id,
            Snap {
                chain: self.chain.clone(),
                history: self.history.clone(),
                names: self.names.clone(),
                hook: self.hook.as_deref().and_then(HookSnap::of),
                session: self.session.clone(),
                checkpoints: self.checkpoints.clone(),
                pruned_to: self.pruned_to,
                fates: self.fates.shared(),
            },
        );
        let height = self.height();
        self.events
            .push_back(NodeEvent::SnapshotTaken { id, height });
        while self.snapshots.len() > self.max_snapshots {
            if let Some((old, _)) = self.snapshots.pop_first() {
                self.events
                    .push_back(NodeEvent::SnapshotDropped { id: old });
            }
        }
        id
    }

    pub(crate) fn revert(&mut self, id: u64) -> Result<(), NodeError> {
        let s = self
            .snapshots
            .get(&id)
            .ok_or(NodeError::UnknownSnapshot(id))?;
        self.past.clear();
        self.chain = s.chain.clone();
        self.history = s.history.clone();
        self.names = s.names.clone();
        self.session = s.session.clone();
        self.checkpoints = s.checkpoints.clone();
        self.pruned_to = s.pruned_to;
        self.fates = s.fates.shared().reindexed();
        if let Some(h) = &s.hook {
            self.hook = Some(h.restore());
        }
        self.set_live_chain_notes();
        self.pending_txs = 0;
        self.quiet = 0;
        let height = self.height();
        self.events
            .push_back(NodeEvent::SnapshotReverted { id, height });
        Ok(())
    }

    pub(crate) fn delete_snapshot(&mut self, id: u64) -> Result<(), NodeError> {
        self.snapshots
            .remove(&id)
            .ok_or(NodeError::UnknownSnapshot(id))?;
        self.events.push_back(NodeEvent::SnapshotDeleted { id });
        Ok(())
    }
}
