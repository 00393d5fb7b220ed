//! Transactions, receipts, events and blocks.

use super::runtime::{ActorCode, Lang};
use crate::engine::types::{HashEncode, HashEncoder, u128_str};
use crate::engine::{
    Address, EobStats, EventKind, Failure, H256, SchedulerParams, TimerConfig, TimerEvent, TimerId,
};
use serde::{Deserialize, Serialize};

mod tally;
pub use tally::{ActorTally, BlockTally, TallyCell, count_block_events};

/// CIP-3 basefees (not in our specs): a governed config with devnet defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BasefeeConfig {
    /// Price of one cycle, in base units (default 1).
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub cycle_basefee: u128,
    /// Price of one cell (one byte written), in base units (default 1).
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub cell_basefee: u128,
    /// Cycles every transaction pays before it does anything (default 1,000).
    pub tx_base_cycles: u64,
    /// A transaction's cycle limit when it names none (default 5,000,000).
    pub tx_cycle_limit: u64,
    /// A transaction's cell limit (default 2,000,000: room for a 1 MiB payload).
    pub tx_cell_limit: u64,
    /// The block's transaction cycle limit: the cycles used by one block's transactions add up
    /// to at most this (default 50,000,000: ten transactions at the default `tx_cycle_limit`).
    /// A transaction whose cycle limit does not fit in what is left is rejected with
    /// `BlockFull` before it runs. Timer fires have their own lane (`lane_timer_cycles`).
    pub block_tx_cycles: u64,
}

impl Default for BasefeeConfig {
    fn default() -> Self {
        BasefeeConfig {
            cycle_basefee: 1,
            cell_basefee: 1,
            tx_base_cycles: 1_000,
            tx_cycle_limit: 5_000_000,
            tx_cell_limit: 2_000_000,
            block_tx_cycles: 50_000_000,
        }
    }
}

impl BasefeeConfig {
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&self.cycle_basefee.to_be_bytes());
        v.extend_from_slice(&self.cell_basefee.to_be_bytes());
        v.extend_from_slice(&self.tx_base_cycles.to_be_bytes());
        v.extend_from_slice(&self.tx_cycle_limit.to_be_bytes());
        v.extend_from_slice(&self.tx_cell_limit.to_be_bytes());
        v.extend_from_slice(&self.block_tx_cycles.to_be_bytes());
        v
    }
}

/// The timer-management system instructions (CIP-5 §5.4, §6.4; CIP-1 v3 §12).
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(tag = "op", rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum SystemInstruction {
    /// `SYS_CANCEL_TIMER` (48).
    CancelTimer { timer_id: TimerId },
    /// `SYS_UPDATE_TIMER_CONFIG` (49).
    UpdateTimerConfig { config: TimerConfig },
    /// `SYS_EXTEND_TIMER` (50).
    ExtendTimer {
        timer_id: TimerId,
        new_expires_at: u64,
    },
    /// `SYS_UPDATE_SCHEDULER_CONFIG` (51, the devnet's: CIP-1 v3 §7.3/§8/§10 name no opcode).
    /// `draft`: the CIP-5 drafts' parameters in force from the next block (English §12, zh
    /// §13; Spec note 126), absent when the update names none of their fields.
    UpdateSchedulerConfig {
        config: SchedulerParams,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        draft: Option<crate::engine::draft::DraftParams>,
    },
}

/// The arguments of a state watch or an interval timer (CIP-5 drafts). `keys` are storage
/// keys or prefixes of the actor (a watch's); `every` and `first` are an interval's (`first`:
/// its first due height, by default by the `interval_first` variant). `bid` in whole units
/// (stored Q32.96).
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct DraftTimerArgs {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<u64>,
    #[serde(default)]
    pub payload: Vec<u8>,
    #[serde(default)]
    pub fee_payer: Option<Address>,
    #[serde(default)]
    pub gas_limit: Option<u64>,
    #[serde(default)]
    pub expires_at: Option<u64>,
    #[serde(
        default,
        with = "crate::engine::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub bid: Option<u128>,
    /// English §6.2 / zh §7.2: the idempotent set's `client_nonce` (Spec note 122).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_nonce: Option<u64>,
}

impl HashEncode for DraftTimerArgs {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.length(self.keys.len());
        for k in &self.keys {
            e.str(k);
        }
        self.every.hash_encode(e);
        self.first.hash_encode(e);
        e.bytes(&self.payload);
        self.fee_payer.hash_encode(e);
        self.gas_limit.hash_encode(e);
        self.expires_at.hash_encode(e);
        self.bid.hash_encode(e);
        // Written only when given: earlier transactions keep their hashes.
        if let Some(n) = self.client_nonce {
            e.u8(0x4e);
            e.u64(n);
        }
    }
}

