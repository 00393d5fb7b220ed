//! The drafts' state as its query shows it (`scheduler_draft`, the dashboard's drafts pane):
//! [`DraftView`], built by [`DraftState::view`] (issue 29: the policy's facts as typed data,
//! made where its state is).

use super::{DraftKind, DraftParams, DraftState, GlobalFire, Hit, MailboxEntry, NonceView};
use crate::engine::scheduler::kind::SchedulerKind;
use crate::engine::types::{Address, TimerId};
use serde::{Deserialize, Serialize};

/// A state watch as the drafts' query shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchView {
    pub timer_id: TimerId,
    pub target: Address,
    /// Its keys or prefixes (UTF-8, lossy).
    pub keys: Vec<String>,
    pub fire_seq: u32,
    /// Its undelivered hit, if any.
    pub hit: Option<Hit>,
    /// The `client_nonce` it was registered with (English §6.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_nonce: Option<u64>,
}

/// The CIP-5 drafts' state (`scheduler_draft`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "SchedulerDraft")]
pub struct DraftView {
    pub scheduler: SchedulerKind,
    pub params: DraftParams,
    /// The Globalbox (cip5-draft), head first: its frozen order.
    pub globalbox: Vec<GlobalFire>,
    /// The last block's Mailbox, in execution (`deliver_seq`) order.
    pub mailbox: Vec<MailboxEntry>,
    /// Candidates left by the quotas in the last block.
    pub quota_skips: u64,
    pub watches: Vec<WatchView>,
    pub next_deliver_seq: u64,
    /// The idempotent set's bindings (English §6.2): `(owner, target, client_nonce)` → timer,
    /// live or retired (kept until `until`).
    #[serde(default)]
    pub client_nonces: Vec<NonceView>,
}

impl DraftState {
    /// The state as the drafts' query shows it, under `scheduler` (the one planning next).
    pub fn view(&self, scheduler: SchedulerKind) -> DraftView {
        let watches = self
            .watches
            .iter()
            .map(|(id, t)| {
                let m = self.meta.get(id);
                let keys = match m.map(|m| &m.kind) {
                    Some(DraftKind::Watch { keys }) => keys
                        .iter()
                        .map(|k| String::from_utf8_lossy(k).into_owned())
                        .collect(),
                    _ => Vec::new(),
                };
                WatchView {
                    timer_id: *id,
                    target: t.actor_address,
                    keys,
                    fire_seq: m.map_or(0, |m| m.fire_seq),
                    hit: self.hits.get(id).cloned(),
                    client_nonce: self.client_nonce_of(id),
                }
            })
            .collect();
        DraftView {
            scheduler,
            params: self.params,
            globalbox: self.globalbox.clone(),
            mailbox: self.mailbox.clone(),
            quota_skips: self.last_skipped,
            watches,
            next_deliver_seq: self.next_deliver_seq,
            client_nonces: self.nonce_views(),
        }
    }
}
