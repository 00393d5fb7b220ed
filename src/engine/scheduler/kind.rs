//! The registry's vocabulary (issue 29, "Schedulers as plug-ins"): the scheduler's key
//! ([`SchedulerKind`]), the entry each policy module writes about itself ([`Descriptor`]) and
//! the facts the chain, the node, the reports and the dashboard ask a policy for instead of
//! naming it ([`Facts`], [`Activation`], [`Weights`], [`FireBound`], [`GovSection`], [`Needs`]).
//!
//! A leaf: it imports nothing of the crate. The registry itself (the one list of the five, and
//! everything derived from it: names, `FromStr`, serde, the CLI's and OpenRPC's value lists) is
//! `policy/registry.rs`; each descriptor lives beside its policy.

/// Which scheduler orders the lane: the registry's key. Its spelling, summary and facts come
/// from the policy's [`Descriptor`] (`SchedulerKind::descriptor`, `as_str`, `facts`), and
/// serde and the CLI spell it as the registry's `name`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SchedulerKind {
    #[default]
    Fifo,
    Eip1559,
    Cip1V1,
    Cip5Draft,
    Cip5DraftZh,
}

/// One registry entry, written by the policy's module. `P` is the policy trait object
/// (`dyn Policy`), left generic so this leaf does not import the trait.
pub struct Descriptor<P: ?Sized + 'static> {
    pub kind: SchedulerKind,
    /// The CLI, serde and OpenRPC spelling.
    pub name: &'static str,
    /// One line for `--help` and `cowboy-devnet variants`.
    pub summary: &'static str,
    /// The spec document it implements (`../shared/spec/`).
    pub spec: &'static str,
    pub facts: Facts,
    /// The governance config sections `gov_updateSchedulerConfig` takes under it.
    pub governance: &'static [GovSection],
    /// The named variants (`Variants`, `CATALOG` names) that change what it does.
    pub variants: &'static [&'static str],
    pub needs: Needs,
    pub policy: &'static P,
}

/// What a scheduler has and how it shows, as typed data (issue 29: a capability query, not a
/// policy's name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The CIP-5 drafts' features: state watches, the Globalbox / Mailbox, the per-block and
    /// per-target fire quotas, `client_nonce`, the drafts' governance parameters.
    pub drafts: bool,
    /// Interval timers (`set_interval`) and `fifo_rank`, raised by an update (zh §7.2, §8).
    pub intervals: bool,
    /// The English draft's Globalbox with its frozen order (English §5.3), as opposed to the
    /// zh draft's candidates re-sorted every block.
    pub globalbox: bool,
    /// CIP-1 v3 §5's lane basefee moves after each block it plans.
    pub lane_basefee: bool,
    /// The fire-time p50 tip (CIP-1 v3 §7.1) is a figure of its blocks.
    pub tips: bool,
    /// A fire's budget is capped by `max_cycles_per_fire_auction` (CIP-1 v3 §10).
    pub auction_cap: bool,
    /// What W(actor) is under it.
    pub weights: Weights,
    /// What bounds the fires of one block.
    pub bound: FireBound,
    /// Its part in an activation (CIP-1 v3 §13.2).
    pub activation: Activation,
}

/// A scheduler's part in an activation (CIP-1 v3 §13.2, Spec note 49).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// It plans the blocks below the activation height (and is the genesis default).
    Before,
    /// The activation height switches to it; named as the genesis scheduler without a height,
    /// it plans from height 1 (contract decision 8).
    After,
    /// It plans every block; an activation height does not apply.
    Alone,
}

/// W(actor) under a scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weights {
    /// No per-actor weight.
    None,
    /// CIP-1 v3 §8: W in [1, 2] over the fairness window of recent fires and deferrals.
    Window,
    /// CIP-1 v1 §3 "Priority Weight": per-actor EMA weights in `[weight_min, weight_max]`.
    Ema,
}

/// What bounds the fires of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FireBound {
    /// `LANE_TIMER_CYCLES`: the fires' cycles never exceed the lane.
    LaneCycles,
    /// CIP-1 v1 §3 d (ii): the lane's reserved budgets in per-actor slices.
    LaneSlices,
    /// The drafts' `MAX_FIRES_PER_BLOCK` and `MAX_FIRES_PER_TARGET` (no lane).
    FireQuota,
}

/// A governance config section (`gov_updateSchedulerConfig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GovSection {
    /// The CIP-1 v3 parameters (`SchedulerParams`: tiers, fairness window, auction cap, lane).
    Cip1V3,
    /// The CIP-5 drafts' parameters (English §12, zh §13, `DraftParams::FIELDS`).
    Draft,
}

/// What a scheduler needs from the node and the chain beyond the calendar queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// The drafts' persistent state (`DraftState`): the engine plans through `plan_with_state` and
    /// ends the block with `after_fires`.
    pub draft_state: bool,
    /// The CIP-1 state's per-block update (`Cip1State`'s lane, tips, weights).
    pub cip1_state: bool,
}