impl SystemInstruction {
    pub const SYS_CANCEL_TIMER: u8 = 48;
    pub const SYS_UPDATE_TIMER_CONFIG: u8 = 49;
    pub const SYS_EXTEND_TIMER: u8 = 50;
    pub const SYS_UPDATE_SCHEDULER_CONFIG: u8 = 51;

    pub fn opcode(&self) -> u8 {
        match self {
            SystemInstruction::CancelTimer { .. } => Self::SYS_CANCEL_TIMER,
            SystemInstruction::UpdateTimerConfig { .. } => Self::SYS_UPDATE_TIMER_CONFIG,
            SystemInstruction::ExtendTimer { .. } => Self::SYS_EXTEND_TIMER,
            SystemInstruction::UpdateSchedulerConfig { .. } => Self::SYS_UPDATE_SCHEDULER_CONFIG,
        }
    }
}

/// What a transaction does.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(tag = "type", rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum TxKind {
    Transfer {
        to: Address,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        amount: u128,
    },
    /// Deploys an actor at `address` (or one derived from sender and nonce), moves `endowment`
    /// to it and runs its `deploy()` handler with the sender as `tx_sender`.
    Deploy {
        #[serde(default)]
        address: Option<Address>,
        code: ActorCode,
        #[serde(default, with = "u128_str")]
        #[schemars(with = "String")]
        endowment: u128,
    },
    /// Calls a handler of an actor.
    Call {
        actor: Address,
        handler: String,
        #[serde(default)]
        payload: Vec<u8>,
    },
    System(SystemInstruction),
    /// Devnet impersonation: runs one timer host call *as the actor*, in a transaction sent by
    /// the actor's deployer (the dashboard's and RPC's schedule / cancel / extend keys). Every
    /// CIP-5 §4.2 rule applies as if the actor's code had made the call: the executing actor is
    /// `actor`, the tx sender is `from`.
    ActAs {
        actor: Address,
        op: TimerOp,
    },
}

