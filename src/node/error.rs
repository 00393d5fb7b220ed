//! Why the node refused a request. A refused request changed nothing.

use crate::chain::{LoadError, Receipt, TxError};
use crate::engine::TimerError;

/// A request the node refused; nothing changed (a [`NodeError::Reverted`] transaction is the
/// one exception a chain has: it was included, so its nonce and fee are spent, as on any chain).
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// The transaction was rejected before inclusion.
    #[error(transparent)]
    Tx(#[from] TxError),
    /// The transaction was included and failed: its effects were discarded, its fee paid.
    #[error("{message}")]
    Reverted {
        /// The spec's error name (`Unauthorized`, `TimerNotFound`, ...).
        name: String,
        message: String,
        receipt: Box<Receipt>,
    },
    #[error("UnknownSnapshot: no snapshot {0} (it was never taken, deleted or dropped)")]
    UnknownSnapshot(u64),
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A timer rule (CIP-5 §4.2) or a config check refused it.
    #[error(transparent)]
    Timer(#[from] TimerError),
    /// Refused before anything was sent, under the named rule.
    #[error("{message}")]
    Refused { name: String, message: String },
    #[error("InvalidInput: {0}")]
    InvalidInput(String),
    #[error("TimerNotFound: {0}")]
    TimerNotFound(String),
    #[error("UnknownActor: {0}")]
    UnknownActor(String),
    /// The node's thread is gone (shut down or panicked).
    #[error("NodeStopped: the node is not running")]
    NodeStopped,
}

impl NodeError {
    /// The spec's name of the error (`InvalidInput`, `Unauthorized`, `TimerNotFound`, ...).
    pub fn name(&self) -> &str {
        match self {
            NodeError::Tx(e) => e.name(),
            NodeError::Reverted { name, .. } => name,
            NodeError::UnknownSnapshot(_) => "UnknownSnapshot",
            NodeError::Load(_) | NodeError::InvalidInput(_) => "InvalidInput",
            NodeError::Timer(e) => e.name(),
            NodeError::Refused { name, .. } => name,
            NodeError::TimerNotFound(_) => "TimerNotFound",
            NodeError::UnknownActor(_) => "UnknownActor",
            NodeError::NodeStopped => "NodeStopped",
        }
    }

    /// A failed receipt as an error (its name is the message's leading word).
    pub(crate) fn reverted(receipt: Receipt) -> NodeError {
        let message = receipt.error.clone().unwrap_or_default();
        let name = error_name(&message).to_string();
        NodeError::Reverted {
            name,
            message,
            receipt: Box::new(receipt),
        }
    }
}

/// The leading error name of an error message (`Unauthorized: ...` -> `Unauthorized`): how a
/// failed receipt's error (a message) is named until receipts carry a typed error.
pub fn error_name(msg: &str) -> &str {
    msg.split(':').next().unwrap_or(msg).trim()
}
