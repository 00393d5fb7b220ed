//! The one data interface the dashboard renders from (issue 15, "How it is built").
//!
//! Plain data, no chain types beyond ids and addresses: an in-process node
//! ([`crate::tui::local::LocalDevnet`]) and the JSON-RPC client
//! ([`crate::tui::remote::RemoteDevnet`]) both fill these types, and the dashboard never sees
//! which one it talks to. Every command a key press sends is a [`UiCommand`]
//! ([`super::command`]), answered by a typed [`CommandOutcome`] or a named [`CommandError`], the
//! same `{reason, message}` pair the JSON-RPC API puts in `data.reason` and the error message.

use crate::engine::{Address, AuctionEstimate, H256, PriorityTier, TimerId};
use crate::tui::view::{LifeReplies, QueryReplies, SourceInfo};
use std::collections::BTreeMap;
use std::time::Instant;

/// How the node produces blocks (issue 13: mining modes are state of the node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MiningMode {
    /// Every transaction seals a block.
    Auto,
    /// Blocks only on request.
    Manual,
    /// A block every `ms` milliseconds.
    Interval { ms: u64 },
}

impl MiningMode {
    pub fn label(&self) -> String {
        match self {
            MiningMode::Auto => "auto".into(),
            MiningMode::Manual => "manual".into(),
            MiningMode::Interval { ms } => format!("interval {}", fmt_ms(*ms)),
        }
    }
}

fn fmt_ms(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        let frac = format!("{:03}", ms % 1000);
        format!("{}.{}s", ms / 1000, frac.trim_end_matches('0'))
    }
}

/// The status bar's figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Height of the last sealed block.
    pub height: u64,
    pub mining: MiningMode,
    /// `fifo` or `eip1559`.
    pub scheduler: String,
    /// Height at which the CIP-1 v3 scheduler takes over, when one is set.
    pub activation_height: Option<u64>,
    pub cycle_basefee: u128,
    pub cell_basefee: u128,
    /// The CIP-1 v3 timer-lane basefee of the next block, nanos per cycle; `None` under `fifo`
    /// with no activation height set.
    pub lane_basefee: Option<u128>,
    pub pending_timers: u64,
    /// Where the JSON-RPC API listens, when it does.
    pub rpc_address: Option<String>,
    /// `LANE_TIMER_CYCLES` in force.
    pub lane_cycles: u64,
    /// The GC lane's budget per block (`gc_cycles_per_block`).
    pub gc_cycles: u64,
    /// The named variants in force that are not the default, `name=value` (issue 21).
    pub variants: Vec<String>,
    /// The live head's height (issue 24): `height` is the viewed one.
    pub tip: u64,
    /// The oldest height the node keeps (Spec note 73).
    pub first_kept: u64,
    /// `max_ttl_blocks` in force: the latest `expires_at` an extension can set is the block's
    /// height plus this (CIP-5 §5.4; issue 34, item 4).
    pub max_ttl_blocks: u64,
    /// The largest gas per fire a schedule takes now (the node's `max_gas_per_fire`: under
    /// eip1559 the §10 auction cap; issue 34, item 13).
    pub gas_cap: u64,
    /// Which chain this is (the node's `chain_id`): another one after a reattach resets what
    /// the dashboard kept of the old chain (issue 34, item 6).
    pub chain_id: H256,
}

/// One coming height and what is due there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketSummary {
    pub height: u64,
    pub count: u64,
    /// Sum of the timers' fire budgets (`gas_limit_per_fire` bounded by the `max_cycles_per_fire`
    /// in force, Spec note 16): the lane they reserve.
    pub gas: u64,
    /// Whether the summed gas fits the execution lane.
    pub fits_lane: bool,
}

