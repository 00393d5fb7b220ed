//! Governance of the CIP-1 v3 scheduler parameters on a running chain (issue 21 §3): the
//! priority-tier multipliers (§7.3), the fairness window (§8) and the auction-phase per-fire
//! cap (§10), through `SYS_UPDATE_SCHEDULER_CONFIG` (51).

use super::core::{NodeCore, Request};
use super::error::NodeError;
use super::requests::{TxOutcome, gov_checked};
use super::txs;
use crate::engine::{Address, SchedulerParams};

/// `SYS_UPDATE_SCHEDULER_CONFIG` (51) from `from` (a system deployer): the named fields of the
/// scheduler parameters in force after the open block change, from the next block on.
#[derive(Clone, Debug)]
pub struct GovUpdateSchedulerConfig {
    pub from: Address,
    /// Field name ([`SchedulerParams::FIELDS`]) -> new value; an unknown field or a value of
    /// the wrong type is `InvalidInput`, and so is a set of values that does not validate.
    pub fields: serde_json::Map<String, serde_json::Value>,
}

impl Request for GovUpdateSchedulerConfig {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let base = node.chain().engine().next_scheduler_params();
        let params = merge_scheduler_params(&base, &self.fields)?;
        params.validate()?;
        gov_checked(node, txs::gov_update_scheduler_config(self.from, params))
    }
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
                "`{k}` is not a scheduler config field (fields: {})",
                SchedulerParams::FIELDS.join(", ")
            )));
        }
        t.insert(k.clone(), v.clone());
    }
    serde_json::from_value(serde_json::Value::Object(t))
        .map_err(|e| NodeError::InvalidInput(format!("scheduler config: {e}")))
}