/// A timer host call made through [`TxKind::ActAs`].
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(tag = "call", rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum TimerOp {
    ScheduleTimer(crate::engine::ScheduleArgs),
    CancelTimer {
        timer_id: TimerId,
    },
    ExtendTimer {
        timer_id: TimerId,
        new_expires_at: u64,
    },
    /// CIP-5 drafts: `set_state_watch(target, watch_keys, payload, gas_limit, bid?)`
    /// (English §6.1, zh §7.1), the target being the actor.
    SetStateWatch(DraftTimerArgs),
    /// CIP-5 draft zh: `set_interval(target, every_blocks, payload, gas_limit, bid?)` (§7.1).
    SetInterval(DraftTimerArgs),
    /// Writes one storage key of the actor (a transaction whose write a watch can see).
    WriteKey {
        key: String,
        value: String,
    },
}

/// A transaction. `nonce: None` takes the sender's next nonce (a devnet convenience).
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Transaction {
    pub from: Address,
    #[serde(default)]
    pub nonce: Option<u64>,
    #[serde(default)]
    pub cycle_limit: Option<u64>,
    pub kind: TxKind,
}

impl Transaction {
    pub fn new(from: Address, kind: TxKind) -> Self {
        Transaction {
            from,
            nonce: None,
            cycle_limit: None,
            kind,
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            TxKind::Transfer { .. } => "transfer",
            TxKind::Deploy { .. } => "deploy",
            TxKind::Call { .. } => "call",
            TxKind::System(_) => "system",
            TxKind::ActAs { .. } => "act_as",
        }
    }

    /// The transaction hash: keccak256 of `cowboy-devnet/tx/1` followed by the transaction's
    /// canonical encoding ([`HashEncoder`]): `from`, `nonce` (optional), `cycle_limit`
    /// (optional), then the kind (see the [`HashEncode`] impl of [`TxKind`]).
    pub fn hash(&self) -> H256 {
        let mut e = HashEncoder::new(b"cowboy-devnet/tx/1");
        self.hash_encode(&mut e);
        H256(e.finish())
    }
}

impl HashEncode for Transaction {
    fn hash_encode(&self, e: &mut HashEncoder) {
        self.from.hash_encode(e);
        self.nonce.hash_encode(e);
        self.cycle_limit.hash_encode(e);
        self.kind.hash_encode(e);
    }
}

impl HashEncode for TxKind {
    /// Tag `Transfer` 1, `Deploy` 2, `Call` 3, `System` 4, `ActAs` 5, then the fields in
    /// declaration order (a payload as a byte string).
    fn hash_encode(&self, e: &mut HashEncoder) {
        match self {
            TxKind::Transfer { to, amount } => {
                e.u8(1);
                to.hash_encode(e);
                e.u128(*amount);
            }
            TxKind::Deploy {
                address,
                code,
                endowment,
            } => {
                e.u8(2);
                address.hash_encode(e);
                code.hash_encode(e);
                e.u128(*endowment);
            }
            TxKind::Call {
                actor,
                handler,
                payload,
            } => {
                e.u8(3);
                actor.hash_encode(e);
                e.str(handler);
                e.bytes(payload);
            }
            TxKind::System(ins) => {
                e.u8(4);
                ins.hash_encode(e);
            }
            TxKind::ActAs { actor, op } => {
                e.u8(5);
                actor.hash_encode(e);
                op.hash_encode(e);
            }
        }
    }
}

impl HashEncode for SystemInstruction {
    /// The opcode (48, 49, 50), then the fields in declaration order.
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u8(self.opcode());
        match self {
            SystemInstruction::CancelTimer { timer_id } => timer_id.hash_encode(e),
            SystemInstruction::UpdateTimerConfig { config } => config.hash_encode(e),
            SystemInstruction::UpdateSchedulerConfig { config, draft } => {
                config.hash_encode(e);
                // Absent: the bytes of an update without draft fields are unchanged.
                if let Some(d) = draft {
                    e.u8(1);
                    d.encode(e);
                }
            }
            SystemInstruction::ExtendTimer {
                timer_id,
                new_expires_at,
            } => {
                timer_id.hash_encode(e);
                e.u64(*new_expires_at);
            }
        }
    }
}

impl HashEncode for TimerOp {
    /// Tag `ScheduleTimer` 1, `CancelTimer` 2, `ExtendTimer` 3, then the fields.
    fn hash_encode(&self, e: &mut HashEncoder) {
        match self {
            TimerOp::ScheduleTimer(args) => {
                e.u8(1);
                args.hash_encode(e);
            }
            TimerOp::CancelTimer { timer_id } => {
                e.u8(2);
                timer_id.hash_encode(e);
            }
            TimerOp::ExtendTimer {
                timer_id,
                new_expires_at,
            } => {
                e.u8(3);
                timer_id.hash_encode(e);
                e.u64(*new_expires_at);
            }
            TimerOp::SetStateWatch(a) => {
                e.u8(4);
                a.hash_encode(e);
            }
            TimerOp::SetInterval(a) => {
                e.u8(5);
                a.hash_encode(e);
            }
            TimerOp::WriteKey { key, value } => {
                e.u8(6);
                e.str(key);
                e.str(value);
            }
        }
    }
}