/// A pending timer as a row of a bucket (execution order) or of a timer's life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerRow {
    pub id: TimerId,
    pub actor: Address,
    pub fee_payer: Address,
    /// The height it was scheduled for (a carried timer keeps it).
    pub height: u64,
    pub schedule_block: u64,
    /// Cycles per fire: a pending timer's fire budget (`gas_limit_per_fire` bounded by the
    /// `max_cycles_per_fire` in force, Spec note 16); a timer no longer pending, as scheduled.
    pub gas_limit: u64,
    pub expires_at: u64,
    pub handler: String,
    pub payload_len: u64,
    /// The most a fire may cost the fee payer at today's basefees.
    pub max_cost: u128,
    /// CIP-1 v3 effective priority (`priority per cycle × W`, nanos × bps) at the lane basefee
    /// now; `None` under `fifo`, or when its `max_fee_per_cycle` is below the lane basefee
    /// (it would be deferred `below_basefee`).
    pub effective_priority: Option<u128>,
    /// Its place in the bucket's execution order under eip1559 (1 runs first); `None` under
    /// `fifo`.
    pub rank: Option<u64>,
    /// CIP-1 v3 §6 fee caps given at schedule, nanos per cycle (`None`: priced by a GBA).
    pub max_fee_per_cycle: Option<u128>,
    pub max_priority_fee_per_cycle: Option<u128>,
    /// §7.3 tier given at schedule (`economy`, `standard`, `fast`, `urgent`).
    pub priority_tier: Option<PriorityTier>,
    /// Blocks it has been carried so far (0: never deferred).
    pub carried: u32,
    /// Why it was last deferred (`lane`, `outbid`, `over_cap`, `below_basefee`, `gc_budget`).
    pub last_defer: Option<String>,
}

/// A price in nanos per cycle (CIP-1 v3 contract decision 1, `PRICE_SCALE` = 10^9) in base
/// units: `1_125_000_000` reads `1.125`, `8` reads `0.000000008`, `2_000_000_000` reads `2`.
pub fn fmt_nanos(nanos: u128) -> String {
    let scale = crate::engine::scheduler::lane::PRICE_SCALE;
    let frac = nanos % scale;
    if frac == 0 {
        (nanos / scale).to_string()
    } else {
        let f = format!("{frac:09}");
        format!("{}.{}", nanos / scale, f.trim_end_matches('0'))
    }
}

/// Calendar-queue tiers (CIP-1 v3 §2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tiers {
    /// First height of the ring (the next height to drain).
    pub ring_start: u64,
    /// Timers per ring slot, for heights `ring_start..ring_start + ring.len()`.
    pub ring: Vec<u32>,
    pub ring_total: u64,
    /// `(first height of the epoch, timers)` per epoch-queue bucket.
    pub epoch_buckets: Vec<(u64, u64)>,
    pub epoch_total: u64,
    pub overflow_size: u64,
    pub overflow_root: Option<H256>,
    /// `(first height of the epoch, timers)` in the overflow set.
    pub overflow_epochs: Vec<(u64, u64)>,
    /// The height whose block runs the next maintenance slice.
    pub next_maintenance: u64,
    /// First height of the next epoch (where the ring's window moves on).
    pub next_epoch: u64,
    /// Timers moved inward by the last block's maintenance.
    pub last_migrated: u64,
}

/// One sealed block's lane figures (`Block.lane`, CIP-1 v3 §3, §5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneRow {
    pub height: u64,
    /// The scheduler that planned the block (`fifo` or `eip1559`).
    pub scheduler: String,
    /// The lane basefee in force for the block, nanos per cycle (under `fifo`: the cycle
    /// basefee × `PRICE_SCALE`).
    pub basefee: u128,
    /// Lane use in basis points of `LANE_TIMER_CYCLES`: the cycles `utilisation_of` names.
    pub utilisation_bps: u32,
    /// `consumed` or `reserved`: what the basefee followed (Spec note 152).
    pub utilisation_of: String,
    pub cycles_used: u64,
    pub cycles_reserved: u64,
    pub gc_cycles: u64,
    pub fired: u64,
    /// Timers selected (pre-charged) to fire.
    pub selected: u64,
    pub deferred: u64,
    /// Of `deferred`, those that did not fit (`lane` and `outbid`).
    pub lane_deferred: u64,
    /// The p50 tip of the block's fires, nanos per cycle (CIP-1 v3 §7.1); `None` under `fifo`.
    pub p50_tip: Option<u128>,
    /// Tips paid to the proposer, base units.
    pub tips: u128,
    /// Burned by the fires, base units (the lane basefee part included).
    pub burned: u128,
    /// The lane basefee part of `burned`.
    pub lane_burned: u128,
}

