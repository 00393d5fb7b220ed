//! Execution traces (issue 32, "Traces"): what one handler run did, in order.
//!
//! A [`Tracer`] wraps the run's [`Host`] and records every host call the code makes (its name,
//! its arguments, what it answered, the cycles and cells it charged), the storage writes with
//! the value they replaced, the `print` / `debug` lines, and the end: success, or the error
//! (a script error keeps Rhai's `line N, position M`). The cycles the runtime charges for the
//! script's own operations between host calls are summed as `script_cycles`, so the trace's
//! cycles add up to the receipt's (`cycles_end`).
//!
//! Tracing never changes a run: the tracer charges nothing itself, reads the replaced storage
//! value through [`Host::peek_storage`] (uncharged), and hands every call through unchanged. It
//! is off unless asked for (`--trace`, [`super::Chain::set_tracing`]): then the chain keeps the
//! traces of the handler runs it applies until the node takes them ([`super::Chain::take_traces`]).

use super::runtime::{ActorCode, ActorRuntime, Host, VmError};
use crate::chain::DraftTimerArgs;
use crate::engine::{Address, ScheduleArgs, TimerId};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Which run a trace is of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TraceOf {
    /// A transaction's call or deploy, by its hash and index in its block.
    Tx {
        tx_hash: crate::engine::H256,
        index: u32,
    },
    /// A timer's fire.
    Fire { timer_id: TimerId },
    /// A timer's custom GBA call (CIP-1 v3 §7.2, `get_gas_bid`), made when its height's
    /// auction prices it, before the block's fires; read-only.
    Bid { timer_id: TimerId },
}

impl TraceOf {
    /// The timer a fire's or a bid's trace is of.
    pub fn timer(&self) -> Option<&TimerId> {
        match self {
            TraceOf::Fire { timer_id } | TraceOf::Bid { timer_id } => Some(timer_id),
            TraceOf::Tx { .. } => None,
        }
    }
}

/// One step of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum TraceStep {
    /// A host call: its arguments, its answer (or error), the cycles and cells it charged.
    Call {
        call: String,
        args: Value,
        result: Value,
        cycles: u64,
        cells: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A line the script printed (`print` / `debug`).
    Print { line: String },
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEnd {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A script error's `(line, column)`, when Rhai gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<(u32, u32)>,
    /// The host call the run failed in, if it failed in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_in: Option<String>,
    /// The script's line that `at` names, as deployed (issue 32: the failing source line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_line: Option<String>,
}

/// One handler run, traced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    pub of: TraceOf,
    /// The actor whose code ran and the entry point.
    pub actor: Address,
    pub entry: String,
    /// The block height it ran in.
    pub height: u64,
    pub steps: Vec<TraceStep>,
    /// Cycles already charged when the code started (the base cycles of a fire or a
    /// transaction's own charges).
    pub cycles_start: u64,
    /// Cycles the runtime charged for the script's own operations (between host calls).
    pub script_cycles: u64,
    /// Cycles charged when the run ended: the receipt's `cycles_used`.
    pub cycles_end: u64,
    pub end: TraceEnd,
}

impl Trace {
    /// The compact form: host calls only (names, cycles, errors), no arguments or results.
    pub fn compact(&self) -> Value {
        let calls: Vec<Value> = self
            .steps
            .iter()
            .filter_map(|s| match s {
                TraceStep::Call {
                    call,
                    cycles,
                    error,
                    ..
                } => Some(match error {
                    Some(e) => json!({"call": call, "cycles": cycles, "error": e}),
                    None => json!({"call": call, "cycles": cycles}),
                }),
                TraceStep::Print { .. } => None,
            })
            .collect();
        json!({
            "of": self.of, "actor": self.actor, "entry": self.entry, "height": self.height,
            "calls": calls, "cycles_end": self.cycles_end, "end": self.end,
        })
    }
}

/// Where a traced run happens: what it is, whose code, which block.
#[derive(Clone, Debug)]
pub struct Site {
    pub of: TraceOf,
    pub actor: Address,
    pub height: u64,
}

/// Runs `entry(payload)` of `code` on `host`; with a `site`, traced, the trace left in `out`.
pub fn invoke(
    rt: &dyn ActorRuntime,
    code: &ActorCode,
    entry: &str,
    payload: &[u8],
    host: &mut dyn Host,
    traced: Option<(Site, &mut Option<Trace>)>,
) -> Result<(), VmError> {
    let Some((site, out)) = traced else {
        return rt.invoke(code, entry, payload, host);
    };
    let mut t = Tracer::new(host);
    let r = rt.invoke(code, entry, payload, &mut t);
    *out = Some(t.finish(site.of, site.actor, entry, site.height, &r));
    r
}