impl HashEncode for ActorCode {
    /// The language (`None` 0, `Rhai` 1, `Native` 2), the source, the name.
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u8(match self.lang {
            Lang::None => 0,
            Lang::Rhai => 1,
            Lang::Native => 2,
        });
        e.str(&self.source);
        e.str(&self.name);
    }
}

/// The outcome of an included transaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Receipt {
    pub tx_hash: H256,
    pub index: u32,
    pub from: Address,
    pub nonce: u64,
    pub kind: String,
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
    pub cycles_used: u64,
    pub cells_used: u64,
    /// What the sender paid (all burned: user transactions carry no tip here).
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub fee: u128,
    /// The deployed actor, for a deploy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<Address>,
    /// Timers this transaction scheduled (empty if it reverted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timers: Vec<TimerId>,
}

impl HashEncode for Receipt {
    /// Every field in declaration order.
    fn hash_encode(&self, e: &mut HashEncoder) {
        self.tx_hash.hash_encode(e);
        e.u32(self.index);
        self.from.hash_encode(e);
        e.u64(self.nonce);
        e.str(&self.kind);
        e.bool(self.success);
        self.error.hash_encode(e);
        e.u64(self.cycles_used);
        e.u64(self.cells_used);
        e.u128(self.fee);
        self.created.hash_encode(e);
        self.timers.hash_encode(e);
    }
}

/// Events that are not about timers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind")]
pub enum ChainEvent {
    ActorDeployed {
        actor: Address,
        deployer: Address,
    },
    /// `emit(topic, data)` from a handler. `data` is shown as UTF-8 when it is, else hex.
    ActorEmitted {
        actor: Address,
        topic: String,
        data: String,
    },
}

/// Any event, serialized flat with its `kind`. Its schema (`EventBody` in `rpc.discover`) is
/// derived: one of the timer engine's events or a chain event, each with its fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "EventBody")]
#[serde(untagged)]
pub enum Event {
    Timer(TimerEvent),
    Chain(ChainEvent),
}

impl Event {
    pub fn kind(&self) -> EventKind {
        match self {
            Event::Timer(e) => e.kind(),
            Event::Chain(ChainEvent::ActorDeployed { .. }) => EventKind::ActorDeployed,
            Event::Chain(ChainEvent::ActorEmitted { .. }) => EventKind::ActorEmitted,
        }
    }
    pub fn timer_id(&self) -> Option<TimerId> {
        match self {
            Event::Timer(e) => e.timer_id(),
            _ => None,
        }
    }
    pub fn actor(&self) -> Option<Address> {
        match self {
            Event::Timer(e) => e.actor(),
            Event::Chain(ChainEvent::ActorDeployed { actor, .. })
            | Event::Chain(ChainEvent::ActorEmitted { actor, .. }) => Some(*actor),
        }
    }
}

impl HashEncode for ChainEvent {
    /// Tag `ActorDeployed` 0x21, `ActorEmitted` 0x22 (apart from the timer events' 1 to 10),
    /// then the fields in declaration order.
    fn hash_encode(&self, e: &mut HashEncoder) {
        match self {
            ChainEvent::ActorDeployed { actor, deployer } => {
                e.u8(0x21);
                actor.hash_encode(e);
                deployer.hash_encode(e);
            }
            ChainEvent::ActorEmitted { actor, topic, data } => {
                e.u8(0x22);
                actor.hash_encode(e);
                e.str(topic);
                e.str(data);
            }
        }
    }
}

impl HashEncode for Event {
    /// The inner event's own encoding: the tags of timer and chain events do not overlap.
    fn hash_encode(&self, e: &mut HashEncoder) {
        match self {
            Event::Timer(t) => t.hash_encode(e),
            Event::Chain(c) => c.hash_encode(e),
        }
    }
}

/// An event as recorded in a block: where it happened and what (`Event` in `rpc.discover`,
/// its schema derived from these types, issue 29).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Event")]
pub struct EventRecord {
    /// The block the event happened in. Serialized as `block_height`: the flattened timer
    /// events carry their own `height` (the timer's), and a JSON object cannot hold both.
    #[serde(rename = "block_height")]
    pub height: u64,
    /// `tx` for the transaction phase, `eob` for end of block.
    pub phase: Phase,
    #[serde(flatten)]
    pub event: Event,
}

