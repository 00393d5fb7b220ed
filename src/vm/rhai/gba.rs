//! Custom GBAs in Rhai (CIP-1 v3 §7.2): `fn get_gas_bid(ctx)`.
//!
//! `ctx` is a map with every §7.2 field: `trigger_block_height`, `current_block_height` and
//! `last_block_cycle_usage` as `INT`; `basefee_cycle`, `basefee_cell`, `basefee_lane_timer`,
//! `previous_block_p50_priority_tip_per_cycle` and `owner_actor_balance` as `U128` (lane prices
//! and tips in nanos per cycle, CIP-3 basefees in base units). The function returns a map with
//! `max_fee_per_cycle` and/or `max_priority_fee_per_cycle` (nanos per cycle, an `INT` ≥ 0, a
//! `U128` or a decimal string); a key left out (or `()`) takes the default GBA's value. It runs
//! read-only ([`RhaiRuntime::call_read_only`]): a write is `InvalidInput`.

use super::*;
use crate::chain::runtime::GAS_BID_ENTRY;
use crate::engine::{GbaBid, GbaContext};

fn int(what: &str, v: u64) -> Result<Dynamic, VmError> {
    to_int(what, v).map(Dynamic::from_int)
}

/// A price a GBA returned: `INT` ≥ 0, `U128`, or a decimal string.
fn price(what: &str, v: &Dynamic) -> Result<Option<u128>, VmError> {
    if v.is_unit() {
        return Ok(None);
    }
    if let Ok(i) = v.as_int() {
        return non_negative(what, i).map(|n| Some(n as u128));
    }
    if let Some(a) = v.clone().try_cast::<U128>() {
        return Ok(Some(a.0));
    }
    if let Ok(s) = v.clone().into_immutable_string() {
        return s
            .replace('_', "")
            .parse::<u128>()
            .map(Some)
            .map_err(|e| invalid(format!("{GAS_BID_ENTRY}: `{what}` `{s}`: {e}")));
    }
    Err(invalid(format!(
        "{GAS_BID_ENTRY}: `{what}` must be an INT, a U128 or a decimal string, got {}",
        v.type_name()
    )))
}

impl RhaiRuntime {
    /// Calls `get_gas_bid(ctx)` read-only and reads its answer (see the module docs).
    pub fn gas_bid(
        &self,
        code: &ActorCode,
        ctx: &GbaContext,
        host: &mut dyn Host,
    ) -> Result<GbaBid, VmError> {
        let mut m = Map::new();
        m.insert(
            "trigger_block_height".into(),
            int("trigger_block_height", ctx.trigger_block_height)?,
        );
        m.insert(
            "current_block_height".into(),
            int("current_block_height", ctx.current_block_height)?,
        );
        m.insert(
            "basefee_cycle".into(),
            Dynamic::from(U128(ctx.basefee_cycle)),
        );
        m.insert("basefee_cell".into(), Dynamic::from(U128(ctx.basefee_cell)));
        m.insert(
            "basefee_lane_timer".into(),
            Dynamic::from(U128(ctx.basefee_lane_timer)),
        );
        m.insert(
            "last_block_cycle_usage".into(),
            int("last_block_cycle_usage", ctx.last_block_cycle_usage)?,
        );
        m.insert(
            "previous_block_p50_priority_tip_per_cycle".into(),
            Dynamic::from(U128(ctx.previous_block_p50_priority_tip_per_cycle)),
        );
        m.insert(
            "owner_actor_balance".into(),
            Dynamic::from(U128(ctx.owner_actor_balance)),
        );
        let r = self.call_read_only(code, GAS_BID_ENTRY, vec![Dynamic::from_map(m)], host)?;
        let Some(map) = r.clone().try_cast::<Map>() else {
            return Err(invalid(format!(
                "{GAS_BID_ENTRY} must return a map of max_fee_per_cycle / max_priority_fee_per_cycle, got {}",
                r.type_name()
            )));
        };
        let mut bid = GbaBid::default();
        for (k, v) in &map {
            match k.as_str() {
                "max_fee_per_cycle" => bid.max_fee_per_cycle = price(k, v)?,
                "max_priority_fee_per_cycle" => bid.max_priority_fee_per_cycle = price(k, v)?,
                other => {
                    return Err(invalid(format!(
                        "{GAS_BID_ENTRY}: unknown key `{other}` (expected max_fee_per_cycle, max_priority_fee_per_cycle)"
                    )));
                }
            }
        }
        Ok(bid)
    }
}
