//! Governance of the CIP-1 v3 scheduler parameters on a running chain (issue 21 §3): the
//! priority-tier multipliers (§7.3), the fairness window (§8) and the auction-phase per-fire
//! cap (§10), through `SYS_UPDATE_SCHEDULER_CONFIG` (51); and of the CIP-5 drafts'
//! parameters (English §12, zh §13, Spec note 126) through the same instruction.

use super::core::{NodeCore, Request};
use super::error::NodeError;
use super::requests::{TxOutcome, gov_checked};
use super::txs;
use crate::engine::draft::DraftParams;
use crate::engine::{Address, SchedulerParams};

/// `SYS_UPDATE_SCHEDULER_CONFIG` (51) from `from` (a system deployer): the named fields of the
/// scheduler parameters in force after the open block change, from the next block on.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GovUpdateSchedulerConfig {
    pub from: Address,
    /// Field name ([`SchedulerParams::FIELDS`]) -> new value; an unknown field or a value of
    /// the wrong type is `InvalidInput`, and so is a set of values that does not validate.
    pub fields: serde_json::Map<String, serde_json::Value>,
}

impl Request for GovUpdateSchedulerConfig {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let engine = node.chain().engine();
        let (sched, draft): (serde_json::Map<_, _>, serde_json::Map<_, _>) = self
            .fields
            .into_iter()
            .partition(|(k, _)| !DraftParams::is_field(k));
        let base = engine.next_scheduler_params();
        let params = match sched.is_empty() && !draft.is_empty() {
            true => base,
            false => merge_scheduler_params(&base, &sched)?,
        };
        params.validate()?;
        let draft = match draft.is_empty() {
            true => None,
            false => {
                let d = merge_draft_params(&engine.next_draft_params(), &draft)?;
                d.validate()?;
                Some(d)
            }
        };
        gov_checked(
            node,
            txs::gov_update_scheduler_config(self.from, params, draft),
        )
    }
}

/// Overrides fields of the CIP-5 drafts' parameters `base` with `set` (English §12, zh §13;
/// names and types checked).
pub fn merge_draft_params(
    base: &DraftParams,
    set: &serde_json::Map<String, serde_json::Value>,
) -> Result<DraftParams, NodeError> {
    let serde_json::Value::Object(mut t) = serde_json::to_value(base).expect("params serialize")
    else {
        unreachable!("the params are an object");
    };
    t.extend(set.clone());
    serde_json::from_value(serde_json::Value::Object(t))
        .map_err(|e| NodeError::InvalidInput(format!("cip5_draft config: {e}")))
}

/// Overrides fields of `base` with `set` (names and types checked; at least one field).
pub fn merge_scheduler_params(
    base: &SchedulerParams,
    set: &serde_json::Map<String, serde_json::Value>,
) -> Result<SchedulerParams, NodeError> {
    if set.is_empty() {
        return Err(NodeError::InvalidInput(format!(
            "no scheduler field given (fields: {})",
            SchedulerParams::FIELDS.join(", ")
        )));
    }
    let serde_json::Value::Object(mut t) = serde_json::to_value(base).expect("params serialize")
    else {
        unreachable!("the params are an object");
    };
    for (k, v) in set {
        if !t.contains_key(k) {
            return Err(NodeError::InvalidInput(format!(
                "`{k}` is not a scheduler config field (fields: {}; the CIP-5 drafts': {})",
                SchedulerParams::FIELDS.join(", "),
                DraftParams::FIELDS.join(", ")
            )));
        }
        t.insert(k.clone(), v.clone());
    }
    serde_json::from_value(serde_json::Value::Object(t))
        .map_err(|e| NodeError::InvalidInput(format!("scheduler config: {e}")))
}