/// One actor's share of the lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FairnessRow {
    pub actor: Address,
    /// Fires in the recent window.
    pub fires: u64,
    pub deferrals: u64,
    pub pending: u64,
    /// W(actor) in basis points (10,000 = 1.0); `None` under `fifo`.
    pub w_bps: Option<u32>,
}

/// One event of the feed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    pub height: u64,
    /// The engine's exact kind name (`TimerFired`, ...).
    pub kind: String,
    /// The event's other fields, `name=value` separated by spaces.
    pub fields: String,
    pub timer: Option<TimerId>,
    pub actor: Option<Address>,
    /// issue 23 (branch dash): the event in words, as the headless lines print it
    /// ([`crate::node::text::event_text`]); the feed shows it, `fields` stays for the detail.
    pub text: String,
}

/// One step of a timer's life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifeEntry {
    pub height: u64,
    /// The event kind.
    pub what: String,
    /// Why (a deferral's reason, an error, a refund...), empty when there is nothing to add.
    pub reason: String,
}

/// Everything known about one timer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerLife {
    /// The sealed height it was read as of (issue 24: a past view; `None`: the head).
    pub at: Option<u64>,
    pub id: TimerId,
    /// As the fixture format names it: `pending`, `fired`, `expired`, `unfunded`,
    /// `cancelled`, `cancelled_by_governance`, or `unknown`.
    pub status: String,
    /// Its record while pending, or as scheduled (from its `TimerScheduled` event).
    pub record: Option<TimerRow>,
    pub deferrals: u64,
    pub timeline: Vec<LifeEntry>,
    /// The payload while the timer is pending (the raw view, `v`); once it left, as the node
    /// answered the timer as of the block before (issue 34, item 3: `gone_payload`).
    pub payload: Option<Vec<u8>>,
    /// The block it left in, once it left (its compact record's exit, else its last event).
    pub left_at: Option<u64>,
    /// Where the payload of a timer that left was read, or why it is not shown.
    pub payload_note: Option<String>,
}

/// What the dashboard asks for in one refresh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewQuery {
    /// Coming heights to summarise.
    pub buckets: usize,
    /// The bucket whose timers to list.
    pub selected_bucket: Option<u64>,
    /// Recent blocks of lane history.
    pub lane_blocks: usize,
    /// The fairness window, in blocks.
    pub fairness_window: u64,
    /// The sealed height the view is of (`[`, issue 24); `None`: the head.
    pub at: Option<u64>,
}

impl Default for ViewQuery {
    fn default() -> Self {
        ViewQuery {
            buckets: 32,
            selected_bucket: None,
            lane_blocks: 128,
            fairness_window: 1_000,
            at: None,
        }
    }
}

/// One refresh's worth of data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DashboardData {
    pub status: Option<Status>,
    pub buckets: Vec<BucketSummary>,
    /// The selected bucket's timers, in execution order.
    pub bucket_timers: Vec<TimerRow>,
    /// The height `bucket_timers` were read at (the query's selected bucket).
    pub bucket_at: Option<u64>,
    pub tiers: Tiers,
    /// Oldest first.
    pub lane: Vec<LaneRow>,
    pub fairness: Vec<FairnessRow>,
    /// Names for addresses (fixture names, dev accounts).
    pub names: BTreeMap<Address, String>,
    /// Actors the schedule form offers, in name order.
    pub actors: Vec<Address>,
    /// Deferrals over the lane window by reason (`lane`, `outbid`, `over_cap`,
    /// `below_basefee`, `gc_budget`), from the `TimerDeferred` events, in that order.
    pub defer_reasons: Vec<(String, u64)>,
    /// The CIP-1 v3 §8 fairness window in blocks and its median of recent fires; `None` when
    /// the node has no CIP-1 v3 window (fifo with no activation height).
    pub fairness_window: Option<(u64, u64)>,
    /// The median of the fires over the actors with at least one (CIP-1 v3 §8's median: the
    /// window's own under eip1559, of the fires counted from the events under fifo).
    pub fires_median: u64,
    /// The range the weight column moves in, basis points (the node's `weight_range_bps`):
    /// the W bar is drawn on it (issue 34, item 10).
    pub weight_range: Option<(u32, u32)>,
    /// The snapshots the node keeps, oldest first (what `R` can revert to).
    pub snapshots: Vec<crate::node::SnapshotInfo>,
    /// The CIP-5 drafts' state (issue 22): shown in the lane pane's place under a draft.
    pub draft: Option<crate::node::DraftView>,
}

