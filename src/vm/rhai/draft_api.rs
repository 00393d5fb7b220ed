//! The CIP-5 drafts' host calls (English §6.1, zh §7.1) in the Rhai VM:
//! `set_state_watch(target, keys, payload, gas_limit, bid?)` and
//! `set_interval(target, every_blocks, payload, gas_limit, bid?)`, each returning the timer id
//! (`"0x…"`), and the same with a sixth argument, the idempotent set's `client_nonce`
//! (English §6.2: `set_state_watch(target, keys, payload, gas_limit, bid, client_nonce)`). The chain refuses them by name under `fifo` / `eip1559` (and `set_interval` under
//! `cip5-draft`).

use super::*;
use crate::chain::DraftTimerArgs;
use ::rhai::Array;

/// `keys`: an array of strings (each a storage key or key prefix).
fn watch_keys(keys: &Array) -> Result<Vec<String>, VmError> {
    keys.iter()
        .map(|k| {
            k.clone()
                .into_immutable_string()
                .map(|s| s.to_string())
                .map_err(|t| invalid(format!("set_state_watch: keys must be strings, got {t}")))
        })
        .collect()
}

/// The optional `bid` and `client_nonce` of a call.
#[derive(Clone, Copy, Default)]
struct Opt {
    bid: Option<INT>,
    nonce: Option<INT>,
}

fn args(payload: &[u8], gas: INT, o: Opt) -> Result<DraftTimerArgs, VmError> {
    let bid = o.bid;
    Ok(DraftTimerArgs {
        client_nonce: o
            .nonce
            .map(|n| non_negative("client_nonce", n))
            .transpose()?,
        payload: payload.to_vec(),
        gas_limit: Some(non_negative("gas_limit", gas)?),
        bid: bid
            .map(|b| non_negative("bid", b))
            .transpose()?
            .map(u128::from),
        ..DraftTimerArgs::default()
    })
}

fn watch(target: &str, keys: &Array, payload: &[u8], gas: INT, o: Opt) -> RhaiResult<String> {
    host_call(|h| {
        let target = parse_address("set_state_watch target", target)?;
        let a = DraftTimerArgs {
            keys: watch_keys(keys)?,
            ..args(payload, gas, o)?
        };
        h.set_state_watch(&target, &a).map(|id| id.to_string())
    })
}

fn interval(target: &str, every: INT, payload: &[u8], gas: INT, o: Opt) -> RhaiResult<String> {
    host_call(|h| {
        let target = parse_address("set_interval target", target)?;
        let a = DraftTimerArgs {
            every: Some(non_negative("every_blocks", every)?),
            ..args(payload, gas, o)?
        };
        h.set_interval(&target, &a).map(|id| id.to_string())
    })
}

pub(super) fn register_draft_api(e: &mut Engine) {
    let b = |b: INT| Opt {
        bid: Some(b),
        nonce: None,
    };
    let bn = |b: INT, n: INT| Opt {
        bid: Some(b),
        nonce: Some(n),
    };
    e.register_fn("set_state_watch", |t: &str, k: Array, p: &str, g: INT| {
        watch(t, &k, p.as_bytes(), g, Opt::default())
    });
    e.register_fn(
        "set_state_watch",
        move |t: &str, k: Array, p: &str, g: INT, x: INT| watch(t, &k, p.as_bytes(), g, b(x)),
    );
    e.register_fn(
        "set_state_watch",
        move |t: &str, k: Array, p: &str, g: INT, x: INT, n: INT| {
            watch(t, &k, p.as_bytes(), g, bn(x, n))
        },
    );
    e.register_fn("set_state_watch", |t: &str, k: Array, p: Blob, g: INT| {
        watch(t, &k, &p, g, Opt::default())
    });
    e.register_fn(
        "set_state_watch",
        move |t: &str, k: Array, p: Blob, g: INT, x: INT| watch(t, &k, &p, g, b(x)),
    );
    e.register_fn(
        "set_state_watch",
        move |t: &str, k: Array, p: Blob, g: INT, x: INT, n: INT| watch(t, &k, &p, g, bn(x, n)),
    );
    e.register_fn("set_interval", |t: &str, n: INT, p: &str, g: INT| {
        interval(t, n, p.as_bytes(), g, Opt::default())
    });
    e.register_fn(
        "set_interval",
        move |t: &str, n: INT, p: &str, g: INT, x: INT| interval(t, n, p.as_bytes(), g, b(x)),
    );
    e.register_fn(
        "set_interval",
        move |t: &str, n: INT, p: &str, g: INT, x: INT, c: INT| {
            interval(t, n, p.as_bytes(), g, bn(x, c))
        },
    );
    e.register_fn("set_interval", |t: &str, n: INT, p: Blob, g: INT| {
        interval(t, n, &p, g, Opt::default())
    });
    e.register_fn(
        "set_interval",
        move |t: &str, n: INT, p: Blob, g: INT, x: INT| interval(t, n, &p, g, b(x)),
    );
    e.register_fn(
        "set_interval",
        move |t: &str, n: INT, p: Blob, g: INT, x: INT, c: INT| interval(t, n, &p, g, bn(x, c)),
    );
}
