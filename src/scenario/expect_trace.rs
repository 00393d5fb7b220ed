//! `trace` expectations (issue 32), checked at the end of a run against the traces of the
//! handler runs it names: a timer's fires or an actor's runs, at one block or any.

use super::fixture::Expect;
use super::report::ExpectationResult;
use super::runner::{PreparedExpect, Scenario};
use crate::chain::trace::{Trace, TraceOf, TraceStep};
use crate::engine::TimerId;
use crate::node::NodeCore;
use serde_json::Value;
use std::collections::BTreeMap;

/// Whether step `s` is the call `e` names, with its key and value.
fn step_matches(e: &Expect, s: &TraceStep) -> bool {
    let call = e.trace.as_deref().unwrap_or_default();
    match s {
        TraceStep::Print { line } => {
            call == "print" && e.value.as_deref().is_none_or(|v| line.contains(v))
        }
        TraceStep::Call { call: c, args, .. } => {
            let text = |v: &Value| v.as_str().map(str::to_string);
            c == call
                && e.key
                    .as_deref()
                    .is_none_or(|k| text(&args["key"]).as_deref() == Some(k))
                && e.value
                    .as_deref()
                    .is_none_or(|v| text(&args["new"]).as_deref() == Some(v))
        }
    }
}

fn describe(e: &Expect) -> String {
    if let Some(d) = &e.description {
        return d.clone();
    }
    let mut s = format!("trace: {}", e.trace.as_deref().unwrap_or_default());
    if let Some(k) = &e.key {
        s += &format!(" of `{k}`");
    }
    if let Some(v) = &e.value {
        s += &format!(" = `{v}`");
    }
    match (&e.timer, &e.actor) {
        (Some(t), _) => s += &format!(" in the fires of {t}"),
        (None, Some(a)) => s += &format!(" in the runs of {a}"),
        _ => {}
    }
    if let Some(h) = e.at {
        s += &format!(" at {h}");
    }
    s
}

impl Scenario {
    /// The `trace` expectations' results, from the traces `devnet` kept.
    pub(super) fn check_traces(
        &self,
        devnet: &NodeCore,
        labels: &BTreeMap<String, TimerId>,
    ) -> Vec<ExpectationResult> {
        let expects: Vec<&PreparedExpect> = self
            .expects
            .iter()
            .filter(|p| p.expect.trace.is_some())
            .collect();
        if expects.is_empty() {
            return Vec::new();
        }
        let kept = devnet.kept_traces();
        let traces: Vec<&Trace> = kept.iter().flat_map(|b| b.iter()).collect();
        expects
            .into_iter()
            .map(|pe| self.check_trace(pe, &traces, labels))
            .collect()
    }

    fn check_trace(
        &self,
        pe: &PreparedExpect,
        traces: &[&Trace],
        labels: &BTreeMap<String, TimerId>,
    ) -> ExpectationResult {
        let e = &pe.expect;
        let timer = e.timer.as_deref().map(|t| self.resolve_timer(t, labels));
        let actor = e.actor.as_deref().and_then(|a| self.address(a));
        let runs: Vec<&&Trace> = traces
            .iter()
            .filter(|t| e.at.is_none_or(|h| t.height == h))
            .filter(|t| actor.is_none_or(|a| t.actor == a))
            .filter(|t| {
                timer.is_none_or(|id| {
                    matches!((&t.of, id), (TraceOf::Fire { timer_id }, Some(id)) if *timer_id == id)
                })
            })
            .collect();
        let n = runs
            .iter()
            .flat_map(|t| t.steps.iter())
            .filter(|s| step_matches(e, s))
            .count() as u64;
        let passed = super::expect::count_holds(e, n);
        ExpectationResult {
            line: pe.line,
            description: describe(e),
            passed,
            detail: format!("{n} matching step(s) in {} traced run(s)", runs.len()),
        }
    }
}