/// The deferral reasons in the order the lane pane lists them (contract decision 6).
pub const DEFER_REASONS: [&str; 5] = ["lane", "outbid", "over_cap", "below_basefee", "gc_budget"];

/// Counts per reason in [`DEFER_REASONS`] order (every reason listed, zeros included).
pub fn count_reasons<'a>(reasons: impl IntoIterator<Item = &'a str>) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = DEFER_REASONS.iter().map(|r| (r.to_string(), 0)).collect();
    for r in reasons {
        match out.iter_mut().find(|(n, _)| n == r) {
            Some(e) => e.1 += 1,
            None => out.push((r.to_string(), 1)),
        }
    }
    out
}

impl DashboardData {
    /// A short human label: the name when known, else the address's first bytes.
    pub fn label(&self, a: &Address) -> String {
        self.names
            .get(a)
            .cloned()
            .unwrap_or_else(|| a.to_string()[..10].to_string())
    }
}

pub use super::command::{ConfigPatch, NodeRequest, ScheduleRequest, UiCommand};
pub use super::draft_request::{DraftEstimateView, DraftRequest};

/// `timer_estimate`'s answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// The most one fire may cost.
    pub max_cost: u128,
    /// Where it would fire given the queue and the lane now.
    pub fire_height: u64,
    /// What `timer_schedule` would answer, if it would refuse.
    pub error: Option<CommandError>,
    /// Where it would stand in the auction of its height now (`timer_estimate`'s `auction`);
    /// `None` when it would be refused.
    pub auction: Option<Box<AuctionEstimate>>,
    /// The fee payer's balance beside one fire's `max_cost` now (CIP-5 §5.4).
    pub funding: Option<crate::node::Funding>,
}

impl Estimate {
    /// False when the fee payer cannot fund one fire now: the timer would be removed
    /// `unfunded` when it comes due (CIP-5 §5.4) unless its balance grows first.
    pub fn funded(&self) -> bool {
        self.funding.as_ref().is_none_or(|f| f.funded)
    }
}

/// An auction standing as the estimate line shows it: `eip1559: rank 2 of 3 due, selected,
/// priority 0.5 × W 2.00` (or `fifo: 3rd in the bucket, fits`).
pub fn auction_line(a: &AuctionEstimate, funded: bool) -> String {
    let kind = a.scheduler.to_string();
    let sel = if !funded {
        "would be removed unfunded"
    } else if a.would_be_selected {
        "would run"
    } else {
        "would be deferred"
    };
    if kind == "fifo" {
        return format!("fifo: #{} in its bucket, {sel}", a.rank);
    }
    format!(
        "eip1559: rank {} of {} due, {sel} · lane basefee {} · priority {} × W {}",
        a.rank,
        a.due_at_height + 1,
        fmt_nanos(a.lane_basefee),
        fmt_nanos(a.priority_per_cycle),
        fmt_w(a.weight_bps)
    )
}

/// W(actor) in basis points as `1.00`..`2.00` (CIP-1 v3 §8), rounded: the node's formatter,
/// which the run report shares.
pub use crate::node::views::fmt_w;

/// A command's typed result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandOutcome {
    /// The new head height.
    Mined {
        height: u64,
    },
    MiningSet(MiningMode),
    Scheduled {
        timer_id: TimerId,
        height: u64,
    },
    Estimated(Estimate),
    DraftEstimated(Box<DraftEstimateView>),
    /// A transaction went through (cancel, extend, governance).
    Applied {
        what: String,
    },
    SnapshotTaken(u64),
    Reverted {
        id: u64,
        height: u64,
    },
}

