//! What a hunt makes as bad as it can (issue 33, "What is measured"): a built-in measure of the
//! victim, or an expression over the run's metrics ("A measure can also be an expression over
//! the report's metrics").
//!
//! Every measure is read from one table of metrics ([`Metrics`]), built once per run from the
//! report. An expression is Rhai, compiled as an expression (no statements, no loops), over
//! integers only (the crate's Rhai has no floats), with an operation limit; its result is the
//! measure, a negative result counting as 0 (the hunt maximises a non-negative figure).
//! An expression that fails on a run (a division by zero) scores that run 0.

use super::error::HuntError;
use crate::scenario::report::Report;
use std::sync::{Arc, OnceLock};

/// The metrics of one run a measure reads: the victim's, then the run's.
pub const METRICS: [(&str, &str); 19] = [
    ("fires", "the victim's fires"),
    ("fires_lost", "its fires with no adversary, minus its fires"),
    ("latency_p50", "its fire latency, median (blocks)"),
    (
        "latency_p99",
        "its fire latency, 99th percentile (nearest rank)",
    ),
    ("latency_max", "its largest fire latency"),
    ("fees", "what it paid for its fires (base units)"),
    ("tips", "the part of its fees paid as priority tips"),
    ("deferrals", "its deferral events"),
    (
        "weight_bps",
        "W(victim) at the end, basis points (0 where none)",
    ),
    ("lane_share_bps", "its fires per 10,000 fires of the run"),
    (
        "lane_share_lost_bps",
        "10,000 minus lane_share_bps: the lane others took",
    ),
    ("fired", "every timer fired in the run"),
    ("deferred", "deferral events in the run"),
    ("expired", "timers expired in the run"),
    ("unfunded", "fires refused for want of funds"),
    ("pending", "timers pending at the end"),
    ("burned", "base units burned"),
    (
        "full_lane_blocks",
        "blocks where a live timer did not fit the lane",
    ),
    (
        "adversary_fees",
        "what the adversaries' bots paid for their fires",
    ),
];

/// The built-in measures: metrics a hunt may name alone.
pub const BUILT_IN: [&str; 7] = [
    "latency_p99",
    "latency_p50",
    "latency_max",
    "fires_lost",
    "fees",
    "weight_bps",
    "lane_share_lost_bps",
];

/// One run's metrics, in [`METRICS`] order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Metrics(pub Vec<u128>);

impl Metrics {
    /// The metrics of `r` for the victim's actors `victims` (an absent actor never fired nor
    /// was deferred: all 0), against the victim's fires with no adversary. Over several
    /// actors fires, fees, tips and deferrals add up; latencies and W are the largest.
    pub fn of(r: &Report, victims: &[String], baseline_fires: u64) -> Metrics {
        let rows: Vec<_> = r
            .actors
            .iter()
            .filter(|a| victims.contains(&a.actor))
            .collect();
        let sum = |f: fn(&crate::scenario::report::ActorRow) -> u128| {
            rows.iter().fold(0u128, |t, a| t.saturating_add(f(a)))
        };
        let max = |f: fn(&crate::scenario::report::ActorRow) -> u64| {
            rows.iter().map(|a| f(a)).max().unwrap_or(0)
        };
        let fires = sum(|a| a.fires.into()) as u64;
        // The victim's fires are among the run's: with none fired, fires and share are 0.
        let share = u128::from(fires) * 10_000 / u128::from(r.summary.fired.max(1));
        let s = &r.summary;
        let adversary_fees = r
            .actors
            .iter()
            .filter(|a| a.actor.starts_with("adv-"))
            .fold(0u128, |t, a| t.saturating_add(a.fees));
        Metrics(vec![
            fires.into(),
            baseline_fires.saturating_sub(fires).into(),
            max(|a| a.latency_p50).into(),
            max(|a| a.latency_p99).into(),
            max(|a| a.latency_max).into(),
            sum(|a| a.fees),
            sum(|a| a.tips),
            sum(|a| a.deferrals.into()),
            max(|a| a.weight_bps.unwrap_or(0).into()).into(),
            share,
            10_000 - share.min(10_000),
            s.fired.into(),
            s.deferred.into(),
            s.expired.into(),
            s.unfunded.into(),
            s.pending.into(),
            s.burned,
            s.full_lane_blocks.into(),
            adversary_fees,
        ])
    }

