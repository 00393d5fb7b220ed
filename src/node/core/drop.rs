//! `devnet_dropTransaction` (issue 32; anvil's `anvil_dropTransaction`): a pending transaction
//! leaves the open block, which is rebuilt from the sealed head's state (replayed from a
//! checkpoint, as `devnet_revertTo` does) with what was applied to it since, in order, but that
//! transaction. A later one that no longer applies without it (a nonce it followed, funds it
//! brought) is dropped too.

use super::NodeCore;
use crate::chain::Transaction;
use crate::engine::H256;
use crate::node::error::NodeError;
use crate::node::session::Entry;

impl NodeCore {
    /// Drops the pending transaction `hash` (the newest of that hash); the hashes dropped, it
    /// first. An unknown or sealed hash, or an open block the session log does not hold whole
    /// (recording off), is refused and changes nothing.
    pub(crate) fn drop_pending(&mut self, hash: H256) -> Result<Vec<H256>, NodeError> {
        if !self.chain.open_receipts().iter().any(|r| r.tx_hash == hash) {
            return Err(NodeError::NotPending {
                hash,
                sealed: self.tx_by_hash(&hash).map(|r| r.height),
            });
        }
        let tail = self.open_tail();
        let txs = tail
            .iter()
            .filter(|e| matches!(e, Entry::Tx { .. }))
            .count();
        if !self.recording || txs != self.chain.open_receipts().len() {
            return Err(NodeError::InvalidInput(
                "the session log does not hold the open block (recording is off): it cannot be rebuilt".into(),
            ));
        }
        let skip = tail
            .iter()
            .rposition(|e| matches!(e, Entry::Tx { tx, .. } if tx.hash() == hash))
            .expect("a pending transaction is in the open block's entries");
        let head = self.chain.height();
        let (chain, session) = self.replay_head()?;
        // From here nothing is refused: what does not apply any more is what is dropped.
        self.drop_past_states();
        self.chain = chain;
        self.set_live_chain_notes();
        self.session = session;
        self.pending_txs = 0;
        self.fates = std::mem::take(&mut self.fates).back_to(head);
        let mut dropped = vec![hash];
        for (i, e) in tail.into_iter().enumerate() {
            if i != skip {
                self.reapply(e, &mut dropped);
            }
        }
        Ok(dropped)
    }

    /// The entries applied to the open block, oldest first: the log's tail after the last
    /// seal (or outage).
    fn open_tail(&self) -> Vec<Entry> {
        let (mut at, _) = self.session.position();
        let mut out = Vec::new();
        while let Some(l) = at {
            if l.ends_block() {
                break;
            }
            out.push(l.entry());
            at = l.prev.clone();
        }
        out.reverse();
        out
    }

    /// One entry of the open block applied again (and logged again); a transaction that no
    /// longer applies is added to `dropped`.
    fn reapply(&mut self, e: Entry, dropped: &mut Vec<H256>) {
        match e {
            Entry::Tx { tx, .. } => {
                let hash = tx.hash();
                if self.send(Transaction::clone(&tx)).is_err() {
                    dropped.push(hash);
                }
            }
            Entry::SetBalance {
                address, balance, ..
            } => {
                if self.chain.try_set_balance(&address, balance).is_ok() {
                    self.record(e);
                }
            }
            Entry::Activation { from, height, .. } => {
                if self.chain.set_activation_height_from(&from, height).is_ok() {
                    self.record(e);
                }
            }
            Entry::Named { .. } | Entry::Labelled { .. } => self.record(e),
            Entry::Sealed { .. } | Entry::Halt { .. } => {}
        }
    }
}
