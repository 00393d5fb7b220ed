//! The CIP-5 early drafts' persistent scheduler state (`cip5-draft-statewatch-globalbox.md`,
//! `cip5-draft-zh-interval-testvectors.md`): what the `cip5-draft` and `cip5-draft-zh`
//! policies need beyond one height's bucket of the calendar queue.
//!
//! - Height timers stay in the calendar queue (it is the drafts' `IndexHeight`, §5.2 / §6.2);
//!   interval timers too, re-inserted at their next due height once they fired (§11 zh).
//! - State-watch timers (`watch_keys`, §5.1) have no height: their bodies live here, indexed
//!   by `(target, key prefix)` (`IndexWatch`).
//! - The block's written keys (`ModifiedKeySet(h)`, §7), recorded by the transaction phase.
//! - Per timer, the drafts' metadata: kind, `bid_fp` (Q32.96), `fifo_rank`, `fire_seq`.
//! - Watches hit and not yet delivered, the Globalbox (English §5.3), the `deliver_seq`
//!   counter and the last block's Mailbox (§9).
//!
//! Everything but the block's transient inputs is committed in the state root
//! ([`DraftState::root_part`]), and dumped with the chain.

pub mod deliver;
mod expiry;
mod govern;
mod nonce;
mod view;

pub use nonce::{DraftUpdate, NonceBind, NonceEntry, NonceKey, NonceView};
pub use view::{DraftView, WatchView};

use super::error::TimerError;
use super::timer::Timer;
use super::types::{Address, HashEncoder, TimerId, u128_str};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One whole unit of bid in Q32.96 (`bid_fp = bid << 96`).
pub const BID_ONE: u128 = 1 << 96;

pub use crate::engine::config::DraftParams;

/// A draft timer's trigger (English §5.1, zh §6.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DraftKind {
    /// Fires once at `due_height` (the calendar queue holds it).
    Height,
    /// Fires when a key of its target starting with one of `keys` is written (hex in JSON).
    Watch {
        #[serde(with = "hex_keys")]
        #[schemars(with = "Vec<String>")]
        keys: Vec<Vec<u8>>,
    },
    /// Fires at its due height, then every `every` blocks (zh §11).
    Interval { every: u64 },
}

impl DraftKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            DraftKind::Height => "height",
            DraftKind::Watch { .. } => "watch",
            DraftKind::Interval { .. } => "interval",
        }
    }

    fn encode(&self, e: &mut HashEncoder) {
        match self {
            DraftKind::Height => e.u8(0),
            DraftKind::Watch { keys } => {
                e.u8(1);
                e.length(keys.len());
                for k in keys {
                    e.bytes(k);
                }
            }
            DraftKind::Interval { every } => {
                e.u8(2);
                e.u64(*every);
            }
        }
    }
}

mod hex_keys {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(keys: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(keys.iter().map(hex::encode))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        v.iter()
            .map(|s| hex::decode(s).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// The drafts' per-timer metadata beside the CIP-5 timer body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DraftMeta {
    #[serde(flatten)]
    pub kind: DraftKind,
    /// `bid_fp`, Q32.96 (a whole unit is [`BID_ONE`]).
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub bid_fp: u128,
    /// `fifo_rank` (zh §6.1): registration order under the draft policies.
    pub fifo_rank: u64,
    /// `fire_seq`: fires materialized so far.
    pub fire_seq: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_fire_height: Option<u64>,
}

/// A watch hit not yet delivered: the height of its first hit and the keys written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Hit {
    pub height: u64,
    #[serde(with = "hex_keys")]
    #[schemars(with = "Vec<String>")]
    pub keys: Vec<Vec<u8>>,
}

/// A fire waiting in the Globalbox (English §5.3): its order is frozen once inserted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GlobalFire {
    pub timer_id: TimerId,
    pub target: Address,
    /// `due_height` of a height timer, `hit_height` of a watch (§8.1's age anchor).
    pub anchor: u64,
    /// `bid_fp` snapshot at insertion.
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub bid_fp: u128,
    /// The score it was inserted with, at `enqueued_at`.
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub score: u128,
    pub enqueued_at: u64,
    pub kind: String,
}

