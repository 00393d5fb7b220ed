//! The native test runtime: actor "code" is a JSON table of handlers, each a list of
//! operations. Deterministic and fast; used to test the engine and chain without scripts and as
//! the no-op baseline in benchmarks.
//!
//! ```json
//! {"handle_timer": [{"op": "burn", "cycles": 1000},
//!                   {"op": "write", "key": "k", "bytes": 10},
//!                   {"op": "schedule", "delta": 5, "payload": "again"},
//!                   {"op": "revert", "reason": "boom"}]}
//! ```

use crate::chain::runtime::{ActorCode, Host, VmError};
use crate::engine::types::u128_str;
use crate::engine::{Address, GbaBid, GbaContext, ScheduleArgs};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Who pays for a timer a native program schedules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Payer {
    /// The actor itself (the default).
    #[serde(rename = "self")]
    Actor,
    /// The transaction's sender.
    Sender,
    /// The actor's deployer (accepted only when the deployer sends the transaction).
    Deployer,
    /// Any address (to exercise the CIP-5 §4.2 rejection).
    Address(Address),
}

/// One operation of a native handler.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// Consume cycles.
    Burn {
        cycles: u64,
    },
    /// Write `bytes` bytes under `key` (charges cells).
    Write {
        key: String,
        bytes: u64,
    },
    /// Schedule a timer `delta` blocks ahead.
    Schedule {
        delta: u64,
        #[serde(default)]
        payload: String,
        #[serde(default)]
        fee_payer: Option<Payer>,
        #[serde(default)]
        gas_limit: Option<u64>,
        #[serde(default)]
        expires_in: Option<u64>,
        /// Store the new id under this storage key (for a later cancel or extend).
        #[serde(default)]
        save_as: Option<String>,
    },
    /// Schedule `count` timers, the i-th at `delta + i % spread` blocks ahead.
    ScheduleMany {
        count: u64,
        delta: u64,
        #[serde(default = "one")]
        spread: u64,
        #[serde(default)]
        gas_limit: Option<u64>,
        /// `expires_at` as blocks past each timer's height.
        #[serde(default)]
        ttl: Option<u64>,
    },
    /// Cancel the timer whose id is stored under `key`.
    Cancel {
        key: String,
    },
    /// Extend the timer whose id is stored under `key` to `blocks` past the current height.
    Extend {
        key: String,
        blocks: u64,
    },
    Emit {
        topic: String,
        #[serde(default)]
        data: String,
    },
    Transfer {
        to: Address,
        #[serde(with = "u128_str")]
        amount: u128,
    },
    Revert {
        reason: String,
    },
    /// In `get_gas_bid` (a custom GBA, CIP-1 v3 §7.2): the bid it answers (nanos per cycle;
    /// a field left out takes the default GBA's value). Elsewhere a no-op.
    Bid {
        #[serde(default, with = "crate::engine::types::opt_u128_str")]
        max_fee_per_cycle: Option<u128>,
        #[serde(default, with = "crate::engine::types::opt_u128_str")]
        max_priority_fee_per_cycle: Option<u128>,
    },
    /// In `get_gas_bid`: bid `tip_per_lane_nano` × the lane basefee as the tip, read from
    /// the context (to check that the context reaches the GBA).
    BidFromContext {
        #[serde(default)]
        tip_per_lane_nano: u64,
    },
}

fn one() -> u64 {
    1
}

/// A native program: handler name -> operations.
pub type Program = BTreeMap<String, Vec<Op>>;

pub fn parse(code: &ActorCode) -> Result<Program, VmError> {
    serde_json::from_str(&code.source).map_err(|e| VmError::Compile {
        location: format!("{}:{}:{}", code.name, e.line(), e.column()),
        message: e.to_string(),
    })
}

/// `base + blocks` as a height, or the engine's named `InvalidInput` when it overflows `u64`.
fn height_plus(base: u64, blocks: u64, what: &str) -> Result<u64, VmError> {
    crate::engine::height_plus(base, blocks, what).map_err(VmError::Timer)
}

