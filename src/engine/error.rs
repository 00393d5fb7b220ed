//! Named errors, with the spec's names (CIP-5 §4.2, CIP-1 v3 §6): the [`ErrorKind`] every error
//! type of the crate reports, the [`Failure`] a receipt or a fire carries, and the timer errors.

use super::types::{HashEncode, HashEncoder, TimerId};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The name of an error: what receipts, fires, reports and fixtures (`expect_error`) key on.
///
/// Each kind has a fixed one-byte tag (its discriminant), which is what a block's body hash
/// commits to: tags are never reused or renumbered, new kinds take the next number.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
)]
#[borsh(use_discriminant = true)]
#[repr(u8)]
pub enum ErrorKind {
    /// A malformed argument or input.
    InvalidInput = 1,
    /// The caller may not do this.
    Unauthorized = 2,
    /// No live timer has this id (or a fixture label names no scheduled timer).
    TimerNotFound = 3,
    /// The actor already holds `max_timers_per_actor` live timers (CIP-5 §4.2).
    TimerCapExceeded = 4,
    InsufficientFunds = 5,
    UnknownActor = 6,
    ActorExists = 7,
    NonceMismatch = 8,
    /// The transaction's cycle limit does not fit in what is left of the block.
    BlockFull = 9,
    OutOfCycles = 10,
    OutOfCells = 11,
    /// A runtime error in a script (type error, sandbox limit, ...).
    ScriptError = 12,
    CompileError = 13,
    HandlerNotFound = 14,
    /// The script called `revert(reason)`.
    Reverted = 15,
    /// The node holds no snapshot of that id.
    UnknownSnapshot = 16,
    /// The devnet's node thread is gone (shut down or panicked): nothing was applied.
    NodeStopped = 17,
    /// CIP-1 v3 §6: `max_fee_per_cycle` below the lane basefee in force; nothing scheduled.
    TimerRejectedBelowBasefee = 18,
    /// CIP-1 v3 §6, §13.2: the legacy `bid` argument after its deprecation window.
    TimerArgDeprecated = 19,
    /// A query for a height older than the node keeps (`--history`, Spec note 73).
    HistoryPruned = 20,
}

impl ErrorKind {
    /// Every kind, in tag order.
    pub const ALL: [ErrorKind; 20] = [
        ErrorKind::InvalidInput,
        ErrorKind::Unauthorized,
        ErrorKind::TimerNotFound,
        ErrorKind::TimerCapExceeded,
        ErrorKind::InsufficientFunds,
        ErrorKind::UnknownActor,
        ErrorKind::ActorExists,
        ErrorKind::NonceMismatch,
        ErrorKind::BlockFull,
        ErrorKind::OutOfCycles,
        ErrorKind::OutOfCells,
        ErrorKind::ScriptError,
        ErrorKind::CompileError,
        ErrorKind::HandlerNotFound,
        ErrorKind::Reverted,
        ErrorKind::UnknownSnapshot,
        ErrorKind::NodeStopped,
        ErrorKind::TimerRejectedBelowBasefee,
        ErrorKind::TimerArgDeprecated,
        ErrorKind::HistoryPruned,
    ];

    /// The spec's name (`InvalidInput`, `OutOfCycles`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "InvalidInput",
            ErrorKind::Unauthorized => "Unauthorized",
            ErrorKind::TimerNotFound => "TimerNotFound",
            ErrorKind::TimerCapExceeded => "TimerCapExceeded",
            ErrorKind::InsufficientFunds => "InsufficientFunds",
            ErrorKind::UnknownActor => "UnknownActor",
            ErrorKind::ActorExists => "ActorExists",
            ErrorKind::NonceMismatch => "NonceMismatch",
            ErrorKind::BlockFull => "BlockFull",
            ErrorKind::OutOfCycles => "OutOfCycles",
            ErrorKind::OutOfCells => "OutOfCells",
            ErrorKind::ScriptError => "ScriptError",
            ErrorKind::CompileError => "CompileError",
            ErrorKind::HandlerNotFound => "HandlerNotFound",
            ErrorKind::Reverted => "Reverted",
            ErrorKind::UnknownSnapshot => "UnknownSnapshot",
            ErrorKind::NodeStopped => "NodeStopped",
            ErrorKind::TimerRejectedBelowBasefee => "TimerRejectedBelowBasefee",
            ErrorKind::TimerArgDeprecated => "TimerArgDeprecated",
            ErrorKind::HistoryPruned => "HistoryPruned",
        }
    }

    /// The fixed one-byte tag the body hash commits to.
    pub const fn tag(self) -> u8 {
        self as u8
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A name that is not an [`ErrorKind`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown error kind `{0}`")]
pub struct UnknownErrorKind(pub String);

impl FromStr for ErrorKind {
    type Err = UnknownErrorKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownErrorKind(s.to_string()))
    }
}

