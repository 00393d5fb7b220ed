//! The dashboard's `D` command (issue 22): a CIP-5 draft timer to register, as the node request
//! `timer_watch` / `timer_interval` send.

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
        }
    }
}
