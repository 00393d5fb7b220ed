//! Why the node refused a request. A refused request changed nothing.

use crate::chain::{BlockOpen, LoadError, Receipt, TxError};
use crate::engine::{ErrorKind, Failure, TimerError};

/// A request the node refused; nothing changed (a [`NodeError::Reverted`] transaction is the
/// one exception a chain has: it was included, so its nonce and fee are spent, as on any chain).
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// The transaction was rejected before inclusion.
    #[error(transparent)]
    Tx(#[from] TxError),
    /// The transaction was included and failed: its effects were discarded, its fee paid.
    #[error("{failure}")]
    Reverted {
        failure: Failure,
        receipt: Box<Receipt>,
    },
    #[error("UnknownSnapshot: no snapshot {0} (it was never taken, deleted or dropped)")]
    UnknownSnapshot(u64),
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A dump asked for while a block is open.
    #[error(transparent)]
    BlockOpen(#[from] BlockOpen),
    /// A timer rule (CIP-5 §4.2) or a config check refused it.
    #[error(transparent)]
    Timer(#[from] TimerError),
    /// Refused before anything was sent, under the named rule.
    #[error("{0}")]
    Refused(Failure),
    #[error("InvalidInput: {0}")]
    InvalidInput(String),
    /// `devnet_dropTransaction` of a hash the open block does not hold: unknown, or sealed
    /// already (in block `sealed`). Its JSON-RPC reason is `TransactionNotFound`.
    #[error("{}", not_pending(hash, sealed))]
    NotPending {
        hash: crate::engine::H256,
        sealed: Option<u64>,
    },
    #[error("TimerNotFound: {0}")]
    TimerNotFound(String),
    #[error("UnknownActor: {0}")]
    UnknownActor(String),
    /// Spec note 73: a query for heights the node no longer keeps.
    #[error(
        "HistoryPruned: blocks before #{first_kept} are pruned; this node keeps the last {keep} (--history)"
    )]
    HistoryPruned { first_kept: u64, keep: usize },
    /// Spec note 225: a state read (a `block` param, a revert, a rebuilt trace) of a height
    /// whose block the history keeps but whose state it no longer can rebuild: the
    /// checkpoint it replayed from went with the checkpoints' budget. `first`: the oldest
    /// height such a read answers.
    #[error(
        "StateNotKept: the state at #{height} is no longer kept (its block is): past states start at #{first}; raise serve --checkpoint-budget (now {budget_mib} MiB) to keep older ones"
    )]
    StateNotKept {
        height: u64,
        first: u64,
        budget_mib: usize,
    },
    /// The node's thread is gone (shut down or panicked).
    #[error("NodeStopped: the node is not running")]
    NodeStopped,
}

impl NodeError {
    /// The spec's name of the error (`InvalidInput`, `Unauthorized`, `TimerNotFound`, ...).
    pub fn kind(&self) -> ErrorKind {
        match self {
            NodeError::Tx(e) => e.kind(),
            NodeError::Reverted { failure, .. } | NodeError::Refused(failure) => failure.kind,
            NodeError::UnknownSnapshot(_) => ErrorKind::UnknownSnapshot,
            NodeError::Load(e) => e.kind(),
            NodeError::BlockOpen(_) | NodeError::InvalidInput(_) | NodeError::NotPending { .. } => {
                ErrorKind::InvalidInput
            }
            NodeError::Timer(e) => e.kind(),
            NodeError::TimerNotFound(_) => ErrorKind::TimerNotFound,
            NodeError::UnknownActor(_) => ErrorKind::UnknownActor,
            NodeError::NodeStopped => ErrorKind::NodeStopped,
            // Its reason is `StateNotKept` ([`reason`](Self::reason)); its kind the nearest
            // the engine has.
            NodeError::HistoryPruned { .. } | NodeError::StateNotKept { .. } => {
                ErrorKind::HistoryPruned
            }
        }
    }

    /// The error's name as the API reports it (`data.reason`): its kind's, but for the names
    /// the engine has no kind for (`TransactionNotFound`).
    pub fn reason(&self) -> &'static str {
        match self {
            NodeError::NotPending { .. } => super::pool::TX_NOT_FOUND,
            NodeError::StateNotKept { .. } => STATE_NOT_KEPT,
            e => e.kind().as_str(),
        }
    }

    /// The error as a typed failure: its kind and the message after the kind's name.
    pub fn failure(&self) -> Failure {
        match self {
            NodeError::Reverted { failure, .. } | NodeError::Refused(failure) => failure.clone(),
            e => Failure::from_error(e.kind(), e),
        }
    }

    /// A failed receipt as an error.
    pub(crate) fn reverted(receipt: Receipt) -> NodeError {
        let failure = receipt
            .error
            .clone()
            .unwrap_or_else(|| Failure::new(ErrorKind::Reverted, "the transaction failed"));
        NodeError::Reverted {
            failure,
            receipt: Box::new(receipt),
        }
    }
}

/// The reason of [`NodeError::StateNotKept`] (no engine kind of its own).
pub const STATE_NOT_KEPT: &str = "StateNotKept";

/// A `NotPending` error's text.
fn not_pending(hash: &crate::engine::H256, sealed: &Option<u64>) -> String {
    match sealed {
        Some(h) => format!(
            "TransactionNotFound: {hash} is sealed in block #{h}; only a pending transaction (in the open block) can be dropped"
        ),
        None => format!("TransactionNotFound: no pending transaction {hash} in the open block"),
    }
}