impl CommandOutcome {
    /// A one-line summary for the status line.
    pub fn summary(&self) -> String {
        match self {
            CommandOutcome::Mined { height } => format!("mined to #{height}"),
            CommandOutcome::MiningSet(m) => format!("mining: {}", m.label()),
            CommandOutcome::Scheduled { timer_id, height } => {
                format!("scheduled timer {} for #{height}", timer_id.short())
            }
            CommandOutcome::Estimated(e) => match &e.error {
                None => match &e.auction {
                    Some(a) => format!(
                        "estimate: max cost {} fires at #{} · {}",
                        e.max_cost,
                        e.fire_height,
                        auction_line(a, e.funded())
                    ),
                    None => format!(
                        "estimate: max cost {} fires at #{}",
                        e.max_cost, e.fire_height
                    ),
                },
                Some(err) => format!("estimate: would fail: {err}"),
            },
            CommandOutcome::DraftEstimated(e) => format!("estimate: {}", e.line()),
            CommandOutcome::Applied { what } => what.clone(),
            CommandOutcome::SnapshotTaken(id) => format!("snapshot {id} taken"),
            CommandOutcome::Reverted { id, height } => {
                format!("reverted to snapshot {id} (#{height})")
            }
        }
    }
}

/// What a command's reply says, whichever transport carried it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The head's height after it (`Mine`, `Revert`).
    Height(u64),
    TimerId(TimerId),
    /// A draft timer registered (`D`): its id, and whether it was created (`false`: a
    /// `client_nonce` repeat that updated the timer it names, English §6.2).
    Registered(TimerId, bool),
    Estimate(Estimate),
    DraftEstimate(Box<DraftEstimateView>),
    /// The expiry an extension applied (CIP-5 §5.4 clamps it to the TTL cap).
    Expiry(u64),
    /// The activation height after `GovSetActivationHeight`.
    Activation(Option<u64>),
    Snapshot(u64),
    /// The file an exported session was written to, and the height it plays to.
    Exported(String, u64),
    /// Applied; nothing more to say.
    Done,
}

