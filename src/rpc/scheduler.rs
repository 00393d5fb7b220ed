//! The CIP-1 v3 methods: `scheduler_lane`, `scheduler_fairness`, `gov_setActivationHeight`,
//! and the fee fields of `timer_schedule` / `timer_estimate`; the dashboard's
//! `scheduler_buckets` and `scheduler_actors` (issue 19).

use super::methods::{node_error, reg};
use super::queries::RpcQuery;
use super::types::{Args, Decode, invalid_param};
use crate::engine::PriorityTier;
use crate::node::{At, DEFAULT_LANE_BLOCKS, LaneQuery, NodeHandle};

/// The most heights `scheduler_buckets` lists.
pub const MAX_BUCKETS: u64 = 1_000;
/// What `scheduler_buckets` lists without `count`.
pub const DEFAULT_BUCKETS: u64 = 32;
/// The fifo window of `scheduler_actors` without `window`, in blocks.
pub const DEFAULT_SHARES_WINDOW: u64 = 1_000;
use jsonrpsee::RpcModule;
use serde_json::Value;

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
    reg(m, LaneQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["options", "block"])?;
        let at = a.block(1)?;
        let mut o = a.obj(0, "options", true)?;
        let last: Option<u64> = o.opt("last")?;
        o.finish()?;
        let last = last.unwrap_or(DEFAULT_LANE_BLOCKS);
        let q = At::new(LaneQuery { last }, at);
        let v = node.ask(q).await.map_err(|e| match e {
            // The param the user sent that the node refused: `last` out of its range, else
            // the block tag (a height not sealed yet or no longer kept; issue 30).
            crate::node::NodeError::InvalidInput(why) if why.starts_with("last ") => {
                invalid_param("last", why)
            }
            crate::node::NodeError::InvalidInput(why) => invalid_param("block", why),
            e => node_error(e),
        })?;
        Ok(serde_json::to_value(v).expect("views serialize"))
    });
}
