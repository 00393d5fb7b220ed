//! The typed reply of every [`Command`](super::Command) (issue 29, "one command vocabulary"):
//! what `NodeCore::execute` answers in process and what the JSON-RPC method writes as its
//! result (the reply serialised, untagged), so a front end attached over JSON-RPC decodes the
//! result into the same type ([`ReplyKind::decode`]) instead of reading fields.

use super::core::MiningMode;
use super::draft_estimate::DraftEstimate;
use super::drop::Dropped;
use super::requests::Estimate;
use crate::chain::{ChainDump, Receipt};
use crate::engine::{Address, H256, TimerId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A command's reply. Serialised untagged: each variant is written as its method's result.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum CommandReply {
    /// `null`: the command has nothing to say (set balance, revert, halt, ...).
    Done,
    /// The new head's height (`devnet_mine`).
    Height(u64),
    /// A snapshot's id (`devnet_snapshot`).
    SnapshotId(u64),
    /// The mining mode now in force, as the API writes it (`{mode, block_time?}`).
    Mining(#[serde(with = "super::views::mining_wire")] MiningMode),
    /// The state as a dump (`devnet_dumpState`).
    Dump(Box<ChainDump>),
    /// A deployed actor's address (`actor_deploy`).
    Address(Address),
    /// An included transaction's receipt.
    Receipt(ReceiptReply),
    /// A timer registration (`timer_schedule`, `timer_watch`, `timer_interval`).
    Scheduled(ScheduledReply),
    /// What a schedule would do (`timer_estimate`).
    Estimate(Box<Estimate>),
    /// What a draft registration would do (`timer_estimateDraft`).
    DraftEstimate(Box<DraftEstimate>),
    /// The activation height in force (`gov_setActivationHeight`).
    Activation(ActivationReply),
    /// The transactions a drop removed (`devnet_dropTransaction`).
    Dropped(Dropped),
}

/// Which [`CommandReply`] variant a command answers: how its serialised form decodes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyKind {
    Done,
    Height,
    SnapshotId,
    Mining,
    Dump,
    Address,
    Receipt,
    Scheduled,
    Estimate,
    DraftEstimate,
    Activation,
    Dropped,
}

impl ReplyKind {
    /// A method's result decoded into its typed reply.
    pub fn decode(self, v: serde_json::Value) -> Result<CommandReply, serde_json::Error> {
        use serde_json::from_value as de;
        Ok(match self {
            ReplyKind::Done => CommandReply::Done,
            ReplyKind::Height => CommandReply::Height(de(v)?),
            ReplyKind::SnapshotId => CommandReply::SnapshotId(de(v)?),
            ReplyKind::Mining => CommandReply::Mining(super::views::mining_wire::deserialize(v)?),
            ReplyKind::Dump => CommandReply::Dump(de(v)?),
            ReplyKind::Address => CommandReply::Address(de(v)?),
            ReplyKind::Receipt => CommandReply::Receipt(de(v)?),
            ReplyKind::Scheduled => CommandReply::Scheduled(de(v)?),
            ReplyKind::Estimate => CommandReply::Estimate(de(v)?),
            ReplyKind::DraftEstimate => CommandReply::DraftEstimate(de(v)?),
            ReplyKind::Activation => CommandReply::Activation(de(v)?),
            ReplyKind::Dropped => CommandReply::Dropped(de(v)?),
        })
    }
}

/// Whether a receipt's transaction succeeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptStatus {
    Success,
    Reverted,
}

/// A receipt as the API shows it: every field of the chain's receipt, its status and the
/// height of its block (`sealed: false` while the block is open under manual or interval
/// mining).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(rename = "Receipt")]
pub struct ReceiptReply {
    #[serde(flatten)]
    pub receipt: Receipt,
    pub status: ReceiptStatus,
    pub height: u64,
    pub sealed: bool,
}

impl ReceiptReply {
    /// `receipt`, included at `sealed` (the block it was sealed in) or else in the open block
    /// at `pending`.
    pub fn new(receipt: Receipt, sealed: Option<u64>, pending: u64) -> Self {
        let status = if receipt.success {
            ReceiptStatus::Success
        } else {
            ReceiptStatus::Reverted
        };
        ReceiptReply {
            receipt,
            status,
            height: sealed.unwrap_or(pending),
            sealed: sealed.is_some(),
        }
    }
}

/// Written with `error` and `timers` always present (`null`, `[]`), as the API always did.
impl Serialize for ReceiptReply {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let mut v = serde_json::to_value(&self.receipt).map_err(S::Error::custom)?;
        let o = v
            .as_object_mut()
            .ok_or_else(|| S::Error::custom("a receipt is an object"))?;
        let status = serde_json::to_value(self.status).map_err(S::Error::custom)?;
        o.insert("status".into(), status);
        o.insert("height".into(), self.height.into());
        o.insert("sealed".into(), self.sealed.into());
        o.entry("error").or_insert(serde_json::Value::Null);
        o.entry("timers").or_insert(serde_json::json!([]));
        v.serialize(s)
    }
}

/// A registration's result (`timer_schedule`, `timer_watch`, `timer_interval`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScheduledReply {
    pub timer_id: TimerId,
    /// false for a `client_nonce` repeat that returned the timer it names (CIP-5 drafts,
    /// English §6.2)
    pub created: bool,
    pub tx_hash: H256,
    pub receipt: ReceiptReply,
}

/// `gov_setActivationHeight`'s result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ActivationReply {
    pub activation_height: Option<u64>,
}

/// An estimate's `error` written as the refused call would answer it: `{code, reason,
/// message}` (`message` is the failure's text, `Kind: ...`), read back into the failure.
pub mod api_failure {
    use crate::engine::{ErrorKind, Failure};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    // The written form; its schema is the estimates' `error` in `rpc.discover`.
    /// Why the call would be refused, as the refused call answers it.
    #[derive(Serialize, Deserialize, schemars::JsonSchema)]
    pub struct ApiFailure {
        /// The JSON-RPC error code the refused call answers.
        code: i32,
        /// The named error.
        reason: ErrorKind,
        /// The failure's text, `Reason: ...`.
        message: String,
    }

    pub fn serialize<S: Serializer>(f: &Option<Failure>, s: S) -> Result<S::Ok, S::Error> {
        f.as_ref()
            .map(|f| ApiFailure {
                code: super::super::codes::code_of(f.kind.as_str()),
                reason: f.kind,
                message: f.to_string(),
            })
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Failure>, D::Error> {
        let Some(w) = Option::<ApiFailure>::deserialize(d)? else {
            return Ok(None);
        };
        let message = w
            .message
            .strip_prefix(w.reason.as_str())
            .and_then(|m| m.strip_prefix(": "))
            .unwrap_or(&w.message);
        Ok(Some(Failure::new(w.reason, message)))
    }
}