/// Runs `entry` of a native program.
pub fn invoke(prog: &Program, entry: &str, host: &mut dyn Host) -> Result<(), VmError> {
    let Some(ops) = prog.get(entry) else {
        return if entry == "handle_timer" {
            Ok(())
        } else {
            Err(VmError::HandlerNotFound(format!("no handler `{entry}`")))
        };
    };
    for op in ops {
        match op {
            Op::Burn { cycles } => host.charge_cycles(*cycles)?,
            Op::Write { key, bytes } => {
                host.storage_set(key.as_bytes(), &vec![0xAB; *bytes as usize])?
            }
            Op::Schedule {
                delta,
                payload,
                fee_payer,
                gas_limit,
                expires_in,
                save_as,
            } => {
                let h = host.block_height()?;
                let fee_payer = match fee_payer {
                    None | Some(Payer::Actor) => None,
                    Some(Payer::Sender) => Some(host.tx_sender()?),
                    Some(Payer::Deployer) => Some(host.deployer()?),
                    Some(Payer::Address(a)) => Some(*a),
                };
                let expires_at = match expires_in {
                    Some(e) => Some(height_plus(h, *e, "expires_in")?),
                    None => None,
                };
                let id = host.schedule_timer(ScheduleArgs {
                    height: height_plus(h, *delta, "delta")?,
                    payload: payload.as_bytes().to_vec(),
                    fee_payer,
                    gas_limit: *gas_limit,
                    expires_at,
                    ..Default::default()
                })?;
                if let Some(k) = save_as {
                    host.storage_set(k.as_bytes(), &id.0)?;
                }
            }
            Op::ScheduleMany {
                count,
                delta,
                spread,
                gas_limit,
                ttl,
            } => {
                let h = host.block_height()?;
                for i in 0..*count {
                    let height = height_plus(h, *delta, "delta")?;
                    let height = height_plus(height, i % (*spread).max(1), "spread")?;
                    let expires_at = match ttl {
                        Some(t) => Some(height_plus(height, *t, "ttl")?),
                        None => None,
                    };
                    host.schedule_timer(ScheduleArgs {
                        height,
                        payload: i.to_be_bytes().to_vec(),
                        fee_payer: None,
                        gas_limit: *gas_limit,
                        expires_at,
                        ..Default::default()
                    })?;
                }
            }
            Op::Cancel { key } => {
                let id = host.storage_get(key.as_bytes())?.unwrap_or_default();
                host.cancel_timer(&id)?;
            }
            Op::Extend { key, blocks } => {
                let id = host.storage_get(key.as_bytes())?.unwrap_or_default();
                let h = host.block_height()?;
                host.extend_timer(&id, height_plus(h, *blocks, "blocks")?)?;
            }
            Op::Emit { topic, data } => host.emit(topic, data.as_bytes())?,
            Op::Transfer { to, amount } => host.transfer(to, *amount)?,
            Op::Revert { reason } => return Err(host.revert(reason)),
            Op::Bid { .. } | Op::BidFromContext { .. } => {}
        }
    }
    Ok(())
}

/// Runs a native program's `get_gas_bid` (CIP-1 v3 §7.2): its operations run through the (read-
/// only) host, then the last `bid` operation is the answer.
pub fn gas_bid(prog: &Program, ctx: &GbaContext, host: &mut dyn Host) -> Result<GbaBid, VmError> {
    let entry = crate::chain::runtime::GAS_BID_ENTRY;
    let ops = prog
        .get(entry)
        .ok_or_else(|| VmError::HandlerNotFound(format!("no `{entry}`")))?;
    invoke(prog, entry, host)?;
    let mut bid = GbaBid::default();
    for op in ops {
        match op {
            Op::Bid {
                max_fee_per_cycle,
                max_priority_fee_per_cycle,
            } => {
                bid = GbaBid {
                    max_fee_per_cycle: *max_fee_per_cycle,
                    max_priority_fee_per_cycle: *max_priority_fee_per_cycle,
                }
            }
            Op::BidFromContext { tip_per_lane_nano } => {
                bid = GbaBid {
                    max_fee_per_cycle: Some(ctx.basefee_lane_timer.saturating_mul(4)),
                    max_priority_fee_per_cycle: Some(
                        ctx.basefee_lane_timer
                            .saturating_mul(*tip_per_lane_nano as u128),
                    ),
                }
            }
            _ => {}
        }
    }
    Ok(bid)
}
