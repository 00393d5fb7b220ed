//! The expectations of a fixture, checked against the events and the state of a run.

use super::fixture::{Expect, Metric};
use super::report::ExpectationResult;
use super::runner::{PreparedExpect, Run, Scenario, weight_bps};
use crate::chain::{Chain, Event, EventRecord};
use crate::engine::{EventKind, TimerEvent, TimerId, TimerStatus};
use std::collections::BTreeMap;

impl Scenario {
    pub(super) fn resolve_timer(
        &self,
        t: &str,
        labels: &BTreeMap<String, TimerId>,
    ) -> Option<TimerId> {
        if t.starts_with("0x") {
            t.parse().ok()
        } else {
            labels.get(t).copied()
        }
    }

    pub(super) fn check_events(
        &self,
        pe: &PreparedExpect,
        labels: &BTreeMap<String, TimerId>,
        events: &[EventRecord],
    ) -> ExpectationResult {
        let e = &pe.expect;
        let kind: EventKind = e
            .kind
            .as_deref()
            .expect("event expectation")
            .parse()
            .expect("validated");
        let timer = e.timer.as_deref().map(|t| self.resolve_timer(t, labels));
        let actor = e.actor.as_deref().and_then(|a| self.address(a));
        let n = events
            .iter()
            .filter(|r| r.event.kind() == kind)
            .filter(|r| e.at.is_none_or(|h| r.height == h))
            .filter(|r| timer.is_none_or(|t| t.is_some() && r.event.timer_id() == t))
            .filter(|r| actor.is_none_or(|a| r.event.actor() == Some(a)))
            .count() as u64;
        let passed = count_holds(e, n);
        ExpectationResult {
            line: pe.line,
            description: describe(e),
            passed,
            detail: format!("{n} matching event(s)"),
        }
    }

    pub(super) fn check_state(
        &self,
        pe: &PreparedExpect,
        chain: &Chain,
        run: &Run,
    ) -> ExpectationResult {
        let (labels, events) = (&run.labels, &run.events);
        let e = &pe.expect;
        let (passed, detail) = if let Some(m) = e.metric.as_deref().and_then(Metric::parse) {
            self.check_metric(e, m, chain, run)
        } else if let Some(root) = &e.state_root {
            let got = chain.state_root();
            let want: crate::engine::H256 = root.parse().expect("validated");
            (got == want, format!("state root is {got}"))
        } else if let Some(who) = &e.balance_of {
            let b = self.address(who).map_or(0, |a| chain.balance(&a));
            let ok = e.equals.is_none_or(|v| b == v.0)
                && e.at_least.is_none_or(|v| b >= v.0)
                && e.at_most.is_none_or(|v| b <= v.0);
            (ok, format!("balance is {b}"))
        } else {
            let want: TimerStatus = e
                .status
                .as_deref()
                .expect("status expectation")
                .parse()
                .expect("validated");
            let t = e.timer.as_deref().expect("validated");
            match self.resolve_timer(t, labels) {
                None => (false, format!("timer `{t}` was never scheduled")),
                Some(id) => {
                    let got = timer_status(id, chain, events);
                    let shown = got.map_or("unknown", TimerStatus::as_str);
                    (got == Some(want), format!("status is {shown}"))
                }
            }
        };
        ExpectationResult {
            line: pe.line,
            description: describe(e),
            passed,
            detail,
        }
    }
}

impl Scenario {
    /// A `metric` expectation: its value against the bounds and comparisons.
    fn check_metric(&self, e: &Expect, m: Metric, chain: &Chain, run: &Run) -> (bool, String) {
        let name = e.metric.as_deref().unwrap_or_default();
        let block = |h: u64| -> Result<u128, String> {
            let r = run
                .block_figures
                .get(&h)
                .ok_or_else(|| format!("no block was sealed at height {h}"))?;
            Ok(match m {
                Metric::LaneBasefee => r.lane_basefee,
                Metric::UtilisationBps => r.utilisation_bps.into(),
                Metric::P50Tip => r.p50_tip,
                Metric::Selected => r.selected.into(),
                _ => r.deferred.into(),
            })
        };
        let actor = |who: &str| -> Result<u128, String> {
            let a = self
                .address(who)
                .ok_or_else(|| format!("unknown actor `{who}`"))?;
            if m == Metric::WeightBps {
                // W of an address that is no deployed actor would read the 20,000 of an actor
                // silent for the window: named instead (issue 30).
                if chain.actor(&a).is_none() {
                    return Err(format!(
                        "`{who}` is not a deployed actor: it has no W(actor) (CIP-1 v3 §8)"
                    ));
                }
                return weight_bps(chain, &a)
                    .map(u128::from)
                    .ok_or_else(|| "the chain keeps no CIP-1 v3 §8 fairness window (fifo, or cip1-v1 and its EMA weights)".to_string());
            }
            let row = run.tally.row(&a);
            Ok(match (m, row) {
                (_, None) => 0,
                (Metric::Fires, Some(r)) => r.fires.into(),
                (Metric::Deferrals, Some(r)) => r.deferrals.into(),
                (Metric::LatencyP50, Some(r)) => r.latency_p50.into(),
                (Metric::LatencyP99, Some(r)) => r.latency_p99.into(),
                (Metric::LatencyMax, Some(r)) => r.latency_max.into(),
                (Metric::Fees, Some(r)) => r.fees,
                (_, Some(r)) => r.tips,
            })
        };
        let value = match (m.of_block(), e.at, e.actor.as_deref()) {
            (true, Some(h), _) => block(h),
            (false, _, Some(who)) => actor(who),
            _ => Err("validated".to_string()),
        };
        let v = match value {
            Ok(v) => v,
            Err(why) => return (false, why),
        };
        let mut ok = e.equals.is_none_or(|x| v == x.0)
            && e.at_least.is_none_or(|x| v >= x.0)
            && e.at_most.is_none_or(|x| v <= x.0);
        let mut detail = format!("{name} is {v}");
        let others = [
            (e.above_at.map(|h| (block(h), format!("at {h}"))), true),
            (e.below_at.map(|h| (block(h), format!("at {h}"))), false),
            (
                e.above_actor
                    .as_deref()
                    .map(|a| (actor(a), format!("of {a}"))),
                true,
            ),
            (
                e.below_actor
                    .as_deref()
                    .map(|a| (actor(a), format!("of {a}"))),
                false,
            ),
        ];
        for (other, above) in others {
            let Some((w, what)) = other else { continue };
            match w {
                Ok(w) => {
                    ok &= if above { v > w } else { v < w };
                    detail += &format!(", {w} {what}");
                }
                Err(why) => return (false, why),
            }
        }
        (ok, detail)
    }
}

