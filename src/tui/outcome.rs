//! A command's typed answer ([`CommandOutcome`], built once from the transport's [`Answer`])
//! and the schedule form's estimate ([`Estimate`]).

use super::command::UiCommand;
use super::data::{CommandError, MiningMode, fmt_nanos, fmt_w};
use super::draft_request::DraftEstimateView;
use crate::engine::scheduler::kind::Weights;
use crate::engine::{AuctionEstimate, TimerId};

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
    let sel = if !funded {
        "would be removed unfunded"
    } else if a.would_be_selected {
        "would run"
    } else {
        "would be deferred"
    };
    // A scheduler without tips ranks a timer by queue order alone; the others show the
    // auction's figures, under the name of the scheduler that orders the fire's block.
    if !a.scheduler.facts().tips {
        return format!("{}: #{} in its bucket, {sel}", a.scheduler, a.rank);
    }
    // CIP-1 v1 orders by the tip, its EMA weight breaking ties, against the cycle basefee (no
    // lane basefee); CIP-1 v3 by the priority × W against the lane basefee.
    let facts = a.scheduler.facts();
    let basefee = if facts.lane_basefee {
        "lane basefee"
    } else {
        "basefee"
    };
    let standing = match facts.weights {
        Weights::Ema => format!(
            "tip {} · weight {}",
            fmt_nanos(a.priority_per_cycle),
            fmt_w(a.weight_bps)
        ),
        _ => format!(
            "priority {} × W {}",
            fmt_nanos(a.priority_per_cycle),
            fmt_w(a.weight_bps)
        ),
    };
    format!(
        "{}: rank {} of {} due, {sel} · {basefee} {} · {standing}",
        a.scheduler,
        a.rank,
        a.due_at_height + 1,
        fmt_nanos(a.lane_basefee),
    )
}

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
    /// The transactions a drop removed (issue 32): the one asked for, then the later ones
    /// that no longer applied without it.
    Dropped(Vec<crate::engine::H256>),
    /// A call's receipt (issue 32: the call prompt): a handler that failed is a receipt with
    /// `success: false`, not an error.
    Receipt(Box<crate::chain::Receipt>),
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
            (UiCommand::DropTransaction(_), Answer::Dropped(d)) => applied(dropped_text(&d)),
            (UiCommand::CallActor(c), Answer::Receipt(r)) => applied(receipt_text(c, &r)),
            (cmd, answer) => applied(format!("{}: {answer:?}", cmd.method())),
        }
    }
}

/// A call's receipt for the status line (issue 32): the handler, whether it succeeded (or its
/// error), the transaction, cycles and fee.
fn receipt_text(c: &super::command::CallRequest, r: &crate::chain::Receipt) -> String {
    let how = match (&r.error, r.success) {
        (_, true) => "succeeded".to_string(),
        (Some(e), false) => format!("reverted: {e}"),
        (None, false) => "reverted".to_string(),
    };
    format!(
        "actor_call {}: {how} · tx {}… · cycles {} · cells {} · fee {} nanos",
        c.handler,
        &r.tx_hash.to_string()[..10],
        r.cycles_used,
        r.cells_used,
        r.fee
    )
}

/// What a drop removed, for the status line (issue 32): the transaction asked for, and the
/// later ones that no longer applied without it.
fn dropped_text(d: &[crate::engine::H256]) -> String {
    let short = |h: &crate::engine::H256| h.to_string()[..10].to_string();
    match d.split_first() {
        None => "dropped nothing".into(),
        Some((first, [])) => format!("dropped transaction {}…", short(first)),
        Some((first, rest)) => format!(
            "dropped transaction {}… and {} later ones that no longer applied without it: {}",
            short(first),
            rest.len(),
            rest.iter()
                .map(|h| format!("{}…", short(h)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