impl CommandOutcome {
    /// The outcome of `cmd` from its answer: written once for both transports.
    pub fn of(cmd: &UiCommand, answer: Answer) -> CommandOutcome {
        let applied = |what: String| CommandOutcome::Applied { what };
        match (cmd, answer) {
            (UiCommand::Mine(_), Answer::Height(height)) => CommandOutcome::Mined { height },
            (UiCommand::SetMining(mode), _) => CommandOutcome::MiningSet(*mode),
            (UiCommand::RevertTo(h), _) => applied(format!("forked at #{h}: the head is #{h}")),
            (UiCommand::ExportSession, Answer::Exported(path, blocks)) => applied(format!(
                "session written to {path} (#{blocks}; replay: cowboy-devnet run {path})"
            )),
            (UiCommand::ScheduleTimer(req), Answer::TimerId(timer_id)) => {
                CommandOutcome::Scheduled {
                    timer_id,
                    height: req.height,
                }
            }
            (UiCommand::EstimateTimer(_), Answer::Estimate(e)) => CommandOutcome::Estimated(e),
            (UiCommand::EstimateDraft(_), Answer::DraftEstimate(e)) => {
                CommandOutcome::DraftEstimated(e)
            }
            (UiCommand::CancelTimer { timer_id, .. }, _) => {
                applied(format!("cancelled timer {}", timer_id.short()))
            }
            // Issue 34, item 4: the node clamps to the TTL cap (CIP-5 §5.4) silently; say so.
            (
                UiCommand::ExtendTimer {
                    timer_id,
                    new_expires_at,
                    ..
                },
                Answer::Expiry(at),
            ) => applied(if at == *new_expires_at {
                format!(
                    "extended timer {}: it now expires at #{at} (its fire height is unchanged)",
                    timer_id.short()
                )
            } else {
                format!(
                    "extended timer {}: asked #{new_expires_at}, the TTL cap (height + max_ttl_blocks) allows #{at}: it now expires at #{at} (its fire height is unchanged)",
                    timer_id.short()
                )
            }),
            (UiCommand::GovCancelTimer { timer_id, .. }, _) => {
                applied(format!("governance cancelled timer {}", timer_id.short()))
            }
            (
                UiCommand::GovExtendTimer {
                    timer_id,
                    new_expires_at,
                    ..
                },
                _,
            ) => applied(format!(
                "governance extended timer {} to {new_expires_at}",
                timer_id.short()
            )),
            (UiCommand::GovUpdateConfig { .. }, _) => {
                applied("governance updated TimerConfig (from the next block)".into())
            }
            (UiCommand::GovUpdateSchedulerConfig { .. }, _) => {
                applied("governance updated the scheduler config (from the next block)".into())
            }
            (UiCommand::GovSetActivationHeight { .. }, Answer::Activation(h)) => applied(match h {
                Some(h) => format!("governance set the activation height to #{h}"),
                None => "governance cleared the activation height".into(),
            }),
            (UiCommand::Snapshot, Answer::Snapshot(id)) => CommandOutcome::SnapshotTaken(id),
            (UiCommand::Revert(id), Answer::Height(height)) => {
                CommandOutcome::Reverted { id: *id, height }
            }
            (UiCommand::DraftTimer(r), Answer::Registered(id, false)) => applied(format!(
                "client_nonce {} repeated: updated {} {}",
                r.client_nonce.unwrap_or(0),
                if r.interval {
                    "interval timer"
                } else {
                    "state watch"
                },
                id.short()
            )),
            (UiCommand::DraftTimer(r), Answer::Registered(id, true)) => applied(if r.interval {
                format!(
                    "registered interval timer {} (every {} blocks)",
                    id.short(),
                    r.every.unwrap_or(0)
                )
            } else {
                format!(
                    "registered state watch {} on {}",
                    id.short(),
                    r.keys.join(", ")
                )
            }),
            (cmd, answer) => applied(format!("{}: {answer:?}", cmd.method())),
        }
    }
}

/// A rejected command: the spec's error name and a message a person can act on. Nothing
/// changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}: {message}")]
pub struct CommandError {
    pub reason: String,
    pub message: String,
}

impl CommandError {
    pub fn new(reason: impl Into<String>, message: impl Into<String>) -> Self {
        CommandError {
            reason: reason.into(),
            message: message.into(),
        }
    }

    /// A typed failure: its kind names the reason, as `data.reason` does over JSON-RPC.
    pub fn from_failure(f: &crate::engine::error::Failure) -> Self {
        CommandError::new(f.kind.as_str(), f.message.clone())
    }
}