/// One materialized fire (English §9.1, zh §10.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MailboxEntry {
    /// `H(h, parent_state_root, timer_id, fire_seq)`, hex.
    pub deliver_id: String,
    /// Global execution order, monotonic across blocks, never reused (English §9.2).
    pub deliver_seq: u64,
    pub height: u64,
    pub target: Address,
    pub timer_id: TimerId,
    pub fire_seq: u32,
    pub kind: String,
    /// The age anchor: due height, or hit height of a watch.
    pub due_height: u64,
    #[serde(with = "hex_keys", default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub matched_keys: Vec<Vec<u8>>,
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub bid_fp: u128,
    pub gas_limit: u64,
}

/// A registration under a draft policy, from the transaction phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftReg {
    pub timer_id: TimerId,
    pub kind: DraftKind,
    pub bid_fp: u128,
    /// A watch's body (height timers and intervals go to the calendar queue).
    pub watch: Option<Timer>,
    /// The idempotent set's key, when the registration named a `client_nonce` (§6.2).
    pub nonce: Option<NonceBind>,
}

/// The drafts' state (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DraftState {
    pub params: DraftParams,
    /// Per timer registered under a draft policy and still live.
    #[serde(with = "pairs")]
    #[schemars(with = "Vec<(TimerId, DraftMeta)>")]
    pub meta: BTreeMap<TimerId, DraftMeta>,
    /// The watches' bodies; `height` is the registration height + 1 (unused for matching).
    #[serde(with = "pairs")]
    #[schemars(with = "Vec<(TimerId, Timer)>")]
    pub watches: BTreeMap<TimerId, Timer>,
    /// Watches hit and not yet delivered.
    #[serde(with = "pairs")]
    #[schemars(with = "Vec<(TimerId, Hit)>")]
    pub hits: BTreeMap<TimerId, Hit>,
    /// The Globalbox, head first (only `cip5-draft` fills it).
    pub globalbox: Vec<GlobalFire>,
    pub next_deliver_seq: u64,
    pub next_rank: u64,
    /// The Mailbox of the last block that materialized fires, in execution order.
    pub mailbox: Vec<MailboxEntry>,
    /// The quota skips of the last block: candidates left for a later block.
    pub last_skipped: u64,
    /// English §6.2 / zh §7.2: `(owner, target, client_nonce)` → timer (see [`nonce`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty", with = "pairs")]
    #[schemars(with = "Vec<(NonceKey, NonceEntry)>")]
    pub nonces: BTreeMap<NonceKey, NonceEntry>,
    /// The live timers' keys (derived from `nonces`).
    #[serde(skip)]
    nonce_of: BTreeMap<TimerId, NonceKey>,
    /// The retired bindings by `(until, key)` (derived from `nonces`).
    #[serde(skip)]
    retired: BTreeSet<(u64, NonceKey)>,
    /// `IndexWatch`: `(target, prefix)` → watches (derived from `watches` and `meta`).
    #[serde(skip)]
    index: BTreeMap<(Address, Vec<u8>), BTreeSet<TimerId>>,
    /// `ModifiedKeySet(h)` of the open block (transient).
    #[serde(skip)]
    written: BTreeSet<(Address, Vec<u8>)>,
    /// The parent state root of the open block (transient).
    #[serde(skip)]
    parent_root: [u8; 32],
    /// Interval timers fired this block, to re-insert at the end of the block (transient).
    #[serde(skip)]
    rearm: Vec<Timer>,
    /// Whether the last plan changed this state (transient): such a block is never sealed
    /// quiet, whose root would reuse the last block's template.
    #[serde(skip)]
    pub(crate) dirty: bool,
    /// Governance's new parameters, in force from the next block (see [`govern`]); always
    /// empty once a block is sealed, so never committed nor dumped.
    #[serde(skip)]
    pending_params: Option<DraftParams>,
    /// Watches by `expires_at` (derived from `watches`): the TTL sweep (see [`expiry`]).
    #[serde(skip)]
    expiry: BTreeMap<u64, BTreeSet<TimerId>>,
    /// Live watches per target (derived from `watches`): the per-actor caps.
    #[serde(skip)]
    watches_per_target: BTreeMap<Address, u32>,
}

