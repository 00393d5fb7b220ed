//! A fixture step that is one command of the node's vocabulary as written (issue 29: "a
//! fixture step is `{ at, label, command }`"): `action = "command"`, `command = { method, params
//! }` with `method` the JSON-RPC name and `params` the node's [`Command`] fields, the same
//! serialised form the dashboard and the RPC adapter build. A string `"@name"` anywhere in the
//! params stands for the address of the fixture's account or actor `name`, so a step stays
//! readable without hex addresses.
//!
//! Only the commands that change the chain inside a block are steps: the runner owns mining,
//! snapshots and the state file, so `devnet_mine`, `devnet_setMining`, the snapshots,
//! `devnet_reset`, `devnet_dumpState` / `devnet_loadState`, `devnet_halt` (the `halt` step says
//! it) and `devnet_dropTransaction` are refused by name when the fixture is prepared, as is a
//! method that does not exist or params that do not fit it.

use crate::engine::Address;
use crate::node::Command;
use serde_json::Value;

/// The methods a `command` step may name, in the order `docs/FIXTURES.md` lists them.
pub const STEP_METHODS: &[&str] = &[
    "actor_deploy",
    "actor_call",
    "timer_schedule",
    "timer_cancel",
    "timer_extend",
    "timer_watch",
    "timer_interval",
    "gov_cancelTimer",
    "gov_extendTimer",
    "gov_updateTimerConfig",
    "gov_updateSchedulerConfig",
    "gov_setActivationHeight",
    "devnet_setBalance",
    "devnet_sendTransaction",
];

/// The command a `command` step's table says, its `"@name"` strings replaced by `address`'s
/// answer. The error is the message a fixture error shows.
pub fn parse(
    command: &Value,
    address: &dyn Fn(&str) -> Option<Address>,
) -> Result<Command, String> {
    let method = command
        .get("method")
        .and_then(Value::as_str)
        .ok_or("a command is a table with a `method` (its JSON-RPC name) and its `params`")?;
    if !STEP_METHODS.contains(&method) {
        return Err(format!(
            "`{method}` is not a command a fixture step can send (one of: {})",
            STEP_METHODS.join(", ")
        ));
    }
    let resolved = resolve(command, address)?;
    serde_json::from_value(resolved).map_err(|e| format!("`{method}`: {e}"))
}

/// `v` with every string `"@name"` replaced by the `0x` address of `name`.
fn resolve(v: &Value, address: &dyn Fn(&str) -> Option<Address>) -> Result<Value, String> {
    Ok(match v {
        Value::String(s) => match s.strip_prefix('@') {
            Some(name) => {
                let a =
                    address(name).ok_or_else(|| format!("unknown account or actor `{name}`"))?;
                serde_json::to_value(a).map_err(|e| e.to_string())?
            }
            None => v.clone(),
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| resolve(i, address))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, i)| Ok((k.clone(), resolve(i, address)?)))
                .collect::<Result<_, String>>()?,
        ),
        _ => v.clone(),
    })
}