/// What the dashboard needs from a devnet: the replies to the node's read requests and
/// commands with typed replies. A source is a transport and nothing more: it runs the queries
/// of [`crate::tui::view`] in-process ([`LocalDevnet`](crate::tui::local::LocalDevnet)) or sends
/// them as batched JSON-RPC ([`RemoteDevnet`](crate::tui::remote::RemoteDevnet)) and hands back
/// the typed replies; the view is assembled from them by the provided methods
/// ([`dashboard`](Self::dashboard), [`events`](Self::events), [`timer_life`](Self::timer_life)),
/// which no source overrides.
///
/// The dashboard calls a source from a thread of its own ([`crate::tui::worker`]), never from
/// a key handler or a draw, so a query or command may take as long as the node or the network
/// takes; a source whose devnet is unreachable answers with its last replies and says so in
/// [`link`](DashboardSource::link).
pub trait DashboardSource {
    /// The replies to one refresh's queries ([`ViewQuery::queries`], then
    /// [`deferred_query`](crate::tui::view::deferred_query)); `None` when the devnet never
    /// answered.
    fn replies(&mut self, q: &ViewQuery) -> Option<QueryReplies>;
    /// Event records of sealed blocks at heights `from_height..`, oldest first, at most
    /// `limit` (the newest ones when there are more).
    fn event_records(&mut self, from_height: u64, limit: usize) -> Vec<crate::chain::EventRecord>;
    /// The replies to a timer's life queries ([`life_queries`](crate::tui::view::life_queries))
    /// as of sealed block `at` (`None`: the head).
    fn life_replies_at(&mut self, id: &TimerId, at: Option<u64>) -> Option<LifeReplies>;
    /// [`life_replies_at`](Self::life_replies_at) the head.
    fn life_replies(&mut self, id: &TimerId) -> Option<LifeReplies> {
        self.life_replies_at(id, None)
    }
    /// What the source knows itself: the API address it shows, the labels it was given, with
    /// the node's names as of the last refresh.
    fn info(&self) -> SourceInfo;
    /// Applies a command.
    fn execute(&mut self, cmd: UiCommand) -> Result<CommandOutcome, CommandError>;
    /// Lets time pass (the interval miner of an in-process node); true when blocks were sealed.
    /// Sources whose node keeps its own time ignore it.
    fn tick(&mut self, _now: Instant) -> bool {
        false
    }
    /// When [`tick`](Self::tick) next has something to do.
    fn next_deadline(&self) -> Option<Instant> {
        None
    }
    /// Notifications the source lost since the last call because it fell behind (shown as
    /// "N events dropped").
    fn take_dropped(&mut self) -> u64 {
        0
    }
    /// How the link to the devnet stands when it is not well (`"disconnected, retrying: ..."`),
    /// shown in the status bar; `None` while it answers. An in-process node is always there.
    fn link(&self) -> Option<String> {
        None
    }

    /// One refresh: status, buckets, tiers, lane, fairness, names, assembled from
    /// [`replies`](Self::replies) by [`crate::tui::view::assemble`].
    fn dashboard(&mut self, q: &ViewQuery) -> DashboardData {
        match self.replies(q) {
            Some(r) => crate::tui::view::assemble(&r, q, &self.info()),
            None => DashboardData::default(),
        }
    }
    /// Events of sealed blocks at heights `from_height..` as feed rows.
    fn events(&mut self, from_height: u64, limit: usize) -> Vec<EventRow> {
        let records = self.event_records(from_height, limit);
        crate::tui::view::event_rows(&self.info().names, &records)
    }
    /// A timer's record and timeline as of sealed block `at` (`None`: the head); `None` when
    /// the id is unknown then.
    fn timer_life_at(&mut self, id: &TimerId, at: Option<u64>) -> Option<TimerLife> {
        let r = self.life_replies_at(id, at)?;
        crate::tui::view::timer_life(&r, &self.info().names)
    }
    /// [`timer_life_at`](Self::timer_life_at) the head.
    fn timer_life(&mut self, id: &TimerId) -> Option<TimerLife> {
        self.timer_life_at(id, None)
    }
    /// A timer's payload as of sealed block `at` (issue 34, item 3: the raw view of a timer
    /// that left reads it as of the block before it left): `Ok(None)` when it had none then,
    /// `Err` with the node's error name first (`HistoryPruned: ...`) when the read failed.
    fn payload_at(&mut self, id: &TimerId, at: u64) -> Result<Option<Vec<u8>>, String> {
        let r = self
            .life_replies_at(id, Some(at))
            .ok_or_else(|| format!("the node did not answer the timer as of #{at}"))?;
        Ok(r.timer.and_then(|t| t.payload))
    }

    /// A page of `timer_list` (issue 32: the timer finder), at the head; `None` when the
    /// devnet did not answer. Sources without a node give nothing.
    /// The trace of a timer's last fire (issue 32): kept, or rebuilt by the node's replay.
    fn fire_trace(&mut self, _id: &TimerId) -> Result<Vec<crate::chain::trace::Trace>, String> {
        Err("this source has no traces".into())
    }

    fn timer_page(&mut self, _q: &crate::node::TimersPageQuery) -> Option<crate::node::TimerPage> {
        None
    }

    // --- issue 23 (branch dash) ---
    /// The story of a fixture played along the node (steps, expectations, timer labels)
    /// reported since the last call; sources with none give nothing.
    fn take_story(&mut self) -> Vec<crate::tui::story::StoryItem> {
        Vec::new()
    }
}
