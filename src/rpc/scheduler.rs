//! The CIP-1 v3 methods: `scheduler_lane`, `scheduler_fairness`, `gov_setActivationHeight`,
//! and the fee fields of `timer_schedule` / `timer_estimate`.

use super::methods::{node_error, reg};
use super::types::{Args, Decode, invalid_param};
use crate::engine::{Address, PriorityTier};
use crate::node::{DEFAULT_LANE_BLOCKS, NodeHandle, SetActivationHeight};
use jsonrpsee::RpcModule;
use serde_json::{Value, json};

impl Decode for PriorityTier {
    const EXPECTED: &'static str =
        "a priority tier (\"economy\", \"standard\", \"fast\" or \"urgent\")";
    fn decode(v: &Value) -> Result<Self, String> {
        serde_json::from_value(v.clone())
            .map_err(|_| format!("expected {}, got {v}", Self::EXPECTED))
    }
}

/// Registers the scheduler methods of CIP-1 v3.
pub(super) fn register(m: &mut RpcModule<NodeHandle>) {
    reg(m, "scheduler_lane", |p, node| async move {
        let a = Args::new(&p, &["options"])?;
        let mut o = a.obj(0, "options", true)?;
        let last: Option<u64> = o.opt("last")?;
        o.finish()?;
        let last = last.unwrap_or(DEFAULT_LANE_BLOCKS);
        let v = node
            .query(move |c| c.scheduler_lane(last))
            .await
            .map_err(node_error)?
            .map_err(|e| match e {
                crate::node::NodeError::InvalidInput(why) => invalid_param("last", why),
                e => node_error(e),
            })?;
        Ok(serde_json::to_value(v).expect("views serialize"))
    });
    reg(m, "scheduler_fairness", |p, node| async move {
        Args::new(&p, &[])?;
        let v = node
            .query(|c| c.scheduler_fairness())
            .await
            .map_err(node_error)?;
        Ok(serde_json::to_value(v).expect("views serialize"))
    });
    reg(m, "gov_setActivationHeight", |p, node| async move {
        let a = Args::new(&p, &["activation"])?;
        let mut o = a.obj(0, "activation", false)?;
        let from: Address = o.req("from")?;
        let height: u64 = o.req("height")?;
        o.finish()?;
        let h = node
            .request(SetActivationHeight { from, height })
            .await
            .map_err(node_error)?;
        Ok(json!({ "activation_height": h }))
    });
}