mod pairs {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;
    pub fn serialize<K: Serialize, V: Serialize, S: Serializer>(
        m: &BTreeMap<K, V>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(m.iter())
    }
    pub fn deserialize<
        'de,
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    >(
        d: D,
    ) -> Result<BTreeMap<K, V>, D::Error> {
        Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
    }
}

impl DraftState {
    pub fn new(params: DraftParams) -> Self {
        DraftState {
            params,
            ..Default::default()
        }
    }

    /// Nothing registered, nothing delivered, default parameters.
    pub fn is_pristine(&self) -> bool {
        self.params == DraftParams::default()
            && self.meta.is_empty()
            && self.watches.is_empty()
            && self.hits.is_empty()
            && self.globalbox.is_empty()
            && self.next_deliver_seq == 0
            && self.next_rank == 0
            && self.mailbox.is_empty()
            && self.nonces.is_empty()
    }

    /// Rebuilds the watch index after a load.
    pub fn reindex(&mut self) {
        self.reindex_nonces();
        self.index.clear();
        self.reindex_watches();
        for (id, m) in &self.meta {
            if let (DraftKind::Watch { keys }, Some(w)) = (&m.kind, self.watches.get(id)) {
                for k in keys {
                    self.index
                        .entry((w.actor_address, k.clone()))
                        .or_default()
                        .insert(*id);
                }
            }
        }
    }

    /// Whether the last block's plan changed this state (see the `dirty` field).
    pub fn changed_by_plan(&self) -> bool {
        self.dirty
    }

    /// Whether an idle block would change this state (a hit or a queued fire waits).
    pub fn busy(&self) -> bool {
        !self.hits.is_empty() || !self.globalbox.is_empty() || !self.mailbox.is_empty()
    }

    /// Records a key written by the transaction phase of the open block.
    pub fn note_written(&mut self, actor: Address, key: Vec<u8>) {
        self.written.insert((actor, key));
    }

    /// The keys written so far in the open block.
    pub fn written(&self) -> &BTreeSet<(Address, Vec<u8>)> {
        &self.written
    }

    /// Sets the open block's parent state root (the `deliver_id` input).
    pub fn set_parent_root(&mut self, root: [u8; 32]) {
        self.parent_root = root;
    }

    /// Registers a timer scheduled under a draft policy.
    pub fn register(&mut self, reg: DraftReg) {
        let rank = self.next_rank;
        self.next_rank += 1;
        if let (DraftKind::Watch { keys }, Some(w)) = (&reg.kind, &reg.watch) {
            for k in keys {
                self.index
                    .entry((w.actor_address, k.clone()))
                    .or_default()
                    .insert(reg.timer_id);
            }
            self.watches.insert(reg.timer_id, w.clone());
            self.index_watch(w);
        }
        if let Some(b) = reg.nonce {
            self.bind_nonce(reg.timer_id, &reg.kind, b);
        }
        self.meta.insert(
            reg.timer_id,
            DraftMeta {
                kind: reg.kind,
                bid_fp: reg.bid_fp,
                fifo_rank: rank,
                fire_seq: 0,
                last_fire_height: None,
            },
        );
    }

    /// A live watch.
    pub fn watch(&self, id: &TimerId) -> Option<&Timer> {
        self.watches.get(id)
    }

