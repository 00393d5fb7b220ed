//! The drafts' idempotent set (English §6.2, zh §7.2 幂等设置): `(owner, target, client_nonce)`
//! mapped to a stable `timer_id`, and the update a repeat makes (Spec notes 122-124).
//!
//! - The first registration under a key creates the timer and binds the key to it; a repeat
//!   returns the same `timer_id` and, while the timer lives, updates its `payload`,
//!   `gas_limit` and `bid` (English §6.2 "update semantics"): the future fires carry them; a
//!   fire already queued in the Globalbox keeps its frozen position (English §5.3); under
//!   `cip5-draft-zh` the update raises `fifo_rank` (zh §7.2), unless the variant
//!   `update_fifo_rank = keep` (the English reading).
//! - The binding outlives its timer until the height passes the `expires_at` the timer was
//!   registered with (English §5.1 `expiry_height`, §14 "Timer GC / TTL"): a late retry of a
//!   registration whose timer already fired or was cancelled returns its id and schedules
//!   nothing. Past that height the key is free again (a repeat creates a new timer).
//! - Memory follows the work done: a binding is live with its timer, and a retired binding is
//!   dropped by the next registration with a `client_nonce` once its height passed (each one
//!   once, oldest first), so there is no sweep at the end of blocks.
//!
//! The bindings are consensus state: committed in the drafts' part of the state root (only
//! when there is one, so every earlier root stays), in dumps and snapshots.

use super::{DraftKind, DraftState};
use crate::engine::types::{Address, HashEncoder, TimerId};
use serde::{Deserialize, Serialize};

/// `(owner, target, client_nonce)` (English §6.2). Under the devnet the owner is the
/// registering actor and the target the actor fired, the same address (Spec note 115).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub struct NonceKey {
    pub owner: Address,
    pub target: Address,
    pub client_nonce: u64,
}

/// What a key is bound to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NonceEntry {
    pub timer_id: TimerId,
    /// The kind registered: a repeat must name the same kind, keys or interval.
    #[serde(flatten)]
    pub kind: DraftKind,
    /// After the timer left, the binding is kept while the height is at most `until` (the
    /// timer's `expires_at` at registration).
    pub until: u64,
    /// Whether the timer left (fired for good, cancelled, expired, unfunded).
    pub left: bool,
}

/// A new registration's binding (in [`super::DraftReg`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, schemars::JsonSchema)]
pub struct NonceBind {
    pub key: NonceKey,
    /// The timer's `expires_at`.
    pub until: u64,
    /// The registering height (retired bindings below it are dropped).
    pub height: u64,
}

/// A repeat's update of a live timer (English §6.2), from the transaction phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftUpdate {
    pub timer_id: TimerId,
    pub payload: Box<[u8]>,
    pub gas_limit: u64,
    pub bid_fp: u128,
    /// zh §7.2: the update raises `fifo_rank` (to the next registration rank).
    pub raise_rank: bool,
}

/// A binding as the drafts' query shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NonceView {
    #[serde(flatten)]
    pub key: NonceKey,
    pub timer_id: TimerId,
    pub kind: String,
    pub until: u64,
    pub left: bool,
}

impl DraftState {
    /// The binding of `key` as seen at `height`: `None` if there is none, or if its timer left
    /// and `height` is past its `until`.
    pub fn nonce_entry(&self, key: &NonceKey, height: u64) -> Option<&NonceEntry> {
        self.nonces
            .get(key)
            .filter(|e| !(e.left && height > e.until))
    }

    /// The `client_nonce` a live draft timer was registered with, if any.
    pub fn client_nonce_of(&self, id: &TimerId) -> Option<u64> {
        self.nonce_of.get(id).map(|k| k.client_nonce)
    }

    /// The body of an interval timer fired in this block and waiting to re-arm.
    pub fn rearming(&self, id: &TimerId) -> Option<&crate::engine::timer::Timer> {
        self.rearm.iter().find(|t| t.timer_id == *id)
    }

