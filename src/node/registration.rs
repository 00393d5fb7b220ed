//! What a timer registration answers (`timer_schedule`, and the drafts' `timer_watch` and
//! `timer_interval`): the timer it names, and whether it created it or a `client_nonce`
//! repeat returned the one bound before (CIP-5 drafts, English §6.2).

use super::core::NodeCore;
use crate::chain::Receipt;
use crate::engine::draft::NonceKey;
use crate::engine::{self, Address, TimerId};
use serde::Serialize;

/// The reply of a timer registration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scheduled {
    pub timer_id: TimerId,
    /// Whether the call created the timer; `false` for a `client_nonce` repeat that returned
    /// the timer it names (CIP-5 drafts, English §6.2).
    pub created: bool,
    pub tx_hash: engine::H256,
    pub receipt: Receipt,
    pub sealed: Option<u64>,
}

/// The timer `(actor, actor, client_nonce)` is bound to before the call (English §6.2), if a
/// nonce is given.
pub(super) fn nonce_bound(
    node: &NodeCore,
    actor: &Address,
    client_nonce: Option<u64>,
) -> Option<TimerId> {
    let key = NonceKey {
        owner: *actor,
        target: *actor,
        client_nonce: client_nonce?,
    };
    let chain = node.chain();
    chain
        .engine()
        .policies()
        .nonce_entry(&key, chain.pending_height())
        .map(|e| e.timer_id)
}

/// The timer a successful registration names and whether it created it: the bound timer of a
/// repeat, else the one its receipt lists.
pub(super) fn named_timer(receipt: &Receipt, bound: Option<TimerId>) -> (TimerId, bool) {
    match bound {
        Some(id) => (id, false),
        None => (
            *receipt
                .timers
                .first()
                .expect("a registration names its timer"),
            true,
        ),
    }
}
