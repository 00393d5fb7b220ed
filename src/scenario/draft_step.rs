//! The CIP-5 drafts' fixture steps (`watch`, `interval`, `write`): their fields, checks,
//! transaction and sentence. One struct for the three, so that the step list stays one enum.

use super::amount::Amount;
use crate::chain::{DraftTimerArgs, TimerOp};
use crate::engine::timer::handler_payload;
use serde::Deserialize;

/// A `watch` (`set_state_watch`, English §6.1), an `interval` (`set_interval`, zh §7.1) or a
/// `write` (a transaction that writes one storage key of `actor`, which watches can see).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DraftStep {
    pub at: u64,
    pub actor: String,
    /// The sender (default: the actor's deployer).
    #[serde(default)]
    pub from: Option<String>,
    /// `watch`: the storage keys or prefixes of `actor` it watches.
    #[serde(default)]
    pub keys: Vec<String>,
    /// `interval`: `every_blocks`, and the first due height (absolute; default by the
    /// `interval_first` variant).
    #[serde(default)]
    pub every: Option<u64>,
    #[serde(default)]
    pub first: Option<u64>,
    /// `write`: the key and its new value (default `"1"`).
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub payload: Option<String>,
    #[serde(default)]
    pub handler: Option<String>,
    #[serde(default)]
    pub gas_limit: Option<u64>,
    /// `bid` in whole units (stored Q32.96, English §8.1).
    #[serde(default)]
    pub bid: Option<Amount>,
    /// English §6.2 / zh §7.2: the idempotent set's `client_nonce`.
    #[serde(default)]
    pub client_nonce: Option<u64>,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub expect_error: Option<String>,
}

impl DraftStep {
    /// The fields `action` needs: `keys` for a watch, `every` for an interval, `key` for a
    /// write. `Err((field, message))`.
    pub fn check(&self, action: &str) -> Result<(), (&'static str, String)> {
        match action {
            "watch" if self.keys.is_empty() => Err(("keys", "a watch names its keys".into())),
            "interval" if self.every.unwrap_or(0) == 0 => {
                Err(("every", "an interval needs `every` >= 1".into()))
            }
            "write" if self.key.is_none() => Err(("key", "a write names its `key`".into())),
            "write" if self.label.is_some() => Err(("label", "a write has no timer".into())),
            "write" if self.client_nonce.is_some() => {
                Err(("client_nonce", "a write has no timer".into()))
            }
            _ => Ok(()),
        }
    }

    /// The host call the step makes as its actor.
    pub fn op(&self, action: &str) -> TimerOp {
        if action == "write" {
            return TimerOp::WriteKey {
                key: self.key.clone().unwrap_or_default(),
                value: self.value.clone().unwrap_or_else(|| "1".into()),
            };
        }
        let raw = self.payload.clone().unwrap_or_default().into_bytes();
        let args = DraftTimerArgs {
            keys: self.keys.clone(),
            every: self.every,
            first: self.first,
            payload: match &self.handler {
                Some(h) => handler_payload(h, &raw),
                None => raw,
            },
            gas_limit: self.gas_limit,
            bid: self.bid.map(|b| b.0),
            client_nonce: self.client_nonce,
            ..Default::default()
        };
        match action {
            "watch" => TimerOp::SetStateWatch(args),
            _ => TimerOp::SetInterval(args),
        }
    }

    /// The step in words (the dashboard's story line).
    pub fn describe(&self, action: &str) -> String {
        let label = self
            .label
            .as_ref()
            .map_or(String::new(), |l| format!("`{l}` "));
        match action {
            "watch" => format!("{} watches {}{}", self.actor, label, self.keys.join(", ")),
            "interval" => format!(
                "{} sets interval {}every {} blocks",
                self.actor,
                label,
                self.every.unwrap_or(0)
            ),
            _ => format!(
                "{} writes {}",
                self.actor,
                self.key.as_deref().unwrap_or_default()
            ),
        }
    }
}
