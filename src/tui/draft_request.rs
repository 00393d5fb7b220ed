//! The dashboard's `D` command (issue 22): a CIP-5 draft timer to register, as the node request
//! `timer_watch` / `timer_interval` send.

use super::data::CommandError;
use crate::engine::Address;
use crate::node;

/// A state watch or an interval timer to register (`timer_watch` / `timer_interval`), sent by
/// the actor's deployer acting as the actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftRequest {
    pub actor: Address,
    /// An interval (`every`), else a state watch (`keys`).
    pub interval: bool,
    pub keys: Vec<String>,
    pub every: Option<u64>,
    pub first: Option<u64>,
    pub payload: Vec<u8>,
    pub gas_limit: Option<u64>,
    pub bid: Option<u128>,
    /// English §6.2: the idempotent set's `client_nonce` (`nonce=N`).
    pub client_nonce: Option<u64>,
}

impl DraftRequest {
    /// The estimate of the registration (`timer_estimateDraft`, Spec note 129).
    pub fn estimate(self) -> node::EstimateDraftTimer {
        node::EstimateDraftTimer(self.request())
    }

    /// The node request (`from: None`: the actor's deployer).
    pub fn request(self) -> node::DraftTimer {
        node::DraftTimer {
            actor: self.actor,
            from: None,
            interval: self.interval,
            args: crate::chain::DraftTimerArgs {
                keys: self.keys,
                every: self.every,
                first: self.first,
                payload: self.payload,
                fee_payer: None,
                gas_limit: self.gas_limit,
                expires_at: None,
                bid: self.bid,
                client_nonce: self.client_nonce,
            },
            label: None,
        }
    }
}

/// `timer_estimateDraft`'s answer as the `D` prompt shows it, whichever transport carried it:
/// `error` is what `timer_watch` / `timer_interval` would answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftEstimateView {
    pub est: node::DraftEstimate,
    pub error: Option<CommandError>,
}

impl DraftEstimateView {
    /// One line: first fire heights, score (whole bid units), rank, quotas, cost and funding.
    pub fn line(&self) -> String {
        if let Some(e) = &self.error {
            return format!("would fail: {e}");
        }
        let e = &self.est;
        let at = match (e.due_heights.as_slice(), e.first_block) {
            ([], Some(h)) => format!("a write from #{h} fires it"),
            ([], None) => String::new(),
            (hs, _) => format!(
                "fires at {}",
                hs.iter()
                    .map(|h| format!("#{h}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        };
        let quota = match e.fires_in_first_block {
            true => "within the quotas",
            false => "over the quotas: waits",
        };
        let funded = match &e.funding {
            Some(f) if f.funded => "funded".to_string(),
            Some(f) => format!("UNFUNDED ({} < {})", f.balance, f.needed),
            None => String::new(),
        };
        format!(
            "{at} · score {} · {} ahead ({} same target), {quota} · max cost {} {funded} · Enter registers",
            e.score >> 96,
            e.ahead,
            e.ahead_same_target,
            e.max_cost
        )
    }
}
