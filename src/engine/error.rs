//! Named timer errors, with the spec's names (CIP-5 §4.2, CIP-1 v3 §6).

use serde::{Deserialize, Serialize};

/// Why a timer operation was rejected. Any of these reverts the calling transaction (CIP-5 §4.3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", content = "message")]
pub enum TimerError {
    /// A malformed argument: past height, oversized payload, bad fee payer, TTL out of range...
    #[error("InvalidInput: {0}")]
    InvalidInput(String),
    /// The caller does not own the timer, or is not a system deployer.
    #[error("Unauthorized: {0}")]
    Unauthorized(String),
    /// No live timer has this id.
    #[error("TimerNotFound: {0}")]
    TimerNotFound(String),
    /// The actor already holds `max_timers_per_actor` live timers (CIP-5 §4.2).
    #[error("TimerCapExceeded: {0}")]
    TimerCapExceeded(String),
}

impl TimerError {
    /// The bare error name (`InvalidInput`, `Unauthorized`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            TimerError::InvalidInput(_) => "InvalidInput",
            TimerError::Unauthorized(_) => "Unauthorized",
            TimerError::TimerNotFound(_) => "TimerNotFound",
            TimerError::TimerCapExceeded(_) => "TimerCapExceeded",
        }
    }
}