    /// The `client_nonce` of a draft timer, live or left, while its binding is kept.
    pub fn client_nonce_for(&self, id: &TimerId) -> Option<u64> {
        self.client_nonce_of(id).or_else(|| {
            self.nonces
                .iter()
                .find(|(_, e)| e.timer_id == *id)
                .map(|(k, _)| k.client_nonce)
        })
    }

    /// Every binding, in key order.
    pub fn nonce_views(&self) -> Vec<NonceView> {
        self.nonces
            .iter()
            .map(|(k, e)| NonceView {
                key: *k,
                timer_id: e.timer_id,
                kind: e.kind.as_str().to_string(),
                until: e.until,
                left: e.left,
            })
            .collect()
    }

    /// Binds a new registration's key (dropping the retired bindings whose height passed).
    pub(super) fn bind_nonce(&mut self, id: TimerId, kind: &DraftKind, b: NonceBind) {
        self.prune_nonces(b.height);
        if let Some(old) = self.nonces.get(&b.key)
            && old.left
        {
            self.retired.remove(&(old.until, b.key));
        }
        self.nonces.insert(
            b.key,
            NonceEntry {
                timer_id: id,
                kind: kind.clone(),
                until: b.until,
                left: false,
            },
        );
        self.nonce_of.insert(id, b.key);
    }

    /// The timer `id` left: its binding (if any) is retired, kept until its `until`.
    pub(super) fn retire_nonce(&mut self, id: &TimerId) {
        let Some(key) = self.nonce_of.remove(id) else {
            return;
        };
        if let Some(e) = self.nonces.get_mut(&key) {
            e.left = true;
            self.retired.insert((e.until, key));
        }
    }

    /// Drops the retired bindings whose `until` is below `height`, oldest first.
    fn prune_nonces(&mut self, height: u64) {
        while let Some(&(until, key)) = self.retired.first() {
            if until >= height {
                break;
            }
            self.retired.pop_first();
            if self
                .nonces
                .get(&key)
                .is_some_and(|e| e.left && e.until == until)
            {
                self.nonces.remove(&key);
            }
        }
    }

    /// Rebuilds the derived indexes of the bindings after a load.
    pub(super) fn reindex_nonces(&mut self) {
        self.nonce_of.clear();
        self.retired.clear();
        for (k, e) in &self.nonces {
            if e.left {
                self.retired.insert((e.until, *k));
            } else {
                self.nonce_of.insert(e.timer_id, *k);
            }
        }
    }

    /// A repeat's update of the drafts' metadata (the caller updates the timer's body); an
    /// interval timer fired in this block and waiting to re-arm has its body here. Returns
    /// whether the timer is live under the drafts.
    pub fn apply_update(&mut self, u: &DraftUpdate) -> bool {
        let next = self.next_rank;
        let Some(m) = self.meta.get_mut(&u.timer_id) else {
            return false;
        };
        m.bid_fp = u.bid_fp;
        if u.raise_rank {
            m.fifo_rank = next;
            self.next_rank += 1;
        }
        let body = self
            .watches
            .get_mut(&u.timer_id)
            .into_iter()
            .chain(self.rearm.iter_mut().filter(|t| t.timer_id == u.timer_id));
        for t in body {
            t.payload = u.payload.clone();
            t.gas_limit_per_fire = u.gas_limit;
        }
        true
    }

    /// The bindings' part of the state root (nothing when there is none: earlier roots stay).
    pub(super) fn encode_nonces(&self, e: &mut HashEncoder) {
        if self.nonces.is_empty() {
            return;
        }
        e.u32(0x4e4f_4e31); // "NON1"
        e.length(self.nonces.len());
        for (k, v) in &self.nonces {
            e.raw(&k.owner.0);
            e.raw(&k.target.0);
            e.u64(k.client_nonce);
            e.raw(&v.timer_id.0);
            v.kind.encode(e);
            e.u64(v.until);
            e.bool(v.left);
        }
    }
}