    pub fn get(&self, name: &str) -> u128 {
        METRICS
            .iter()
            .position(|(n, _)| *n == name)
            .and_then(|i| self.0.get(i).copied())
            .unwrap_or(0)
    }
}

/// A measure: a built-in metric, or an expression over the metrics.
#[derive(Debug, Clone)]
pub enum Measure {
    Metric(&'static str),
    Expr(Arc<Expression>),
}

/// A compiled measure expression and its text.
#[derive(Debug)]
pub struct Expression {
    pub text: String,
    ast: rhai::AST,
}

/// The one engine expressions run on: integer arithmetic, `min`/`max`/`abs`, no output, at
/// most 10,000 operations per evaluation.
fn engine() -> &'static rhai::Engine {
    static ENGINE: OnceLock<rhai::Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut e = rhai::Engine::new();
        e.set_max_operations(10_000)
            .set_max_expr_depths(32, 32)
            .set_max_string_size(256)
            .set_max_array_size(64)
            .set_max_map_size(64)
            .on_print(|_| {})
            .on_debug(|_, _, _| {});
        e
    })
}

fn scope(m: &Metrics) -> rhai::Scope<'static> {
    let mut s = rhai::Scope::new();
    for (i, (name, _)) in METRICS.iter().enumerate() {
        let v = m.0.get(i).copied().unwrap_or(0);
        s.push_constant(*name, i64::try_from(v).unwrap_or(i64::MAX));
    }
    s
}

impl Expression {
    /// Compiles `text` and tries it on metrics all 1: an unknown name, a syntax error or a
    /// result that is not an integer is refused now, before anything runs.
    fn compile(text: &str) -> Result<Expression, HuntError> {
        let unknown = |why: String| {
            HuntError::UnknownMeasure(format!(
                "`{text}`: {why} (a measure is one of {}, or an expression over {})",
                BUILT_IN.join(", "),
                METRICS.map(|(n, _)| n).join(", ")
            ))
        };
        let ast = engine()
            .compile_expression(text)
            .map_err(|e| unknown(format!("not an expression: {e}")))?;
        let x = Expression {
            text: text.to_string(),
            ast,
        };
        let ones = Metrics(vec![1; METRICS.len()]);
        let v: rhai::Dynamic = engine()
            .eval_ast_with_scope(&mut scope(&ones), &x.ast)
            .map_err(|e| match *e {
                rhai::EvalAltResult::ErrorVariableNotFound(n, _) => {
                    unknown(format!("`{n}` is not a metric"))
                }
                e => unknown(e.to_string()),
            })?;
        if !v.is_int() {
            return Err(unknown(format!(
                "it gives a {}, not an integer",
                v.type_name()
            )));
        }
        Ok(x)
    }

    fn eval(&self, m: &Metrics) -> u128 {
        engine()
            .eval_ast_with_scope::<i64>(&mut scope(m), &self.ast)
            .map_or(0, |v| u128::try_from(v).unwrap_or(0))
    }
}

impl Measure {
    /// A built-in name, else an expression over the metrics.
    pub fn parse(s: &str) -> Result<Measure, HuntError> {
        if let Some(n) = BUILT_IN.iter().find(|n| **n == s.trim()) {
            return Ok(Measure::Metric(n));
        }
        if s.trim().is_empty() {
            return Err(HuntError::UnknownMeasure("an empty measure".into()));
        }
        Ok(Measure::Expr(Arc::new(Expression::compile(s)?)))
    }

    pub fn as_str(&self) -> &str {
        match self {
            Measure::Metric(n) => n,
            Measure::Expr(x) => &x.text,
        }
    }

    /// The measure of a run's metrics.
    pub fn of(&self, m: &Metrics) -> u128 {
        match self {
            Measure::Metric(n) => m.get(n),
            Measure::Expr(x) => x.eval(m),
        }
    }
}