/// An act-as timer call (`timer_schedule`, `timer_cancel`, ... sent over RPC, issue 32 item 5);
/// with a `site`, traced as the host call the actor made (its entry the call's name).
pub fn act_as(
    ctx: &mut super::exec::ExecCtx<'_>,
    op: &super::TimerOp,
    traced: Option<(Site, &mut Option<Trace>)>,
) -> Result<(), VmError> {
    let Some((site, out)) = traced else {
        return super::block::act_as(ctx, op);
    };
    let actor = site.actor;
    let mut t = Tracer::new(ctx);
    let r = super::block::act_as_on(&mut t, &actor, op);
    let entry = format!("act_as {}", op_name(op));
    *out = Some(t.finish(site.of, actor, &entry, site.height, &r));
    r
}

/// A governance system instruction's trace (issue 32 item 5): it runs no code, so one step,
/// the instruction (its name and fields) and how it ended; `actor` is the sender.
pub fn system(
    site: Site,
    ins: &super::SystemInstruction,
    result: &Result<(), VmError>,
    cycles: u64,
) -> Trace {
    let args = serde_json::to_value(ins).unwrap_or(Value::Null);
    let name = args["op"].as_str().unwrap_or("system").to_string();
    let error = result.as_ref().err().map(|e| e.to_string());
    Trace {
        of: site.of,
        actor: site.actor,
        entry: format!("system {name}"),
        height: site.height,
        steps: vec![TraceStep::Call {
            call: name,
            args,
            result: Value::Null,
            cycles: 0,
            cells: 0,
            error: error.clone(),
        }],
        cycles_start: cycles,
        script_cycles: 0,
        cycles_end: cycles,
        end: TraceEnd {
            success: result.is_ok(),
            failed_in: error.as_ref().map(|_| "system".to_string()),
            error,
            at: None,
            source_line: None,
        },
    }
}

/// The host call an act-as operation makes.
fn op_name(op: &super::TimerOp) -> &'static str {
    use super::TimerOp::*;
    match op {
        ScheduleTimer(_) => "schedule_timer",
        CancelTimer { .. } => "cancel_timer",
        ExtendTimer { .. } => "extend_timer",
        SetStateWatch(_) => "set_state_watch",
        SetInterval(_) => "set_interval",
        WriteKey { .. } => "storage_set",
    }
}

impl Trace {
    /// The trace with the run's final outcome: a fatal host error the script swallowed still
    /// fails the run (`Chain::execute`), and the metered cycles are the receipt's.
    pub fn ended(mut self, result: &Result<(), VmError>, cycles: u64) -> Trace {
        self.cycles_end = cycles;
        if let Err(e) = result {
            self.end.success = false;
            let text = e.to_string();
            self.end.at = script_position(&text);
            self.end.error = Some(text);
        }
        self
    }
}

impl Trace {
    /// The trace with the line of `source` its failure points at (`end.at`, counted from 1 as
    /// Rhai counts), trimmed at its end; nothing for a run that did not fail at a line.
    pub fn with_source(mut self, source: &str) -> Trace {
        self.end.source_line = self.end.at.and_then(|(line, _)| {
            let i = usize::try_from(line).ok()?.checked_sub(1)?;
            source.lines().nth(i).map(|l| l.trim_end().to_string())
        });
        self
    }
}

/// The most steps one trace keeps; past it the trace says how many it dropped.
pub const MAX_TRACE_STEPS: usize = 4_096;

/// A [`Host`] that records what the code asks of the one it wraps.
pub struct Tracer<'h> {
    inner: &'h mut dyn Host,
    steps: Vec<TraceStep>,
    dropped: u64,
    cycles_start: u64,
    script_cycles: u64,
    failed_in: Option<String>,
}

/// Bytes as text when they are printable UTF-8, else `0x` hex.
fn text(b: &[u8]) -> Value {
    match std::str::from_utf8(b) {
        Ok(s) if !s.chars().any(char::is_control) => json!(s),
        _ => json!(format!("0x{}", hex::encode(b))),
    }
}

impl<'h> Tracer<'h> {
    pub fn new(inner: &'h mut dyn Host) -> Self {
        let cycles_start = inner.cycles_used();
        Tracer {
            inner,
            steps: Vec::new(),
            dropped: 0,
            cycles_start,
            script_cycles: 0,
            failed_in: None,
        }
    }

