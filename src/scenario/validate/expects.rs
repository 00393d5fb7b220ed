//! The checks of a fixture's expectations (moved out of `validate.rs`).

use super::{Check, ElemErr, joined};
use crate::engine::{EventKind, TimerStatus};
use crate::scenario::fixture::{Expect, FixtureError, Metric};

impl Check<'_> {
    pub(super) fn expect(&self, x: &Expect, err: &ElemErr<'_>) -> Result<(), FixtureError> {
        let kinds = [
            x.kind.is_some(),
            x.balance_of.is_some(),
            x.status.is_some(),
            x.metric.is_some(),
            x.state_root.is_some(),
            x.trace.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(err(
                "kind",
                "give exactly one of `kind`, `balance_of`, `status`, `metric`, `state_root` or `trace`"
                    .into(),
            ));
        }
        super::trace_expect::check(x, err)?;
        let compares = [&x.above_at, &x.below_at].iter().any(|c| c.is_some())
            || [&x.above_actor, &x.below_actor].iter().any(|c| c.is_some());
        if compares && x.metric.is_none() {
            return Err(err(
                "metric",
                "`above_at`, `below_at`, `above_actor` and `below_actor` compare a `metric`".into(),
            ));
        }
        if let Some(m) = &x.metric {
            self.metric_expect(m, x, err)?;
        }
        if let Some(r) = &x.state_root {
            if r.parse::<crate::engine::H256>().is_err() {
                return Err(err(
                    "state_root",
                    format!("`{r}` is not a 32-byte hex root"),
                ));
            }
            if x.at.is_none() {
                return Err(err(
                    "at",
                    "a state_root expectation names its height `at`".into(),
                ));
            }
        }
        if let Some(t) = &x.timer
            && !t.starts_with("0x")
            && !self.labels.contains_key(t)
        {
            return Err(err("timer", format!("no step labels a timer `{t}`")));
        }
        if let Some(a) = &x.actor
            && !self.names.contains_key(a)
        {
            return Err(err("actor", format!("unknown actor `{a}`")));
        }
        if let Some(b) = &x.balance_of {
            if !self.names.contains_key(b) {
                return Err(err("balance_of", format!("unknown account `{b}`")));
            }
            if x.equals.is_none() && x.at_least.is_none() && x.at_most.is_none() {
                return Err(err(
                    "equals",
                    "a balance expectation needs `equals`, `at_least` or `at_most`".into(),
                ));
            }
        }
        if let Some(s) = &x.status {
            if s.parse::<TimerStatus>().is_err() {
                return Err(err(
                    "status",
                    format!("`{s}` is not one of {}", joined(TimerStatus::ALL)),
                ));
            }
            if x.timer.is_none() {
                return Err(err("timer", "a status expectation names a `timer`".into()));
            }
        }
        if let Some(k) = &x.kind
            && k.parse::<EventKind>().is_err()
        {
            return Err(err(
                "kind",
                format!(
                    "unknown event kind `{k}` (known: {})",
                    joined(EventKind::ALL)
                ),
            ));
        }
        if x.count.is_some() && (x.min.is_some() || x.max.is_some()) {
            return Err(err(
                "count",
                "give `count`, or `min` and/or `max`, not both".into(),
            ));
        }
        if let (Some(min), Some(max)) = (x.min, x.max)
            && min > max
        {
            return Err(err("min", format!("min {min} is above max {max}")));
        }
        Ok(())
    }

    /// A `metric` expectation: a known figure; a block figure has `at` and compares with
    /// earlier heights only, an actor figure names its `actor` and compares with other actors;
    /// at least one bound or comparison.
    fn metric_expect(&self, m: &str, x: &Expect, err: &ElemErr<'_>) -> Result<(), FixtureError> {
        let Some(metric) = Metric::parse(m) else {
            let names: Vec<&str> = Metric::ALL.iter().map(|(n, _)| *n).collect();
            return Err(err(
                "metric",
                format!("unknown metric `{m}` (known: {})", names.join(", ")),
            ));
        };
        if x.equals.is_none()
            && x.at_least.is_none()
            && x.at_most.is_none()
            && x.above_at.is_none()
            && x.below_at.is_none()
            && x.above_actor.is_none()
            && x.below_actor.is_none()
        {
            return Err(err(
                "metric",
                "a metric expectation needs `equals`, `at_least`, `at_most`, `above_*` or `below_*`"
                    .into(),
            ));
        }
        if metric.of_block() {
            let Some(at) = x.at else {
                return Err(err(
                    "at",
                    format!("`{m}` is a block's: give the block `at`"),
                ));
            };
            for (key, v) in [("actor", &x.actor), ("above_actor", &x.above_actor)]
                .into_iter()
                .chain([("below_actor", &x.below_actor)])
            {
                if v.is_some() {
                    return Err(err(key, format!("`{m}` is a block's, not an actor's")));
                }
            }
            for (key, h) in [("above_at", x.above_at), ("below_at", x.below_at)] {
                if let Some(h) = h
                    && (h == 0 || h >= at)
                {
                    return Err(err(
                        key,
                        format!("compares with an earlier block: 1..{at}, got {h}"),
                    ));
                }
            }
        } else {
            if x.actor.is_none() {
                return Err(err(
                    "actor",
                    format!("`{m}` is an actor's: name the `actor`"),
                ));
            }
            for (key, v) in [("above_at", x.above_at), ("below_at", x.below_at)] {
                if v.is_some() {
                    return Err(err(
                        key,
                        format!("`{m}` is an actor's: compare with `above_actor`/`below_actor`"),
                    ));
                }
            }
            for (key, v) in [
                ("above_actor", &x.above_actor),
                ("below_actor", &x.below_actor),
            ] {
                if let Some(a) = v
                    && !self.names.contains_key(a)
                {
                    return Err(err(key, format!("unknown actor `{a}`")));
                }
            }
        }
        Ok(())
    }
}