/// Whether `n` matches satisfy `e`'s `count`, or `min` (default 1) and `max`: the event and
/// the trace expectations count the same way.
pub(super) fn count_holds(e: &Expect, n: u64) -> bool {
    match (e.count, e.min, e.max) {
        (Some(c), _, _) => n == c,
        (None, min, max) => n >= min.unwrap_or(1) && max.is_none_or(|m| n <= m),
    }
}

/// The expectation in words, for the report.
fn describe(e: &Expect) -> String {
    if let Some(d) = &e.description {
        return d.clone();
    }
    let mut s = String::new();
    if let Some(k) = &e.kind {
        s = match (e.count, e.min, e.max) {
            (Some(c), _, _) => format!("exactly {c} {k}"),
            (None, Some(m), Some(x)) => format!("{m}..={x} {k}"),
            (None, Some(m), None) => format!("at least {m} {k}"),
            (None, None, Some(x)) => format!("at most {x} {k}"),
            (None, None, None) => format!("a {k}"),
        };
    }
    if let Some(b) = &e.balance_of {
        s = format!("balance of {b}");
        if let Some(v) = e.equals {
            s += &format!(" = {}", v.0);
        }
        if let Some(v) = e.at_least {
            s += &format!(" >= {}", v.0);
        }
        if let Some(v) = e.at_most {
            s += &format!(" <= {}", v.0);
        }
    }
    if let Some(st) = &e.status {
        s = format!("status {st}");
    }
    if let Some(r) = &e.state_root {
        s = format!("state root {r}");
    }
    if let Some(m) = &e.metric {
        s = m.clone();
        for (op, v) in [("=", e.equals), (">=", e.at_least), ("<=", e.at_most)] {
            if let Some(v) = v {
                s += &format!(" {op} {}", v.0);
            }
        }
        if let Some(h) = e.above_at {
            s += &format!(" above its value at {h}");
        }
        if let Some(h) = e.below_at {
            s += &format!(" below its value at {h}");
        }
        if let Some(a) = &e.above_actor {
            s += &format!(" above {a}'s");
        }
        if let Some(a) = &e.below_actor {
            s += &format!(" below {a}'s");
        }
    }
    if let Some(t) = &e.timer {
        s += &format!(" for timer {t}");
    }
    if let Some(a) = &e.actor {
        s += &format!(" for actor {a}");
    }
    if let Some(h) = e.at {
        s += &format!(" at height {h}");
    }
    s
}

/// A timer's status as of the events seen so far; `None` if neither the queue nor the events
/// know the timer.
pub fn timer_status(id: TimerId, chain: &Chain, events: &[EventRecord]) -> Option<TimerStatus> {
    if chain.timer(&id).is_some() {
        return Some(TimerStatus::Pending);
    }
    for r in events
        .iter()
        .rev()
        .filter(|r| r.event.timer_id() == Some(id))
    {
        if let Event::Timer(t) = &r.event {
            match t {
                TimerEvent::TimerFired { .. } => return Some(TimerStatus::Fired),
                TimerEvent::TimerExpired { .. } => return Some(TimerStatus::Expired),
                TimerEvent::TimerCancelledInsufficientFunds { .. } => {
                    return Some(TimerStatus::Unfunded);
                }
                TimerEvent::TimerCancelled { .. } => return Some(TimerStatus::Cancelled),
                TimerEvent::TimerCancelledByGovernance { existed: true, .. } => {
                    return Some(TimerStatus::CancelledByGovernance);
                }
                _ => {}
            }
        }
    }
    None
}