    fn push(&mut self, s: TraceStep) {
        if self.steps.len() < MAX_TRACE_STEPS {
            self.steps.push(s);
        } else {
            self.dropped += 1;
        }
    }

    /// Runs one host call through, recording it.
    fn call<T>(
        &mut self,
        call: &str,
        args: Value,
        f: impl FnOnce(&mut dyn Host) -> Result<T, VmError>,
        answer: impl FnOnce(&T) -> Value,
    ) -> Result<T, VmError> {
        let (c0, e0) = (self.inner.cycles_used(), self.inner.cells_used());
        let r = f(self.inner);
        let cycles = self.inner.cycles_used().saturating_sub(c0);
        let cells = self.inner.cells_used().saturating_sub(e0);
        let (result, error) = match &r {
            Ok(v) => (answer(v), None),
            Err(e) => {
                self.failed_in.get_or_insert_with(|| call.to_string());
                (Value::Null, Some(e.to_string()))
            }
        };
        self.push(TraceStep::Call {
            call: call.into(),
            args,
            result,
            cycles,
            cells,
            error,
        });
        r
    }

    /// The trace of the run that ended with `result`.
    pub fn finish(
        self,
        of: TraceOf,
        actor: Address,
        entry: &str,
        height: u64,
        result: &Result<(), VmError>,
    ) -> Trace {
        let mut steps = self.steps;
        if self.dropped > 0 {
            steps.push(TraceStep::Print {
                line: format!("({} more steps not kept)", self.dropped),
            });
        }
        let error = result.as_ref().err().map(|e| e.to_string());
        let at = error.as_deref().and_then(script_position);
        Trace {
            of,
            actor,
            entry: entry.into(),
            height,
            steps,
            cycles_start: self.cycles_start,
            script_cycles: self.script_cycles,
            cycles_end: self.inner.cycles_used(),
            end: TraceEnd {
                success: result.is_ok(),
                error,
                at,
                failed_in: if result.is_ok() { None } else { self.failed_in },
                source_line: None,
            },
        }
    }
}

/// `(line, column)` from a script error: the runtime's `name:LINE:COLUMN: message`, or Rhai's
/// `(line N, position M)`.
fn script_position(e: &str) -> Option<(u32, u32)> {
    let parts: Vec<&str> = e.split(':').collect();
    let num = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    if let Some(w) = parts
        .windows(2)
        .find(|w| num(w[0]).is_some() && num(w[1]).is_some())
    {
        return Some((num(w[0])?, num(w[1])?));
    }
    let i = e.rfind("(line ")?;
    let rest = &e[i + 6..];
    let (line, rest) = rest.split_once(", position ")?;
    let col = rest.split(')').next()?;
    Some((line.trim().parse().ok()?, col.trim().parse().ok()?))
}

fn schedule_args(a: &ScheduleArgs) -> Value {
    let mut v = serde_json::to_value(a).unwrap_or(Value::Null);
    v["payload"] = text(&a.payload);
    v
}

fn draft_args(target: &Address, a: &DraftTimerArgs) -> Value {
    let mut v = serde_json::to_value(a).unwrap_or(Value::Null);
    v["payload"] = text(&a.payload);
    v["target"] = json!(target);
    v
}

