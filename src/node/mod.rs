//! The live devnet (DESIGN.md, `node/`): one owner of the [`Chain`], driven by typed
//! [`Command`]s. A key press, an RPC call and a fixture step all become the same command.
//!
//! Commands run synchronously, one at a time (the headless runner drives them); a front end
//! (dashboard, RPC) holds a [`Devnet`] inside one task with a command channel and an event
//! broadcast.

use crate::chain::runtime::ActorRuntime;
use crate::chain::{
    BlockOpen, Chain, ChainDump, Genesis, LoadError, Receipt, Transaction, TxError,
};
use crate::engine::{Address, ErrorKind, Failure, TimerError};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Everything that can be asked of the devnet.
#[derive(Clone, Debug)]
pub enum Command {
    /// Apply a transaction to the open block.
    SendTx(Transaction),
    /// Seal `blocks` blocks (the first one holds the pending transactions).
    Mine { blocks: u64 },
    /// Simulate an outage: the next block comes `blocks` heights later (CIP-5 §8).
    Halt { blocks: u64 },
    /// Set a balance (minting or unminting the difference).
    SetBalance { address: Address, balance: u128 },
    /// Keep a copy of the whole state; returns its id.
    Snapshot,
    /// Go back to a snapshot (which stays available).
    Revert { id: u64 },
    /// Serialize the state as last committed (refused while a block is open: mine it first;
    /// see [`Chain::dump`]). Changes nothing.
    Dump,
    /// Replace the state with a dump.
    Load(Box<ChainDump>),
}

/// What a command produced.
#[derive(Debug)]
pub enum Outcome {
    Receipt(Box<Receipt>),
    /// Heights of the sealed blocks.
    Mined(Vec<u64>),
    Snapshot(u64),
    Dump(Box<ChainDump>),
    Done,
}

/// A command failed; nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error(transparent)]
    Tx(#[from] TxError),
    #[error("UnknownSnapshot: no snapshot {0}")]
    UnknownSnapshot(u64),
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Genesis(#[from] TimerError),
    /// A dump asked for while a block is open.
    #[error(transparent)]
    BlockOpen(#[from] BlockOpen),
    #[error("InvalidInput: {0}")]
    InvalidInput(String),
}

impl NodeError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            NodeError::Tx(e) => e.kind(),
            NodeError::UnknownSnapshot(_) => ErrorKind::UnknownSnapshot,
            NodeError::Load(e) => e.kind(),
            NodeError::InvalidInput(_) | NodeError::BlockOpen(_) => ErrorKind::InvalidInput,
            NodeError::Genesis(e) => e.kind(),
        }
    }
}

impl From<&NodeError> for Failure {
    fn from(e: &NodeError) -> Self {
        Failure::from_error(e.kind(), e)
    }
}

/// Upper bound on blocks one `Mine` command may seal (a guard against runaway requests).
pub const MAX_MINE_PER_COMMAND: u64 = 1_000_000;

/// The devnet: a chain plus snapshots.
pub struct Devnet {
    chain: Chain,
    snapshots: BTreeMap<u64, Chain>,
    next_snapshot: u64,
}

impl Devnet {
    pub fn new(genesis: Genesis, runtime: Arc<dyn ActorRuntime>) -> Result<Self, NodeError> {
        Ok(Devnet {
            chain: Chain::new(genesis, runtime)?,
            snapshots: BTreeMap::new(),
            next_snapshot: 1,
        })
    }

    pub fn chain(&self) -> &Chain {
        &self.chain
    }

    pub fn chain_mut(&mut self) -> &mut Chain {
        &mut self.chain
    }

    /// Applies one command.
    pub fn execute(&mut self, cmd: Command) -> Result<Outcome, NodeError> {
        match cmd {
            Command::SendTx(tx) => Ok(Outcome::Receipt(Box::new(self.chain.apply_tx(tx)?))),
            Command::Mine { blocks } => {
                if blocks == 0 || blocks > MAX_MINE_PER_COMMAND {
                    return Err(NodeError::InvalidInput(format!(
                        "blocks must be in 1..={MAX_MINE_PER_COMMAND}, got {blocks}"
                    )));
                }
                let mut heights = Vec::with_capacity(blocks as usize);
                for _ in 0..blocks {
                    heights.push(self.chain.seal_block().header.height);
                }
                Ok(Outcome::Mined(heights))
            }
            Command::Halt { blocks } => {
                if blocks > MAX_MINE_PER_COMMAND {
                    return Err(NodeError::InvalidInput(format!(
                        "an outage may skip at most {MAX_MINE_PER_COMMAND} heights, got {blocks}"
                    )));
                }
                // The resume height must be a height: checked, never wrapped.
                if self.chain.pending_height().checked_add(blocks).is_none() {
                    return Err(NodeError::InvalidInput(format!(
                        "an outage of {blocks} heights after height {} passes u64::MAX",
                        self.chain.height()
                    )));
                }
                self.chain.halt(blocks);
                Ok(Outcome::Done)
            }
            Command::SetBalance { address, balance } => {
                self.chain.try_set_balance(&address, balance)?;
                Ok(Outcome::Done)
            }
            Command::Snapshot => {
                let id = self.next_snapshot;
                self.next_snapshot += 1;
                self.snapshots.insert(id, self.chain.clone());
                Ok(Outcome::Snapshot(id))
            }
            Command::Revert { id } => {
                let snap = self
                    .snapshots
                    .get(&id)
                    .ok_or(NodeError::UnknownSnapshot(id))?;
                self.chain = snap.clone();
                Ok(Outcome::Done)
            }
            Command::Dump => Ok(Outcome::Dump(Box::new(self.chain.dump()?))),
            Command::Load(d) => {
                let rt = self.chain.runtime().clone();
                self.chain = Chain::load(*d, rt)?;
                Ok(Outcome::Done)
            }
        }
    }
}
