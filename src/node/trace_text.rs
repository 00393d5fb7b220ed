//! A trace in words (issue 32): the lines `run --trace` prints, one per host call or printed
//! line under a header naming the run, its outcome and its cycles.

use crate::chain::trace::{Trace, TraceOf, TraceStep};
use crate::engine::Address;
use serde_json::Value;
use std::collections::BTreeMap;

/// A JSON value short: strings bare, the rest as JSON, cut to 60 characters.
fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Null => "none".into(),
        v => v.to_string(),
    };
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// A call's arguments as `k=v` pairs (a storage write as `key: old → new`).
fn args(call: &str, a: &Value) -> String {
    if matches!(call, "storage_set" | "storage_remove") {
        return format!(
            "{}: {} → {}",
            short(&a["key"]),
            short(&a["old"]),
            short(&a["new"])
        );
    }
    match a.as_object() {
        Some(o) => o
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| format!("{k}={}", short(v)))
            .collect::<Vec<_>>()
            .join(" "),
        None => short(a),
    }
}

/// The trace's lines: a header, then each step indented.
pub fn trace_lines(t: &Trace, book: &BTreeMap<Address, String>) -> Vec<String> {
    let who = book
        .get(&t.actor)
        .cloned()
        .unwrap_or_else(|| format!("{}…", &t.actor.to_string()[..10]));
    let what = match &t.of {
        TraceOf::Tx { tx_hash, index } => format!("tx {}… (#{index})", &tx_hash.to_string()[..10]),
        TraceOf::Fire { timer_id } => format!("fire of timer {}", timer_id.short()),
        TraceOf::Bid { timer_id } => format!("bid of timer {}", timer_id.short()),
    };
    let host: u64 = t
        .steps
        .iter()
        .map(|s| match s {
            TraceStep::Call { cycles, .. } => *cycles,
            TraceStep::Print { .. } => 0,
        })
        .sum();
    let outcome = match (&t.end.error, t.end.at) {
        (None, _) => "ok".to_string(),
        (Some(e), Some((l, c))) => format!("failed at line {l}, column {c}: {e}"),
        (Some(e), None) => format!("failed: {e}"),
    };
    let mut out = vec![format!(
        "#{} {what}: {who}.{} {outcome} · {} cycles (before {} + script {} + host calls {host})",
        t.height, t.entry, t.cycles_end, t.cycles_start, t.script_cycles
    )];
    for s in &t.steps {
        out.push(match s {
            TraceStep::Print { line } => format!("    | {line}"),
            TraceStep::Call {
                call,
                args: a,
                result,
                cycles,
                cells,
                error,
            } => {
                let ans = match (error, result) {
                    (Some(e), _) => format!(" ✗ {e}"),
                    (None, Value::Null) => String::new(),
                    (None, r) => format!(" = {}", short(r)),
                };
                let cells = if *cells > 0 {
                    format!(", {cells} cells")
                } else {
                    String::new()
                };
                format!(
                    "    {call}({}){ans}  [{cycles} cycles{cells}]",
                    args(call, a)
                )
            }
        });
    }
    if let Some(f) = &t.end.failed_in {
        out.push(format!("    failed in {f}"));
    }
    if let (Some(src), Some((l, c))) = (&t.end.source_line, t.end.at) {
        out.push(format!("    failed at line {l}:"));
        out.push(format!("    {l:>4} | {src}"));
        // A caret under the column (Rhai counts positions from 1).
        let col = (c as usize).saturating_sub(1).min(src.chars().count());
        out.push(format!("         | {}^", " ".repeat(col)));
    }
    out
}