    /// Forgets a timer that left (fired for good, cancelled, expired, unfunded): its metadata,
    /// its watch body and index entries, its pending hit and its queued fire (Spec note: a
    /// cancelled timer's Globalbox fire is removed, English §6.2 "takes effect before
    /// materialization"). Returns the watch body if it was a watch.
    pub fn forget(&mut self, id: &TimerId) -> Option<Timer> {
        self.retire_nonce(id);
        let meta = self.meta.remove(id);
        self.hits.remove(id);
        self.globalbox.retain(|g| g.timer_id != *id);
        let w = self.watches.remove(id);
        if let Some(w) = &w {
            self.unindex_watch(w);
        }
        if let (
            Some(DraftMeta {
                kind: DraftKind::Watch { keys },
                ..
            }),
            Some(w),
        ) = (meta, &w)
        {
            for k in keys {
                let key = (w.actor_address, k);
                if let Some(s) = self.index.get_mut(&key) {
                    s.remove(id);
                    if s.is_empty() {
                        self.index.remove(&key);
                    }
                }
            }
        }
        w
    }

    /// Takes the interval timers to re-insert at the end of the block.
    pub fn take_rearm(&mut self) -> Vec<Timer> {
        std::mem::take(&mut self.rearm)
    }

    /// Sets the `expires_at` of an interval timer fired in this block and waiting to re-arm
    /// (an extension from a handler of this block, its own included: Spec note 138). Returns
    /// the previous value, `None` if no such timer waits.
    pub fn set_rearm_expiry(&mut self, id: &TimerId, expires_at: u64) -> Option<u64> {
        let t = self.rearm.iter_mut().find(|t| t.timer_id == *id)?;
        Some(std::mem::replace(&mut t.expires_at, expires_at))
    }

    /// The state root's part for the drafts: empty when nothing was ever registered and the
    /// parameters are the defaults (so a chain under another policy keeps its roots).
    pub fn root_part(&self) -> Vec<u8> {
        if self.is_pristine() {
            return Vec::new();
        }
        let mut e = HashEncoder::new(b"cowboy-devnet/cip5-draft/2");
        self.params.encode(&mut e);
        e.length(self.meta.len());
        for (id, m) in &self.meta {
            e.raw(&id.0);
            m.kind.encode(&mut e);
            e.u128(m.bid_fp);
            e.u64(m.fifo_rank);
            e.u32(m.fire_seq);
            e.u64(m.last_fire_height.unwrap_or(0));
        }
        e.length(self.watches.len());
        for (id, w) in &self.watches {
            e.raw(&id.0);
            e.raw(&w.actor_address.0);
            e.raw(&w.fee_payer.0);
            e.u64(w.schedule_block);
            e.u64(w.gas_limit_per_fire);
            e.u64(w.expires_at);
            e.bytes(&w.payload);
        }
        e.length(self.hits.len());
        for (id, h) in &self.hits {
            e.raw(&id.0);
            e.u64(h.height);
            e.length(h.keys.len());
            for k in &h.keys {
                e.bytes(k);
            }
        }
        e.length(self.globalbox.len());
        for g in &self.globalbox {
            e.raw(&g.timer_id.0);
            e.u64(g.anchor);
            e.u128(g.bid_fp);
            e.u128(g.score);
            e.u64(g.enqueued_at);
        }
        e.u64(self.next_deliver_seq);
        e.u64(self.next_rank);
        e.length(self.mailbox.len());
        for m in &self.mailbox {
            e.str(&m.deliver_id);
            e.u64(m.deliver_seq);
        }
        self.encode_nonces(&mut e);
        e.finish().to_vec()
    }
}

/// `bid` in whole units to `bid_fp` (Q32.96): `InvalidInput` at or above 2^32.
pub fn bid_fp(bid: u128) -> Result<u128, TimerError> {
    if bid >= 1 << 32 {
        return Err(TimerError::InvalidInput(format!(
            "bid {bid} does not fit Q32.96 (whole units below 2^32)"
        )));
    }
    Ok(bid << 96)
}