impl HashEncode for EventRecord {
    /// The block height, the phase (`Tx` 0, `Eob` 1), the event.
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u64(self.height);
        e.u8(match self.phase {
            Phase::Tx => 0,
            Phase::Eob => 1,
        });
        self.event.hash_encode(e);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Tx,
    Eob,
}

/// A block's body hash: keccak256 of `cowboy-devnet/body/1`, then the receipts and then the
/// events, each as a sequence in its canonical encoding ([`HashEncoder`]; a sequence is its
/// length and then its elements). It commits to every field of every receipt and event, in
/// block order.
pub fn body_hash(receipts: &[Receipt], events: &[EventRecord]) -> H256 {
    let mut e = HashEncoder::new(b"cowboy-devnet/body/1");
    receipts.hash_encode(&mut e);
    events.hash_encode(&mut e);
    H256(e.finish())
}

/// A sealed block's header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BlockHeader {
    pub height: u64,
    /// The hash of the block before it; for a block with an empty body and no skipped
    /// heights, its anchor: the hash of the last block before it with a non-empty body or
    /// skipped heights, or of the genesis (see `chain::quiet`: a run of quiet heights is
    /// hashed without hashing each height before it).
    pub parent_hash: H256,
    pub state_root: H256,
    /// keccak256 over the receipts and events ([`body_hash`]).
    pub body_hash: H256,
    pub proposer: Address,
    /// Heights skipped before this block (a simulated outage), usually 0.
    #[serde(default)]
    pub skipped: u64,
    /// keccak256 of the header's other fields, concatenated in declaration order: `height`
    /// (u64 big-endian), `parent_hash`, `state_root`, `body_hash`, `proposer`, `skipped` (u64
    /// big-endian). Every field is fixed-size, so the concatenation is unambiguous.
    pub hash: H256,
}

impl BlockHeader {
    /// The header of these fields, its hash theirs ([`BlockHeader::hash`]).
    pub fn sealed(
        height: u64,
        parent_hash: H256,
        state_root: H256,
        body_hash: H256,
        proposer: Address,
        skipped: u64,
    ) -> Self {
        let mut h = BlockHeader {
            height,
            parent_hash,
            state_root,
            body_hash,
            proposer,
            skipped,
            hash: H256::default(),
        };
        h.hash = h.fields_hash();
        h
    }

    /// The hash of the header's other fields: what [`BlockHeader::hash`] is for a sealed
    /// block (the genesis head's is its own, `Chain::new`).
    pub fn fields_hash(&self) -> H256 {
        H256(crate::engine::types::keccak_parts(&[
            &self.height.to_be_bytes(),
            &self.parent_hash.0,
            &self.state_root.0,
            &self.body_hash.0,
            &self.proposer.0,
            &self.skipped.to_be_bytes(),
        ]))
    }
}

/// A sealed block with its receipts, events and end-of-block counters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    pub header: BlockHeader,
    pub receipts: Vec<Receipt>,
    pub events: Vec<EventRecord>,
    pub eob: EobStats,
    /// Timers migrated between tiers by this block's epoch maintenance.
    pub migrated: u64,
    /// Timers pending after the block.
    pub pending: u64,
    /// The block's timer lane (CIP-1 v3 §5): the scheduler that planned it, the lane basefee in
    /// force, use, selection, tips and burns. Not part of the body hash (derived from the
    /// state and the events).
    #[serde(default)]
    pub lane: crate::engine::LaneStats,
    /// Its timer events counted per actor once (issue 31), see [`Block::tally`].
    #[serde(skip)]
    pub tally: TallyCell,
}

impl Block {
    /// This block's timer events counted ([`count_block_events`]): fires and deferrals per
    /// actor, deferrals per reason; counted on the first call and kept with the block.
    pub fn tally(&self) -> &BlockTally {
        self.tally.get_or_count(&self.events)
    }
}