impl Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl HashEncode for ErrorKind {
    /// One byte: the kind's [`tag`](ErrorKind::tag).
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u8(self.tag());
    }
}

/// Why a transaction or a timer fire failed: its kind, and a message for people.
///
/// Serialized as `{"kind": "OutOfCycles", "message": "the 5000-cycle limit was reached"}`;
/// displayed as `OutOfCycles: the 5000-cycle limit was reached`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Failure {
            kind,
            message: message.into(),
        }
    }

    /// The failure of an error whose text (its `Display`) opens with its kind's name, as every
    /// error type of the crate does (`OutOfCycles: the ...`): the message is what follows the
    /// name. The kind comes from the error's type, never from its text.
    pub fn from_error(kind: ErrorKind, e: &dyn fmt::Display) -> Self {
        let text = e.to_string();
        let message = match text
            .strip_prefix(kind.as_str())
            .and_then(|m| m.strip_prefix(": "))
        {
            Some(m) => m.to_string(),
            None => text,
        };
        Failure { kind, message }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl HashEncode for Failure {
    /// The kind only: the message is for people, so rewording it (or a script engine upgrade
    /// that rewords its errors) leaves block hashes as they are.
    fn hash_encode(&self, e: &mut HashEncoder) {
        self.kind.hash_encode(e);
    }
}

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
    /// `max_fee_per_cycle` is below the lane basefee (CIP-1 v3 §6): nothing escrowed or changed.
    #[error("TimerRejectedBelowBasefee: {0}")]
    RejectedBelowBasefee(String),
    /// The legacy `bid` argument past its deprecation window (CIP-1 v3 §6, §13.2).
    #[error("TimerArgDeprecated: {0}")]
    ArgDeprecated(String),
}

impl TimerError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            TimerError::InvalidInput(_) => ErrorKind::InvalidInput,
            TimerError::Unauthorized(_) => ErrorKind::Unauthorized,
            TimerError::TimerNotFound(_) => ErrorKind::TimerNotFound,
            TimerError::TimerCapExceeded(_) => ErrorKind::TimerCapExceeded,
            TimerError::RejectedBelowBasefee(_) => ErrorKind::TimerRejectedBelowBasefee,
            TimerError::ArgDeprecated(_) => ErrorKind::TimerArgDeprecated,
        }
    }
}

impl From<&TimerError> for Failure {
    fn from(e: &TimerError) -> Self {
        Failure::from_error(e.kind(), e)
    }
}

/// Why a queue image ([`CalendarQueue::restore`](super::CalendarQueue::restore)) was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    #[error("{0}")]
    Config(TimerError),
    #[error("ring bucket {0} is outside the ring")]
    RingBucketOutside(u64),
    #[error("timer {0} listed twice")]
    ListedTwice(TimerId),
    #[error("epoch slot {0} out of range")]
    EpochSlotOutOfRange(u64),
    #[error("timer {timer} has seq {seq} ≥ next_seq")]
    SeqNotBelowNext { timer: TimerId, seq: u64 },
    #[error("timer {0} appears twice")]
    AppearsTwice(TimerId),
    #[error("timer {0} is below the overflow horizon")]
    BelowOverflowHorizon(TimerId),
    #[error("ring lists unknown timer {0}")]
    RingUnknownTimer(TimerId),
    #[error("epoch lists unknown timer {0}")]
    EpochUnknownTimer(TimerId),
    #[error("timer {timer} of height {height} is in the ring bucket of height {bucket}")]
    WrongRingBucket {
        timer: TimerId,
        height: u64,
        bucket: u64,
    },
    #[error(
        "ring bucket {bucket} is out of order at {timer} (its own timers in seq order, the carried ones in one run ahead of or behind them)"
    )]
    RingOutOfOrder { bucket: u64, timer: TimerId },
    #[error("timer {timer} of height {height} does not belong in epoch slot {slot}")]
    WrongEpochSlot {
        timer: TimerId,
        height: u64,
        slot: u64,
    },
    #[error("epoch slot {slot} is out of FIFO order at {timer}")]
    EpochOutOfOrder { slot: u64, timer: TimerId },
}

impl RestoreError {
    /// Every rejected image is bad input to a load.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}