impl Host for Tracer<'_> {
    fn charge_cycles(&mut self, n: u64) -> Result<(), VmError> {
        let c0 = self.inner.cycles_used();
        let r = self.inner.charge_cycles(n);
        self.script_cycles += self.inner.cycles_used().saturating_sub(c0);
        r
    }
    fn cycles_used(&self) -> u64 {
        self.inner.cycles_used()
    }
    fn cycles_limit(&self) -> u64 {
        self.inner.cycles_limit()
    }
    fn cells_used(&self) -> u64 {
        self.inner.cells_used()
    }
    fn peek_storage(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.inner.peek_storage(key)
    }
    fn output(&mut self, line: &str) {
        self.push(TraceStep::Print { line: line.into() });
        self.inner.output(line);
    }
    fn block_height(&mut self) -> Result<u64, VmError> {
        self.call(
            "block_height",
            json!({}),
            |h| h.block_height(),
            |v| json!(v),
        )
    }
    fn self_address(&mut self) -> Result<Address, VmError> {
        self.call(
            "self_address",
            json!({}),
            |h| h.self_address(),
            |v| json!(v),
        )
    }
    fn tx_sender(&mut self) -> Result<Address, VmError> {
        self.call("tx_sender", json!({}), |h| h.tx_sender(), |v| json!(v))
    }
    fn deployer(&mut self) -> Result<Address, VmError> {
        self.call("deployer", json!({}), |h| h.deployer(), |v| json!(v))
    }
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, VmError> {
        let args = json!({ "key": text(key) });
        self.call(
            "storage_get",
            args,
            |h| h.storage_get(key),
            |v| v.as_deref().map_or(Value::Null, text),
        )
    }
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), VmError> {
        let old = self.inner.peek_storage(key);
        let args = json!({
            "key": text(key), "old": old.as_deref().map_or(Value::Null, text), "new": text(value),
        });
        self.call(
            "storage_set",
            args,
            |h| h.storage_set(key, value),
            |_| Value::Null,
        )
    }
    fn storage_remove(&mut self, key: &[u8]) -> Result<(), VmError> {
        let old = self.inner.peek_storage(key);
        let args = json!({
            "key": text(key), "old": old.as_deref().map_or(Value::Null, text), "new": null,
        });
        self.call(
            "storage_remove",
            args,
            |h| h.storage_remove(key),
            |_| Value::Null,
        )
    }
    fn balance(&mut self, who: &Address) -> Result<u128, VmError> {
        self.call(
            "balance",
            json!({ "of": who }),
            |h| h.balance(who),
            |v| json!(v.to_string()),
        )
    }
    fn transfer(&mut self, to: &Address, amount: u128) -> Result<(), VmError> {
        let args = json!({ "to": to, "amount": amount.to_string() });
        self.call(
            "transfer",
            args,
            |h| h.transfer(to, amount),
            |_| Value::Null,
        )
    }
    fn emit(&mut self, topic: &str, data: &[u8]) -> Result<(), VmError> {
        let args = json!({ "topic": topic, "data": text(data) });
        self.call("emit", args, |h| h.emit(topic, data), |_| Value::Null)
    }
    fn schedule_timer(&mut self, args: ScheduleArgs) -> Result<TimerId, VmError> {
        let a = schedule_args(&args);
        self.call(
            "schedule_timer",
            a,
            |h| h.schedule_timer(args),
            |v| json!(v),
        )
    }
    fn extend_timer(&mut self, timer_id: &[u8], new_expires_at: u64) -> Result<(), VmError> {
        let args = json!({ "timer_id": text(timer_id), "new_expires_at": new_expires_at });
        self.call(
            "extend_timer",
            args,
            |h| h.extend_timer(timer_id, new_expires_at),
            |_| Value::Null,
        )
    }
    fn cancel_timer(&mut self, timer_id: &[u8]) -> Result<(), VmError> {
        let args = json!({ "timer_id": text(timer_id) });
        self.call(
            "cancel_timer",
            args,
            |h| h.cancel_timer(timer_id),
            |_| Value::Null,
        )
    }
    fn set_state_watch(
        &mut self,
        target: &Address,
        a: &DraftTimerArgs,
    ) -> Result<TimerId, VmError> {
        self.call(
            "set_state_watch",
            draft_args(target, a),
            |h| h.set_state_watch(target, a),
            |v| json!(v),
        )
    }
    fn set_interval(&mut self, target: &Address, a: &DraftTimerArgs) -> Result<TimerId, VmError> {
        self.call(
            "set_interval",
            draft_args(target, a),
            |h| h.set_interval(target, a),
            |v| json!(v),
        )
    }
    fn revert(&mut self, reason: &str) -> VmError {
        let c0 = self.inner.cycles_used();
        let e = self.inner.revert(reason);
        self.failed_in.get_or_insert_with(|| "revert".to_string());
        let cycles = self.inner.cycles_used().saturating_sub(c0);
        self.push(TraceStep::Call {
            call: "revert".into(),
            args: json!({ "reason": reason }),
            result: Value::Null,
            cycles,
            cells: 0,
            error: Some(e.to_string()),
        });
        e
    }
}

#[cfg(test)]
mod tests {
    use super::script_position;

    #[test]
    fn a_rhai_error_position_is_read() {
        assert_eq!(
            script_position("Script: Function not found: foo (line 3, position 7)"),
            Some((3, 7))
        );
        assert_eq!(
            script_position("ScriptError: tracee:16:5: Function not found"),
            Some((16, 5))
        );
        assert_eq!(script_position("OutOfCycles"), None);
    }
}
