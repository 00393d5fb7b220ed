//! A sweep's shards (issue 33): `K/N` parsed (from the batch engine's index with `auto/N`),
//! a shard's output written, shards' outputs merged back in run order, and the outputs a whole
//! sweep and a merge both write.

use super::{Plan, Row, SweepError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `K/N`: the K-th (from 1) of N shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub of: usize,
}

impl Shard {
    pub const WHOLE: Shard = Shard { k: 1, of: 1 };

    /// Parses `K/N` (1 ≤ K ≤ N), or `auto/N`: K from `SLURM_ARRAY_TASK_ID` (as given: use
    /// `--array=1-N`) or `JOB_COMPLETION_INDEX` (from 0, so plus one), read through `env`.
    pub fn parse(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Shard, SweepError> {
        let bad = |m: String| SweepError::BadShard(format!("`{s}`: {m}"));
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| bad("expected K/N (e.g. 2/4) or auto/N".into()))?;
        let of: usize = n
            .trim()
            .parse()
            .map_err(|_| bad(format!("`{n}` is not a number of shards")))?;
        if of == 0 {
            return Err(bad("at least one shard".into()));
        }
        let k = if k.trim() == "auto" {
            if let Some(v) = env("SLURM_ARRAY_TASK_ID") {
                v.trim()
                    .parse::<usize>()
                    .map_err(|_| bad(format!("SLURM_ARRAY_TASK_ID `{v}` is not a number")))?
            } else if let Some(v) = env("JOB_COMPLETION_INDEX") {
                v.trim()
                    .parse::<usize>()
                    .map_err(|_| bad(format!("JOB_COMPLETION_INDEX `{v}` is not a number")))?
                    + 1
            } else {
                return Err(bad(
                    "auto: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set".into(),
                ));
            }
        } else {
            k.trim()
                .parse()
                .map_err(|_| bad(format!("`{k}` is not a shard number")))?
        };
        if k == 0 || k > of {
            return Err(bad(format!(
                "shard {k} of {of}: shards count from 1 to {of}"
            )));
        }
        Ok(Shard { k, of })
    }
}

/// The first line of a shard's file: which plan, which shard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardHeader {
    pub sweep: String,
    pub plan: String,
    pub runs: usize,
    pub shard: usize,
    pub of: usize,
}

/// A shard's output: its header line, then one JSON line per row.
pub fn shard_text(plan: &Plan, shard: Shard, rows: &[Row]) -> String {
    let h = ShardHeader {
        sweep: plan.name.clone(),
        plan: plan.id.clone(),
        runs: plan.runs.len(),
        shard: shard.k,
        of: shard.of,
    };
    let mut s = serde_json::to_string(&h).expect("a header serializes");
    s.push('\n');
    for r in rows {
        s.push_str(&r.json());
        s.push('\n');
    }
    s
}

/// Joins shards' outputs (`shard_text`): they must come from one plan, with the same count
/// of shards, each shard once, every run once; the rows in run order.
pub fn merge(shards: &[(String, String)]) -> Result<(ShardHeader, Vec<Row>), SweepError> {
    let mut first: Option<ShardHeader> = None;
    let mut seen_shards = Vec::new();
    let mut rows: BTreeMap<usize, Row> = BTreeMap::new();
    for (name, text) in shards {
        let mut lines = text.lines();
        let h: ShardHeader = lines
            .next()
            .and_then(|l| serde_json::from_str(l).ok())
            .ok_or_else(|| {
                SweepError::PlanMismatch(format!("{name}: not a shard's output (no header line)"))
            })?;
        if let Some(f) = &first {
            if f.plan != h.plan || f.runs != h.runs {
                return Err(SweepError::PlanMismatch(format!(
                    "{name} is a shard of plan {} ({} runs), the first of plan {} ({} runs)",
                    h.plan, h.runs, f.plan, f.runs
                )));
            }
            if f.of != h.of {
                return Err(SweepError::PlanMismatch(format!(
                    "{name} is shard {}/{}, the first is of {} shards",
                    h.shard, h.of, f.of
                )));
            }
        } else {
            first = Some(h.clone());
        }
        if seen_shards.contains(&h.shard) {
            return Err(SweepError::IncompleteMerge(format!(
                "shard {}/{} is given twice ({name})",
                h.shard, h.of
            )));
        }
        seen_shards.push(h.shard);
        for (n, l) in lines.enumerate() {
            let r: Row = serde_json::from_str(l).map_err(|e| {
                SweepError::PlanMismatch(format!("{name}:{}: not a row: {e}", n + 2))
            })?;
            if r.plan != h.plan || r.index >= h.runs || r.index % h.of != h.shard - 1 {
                return Err(SweepError::PlanMismatch(format!(
                    "{name}:{}: run {} of plan {} does not belong to shard {}/{}",
                    n + 2,
                    r.index,
                    r.plan,
                    h.shard,
                    h.of
                )));
            }
            if rows.insert(r.index, r).is_some() {
                return Err(SweepError::IncompleteMerge(format!(
                    "{name}: a run is given twice"
                )));
            }
        }
    }
    let h = first.ok_or_else(|| SweepError::IncompleteMerge("no shard given".into()))?;
    let missing: Vec<usize> = (1..=h.of).filter(|k| !seen_shards.contains(k)).collect();
    if !missing.is_empty() {
        return Err(SweepError::IncompleteMerge(format!(
            "shard(s) {missing:?} of {} are missing",
            h.of
        )));
    }
    if rows.len() != h.runs {
        return Err(SweepError::IncompleteMerge(format!(
            "{} of the plan's {} runs have rows",
            rows.len(),
            h.runs
        )));
    }
    Ok((h, rows.into_values().collect()))
}

/// The sweep's outputs, the same for a whole sweep and a merge: the CSV (header, then a row
/// per run) and the JSON lines (a line per run).
pub fn outputs(rows: &[Row]) -> (String, String) {
    let mut csv = String::from(Row::CSV_HEADER);
    csv.push('\n');
    let mut jsonl = String::new();
    for r in rows {
        csv.push_str(&r.csv());
        csv.push('\n');
        jsonl.push_str(&r.json());
        jsonl.push('\n');
    }
    (csv, jsonl)
}

/// The rows of a sweep's `runs.jsonl` (a row per line; blank lines skipped). A line that is
/// not a row is named by its number.
pub fn read_rows(text: &str) -> Result<Vec<Row>, SweepError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| SweepError::BadSpec(format!("line {}: not a sweep row ({e})", i + 1)))
        })
        .collect()
}
