//! The CIP-5 §4.1 host API registered on the engine.

use super::*;

pub(super) fn register_host_api(e: &mut Engine) {
    // CIP-5 §4.1 timer calls.
    e.register_fn("schedule_timer", |h: INT, p: &str| {
        schedule(h, p.as_bytes(), None)
    });
    e.register_fn("schedule_timer", |h: INT, p: Blob| schedule(h, &p, None));
    e.register_fn("schedule_timer_ex", |h: INT, p: &str, o: Map| {
        schedule(h, p.as_bytes(), Some(&o))
    });
    e.register_fn("schedule_timer_ex", |h: INT, p: Blob, o: Map| {
        schedule(h, &p, Some(&o))
    });
    e.register_fn("extend_timer", |id: &str, new_expires_at: INT| {
        host_call(|h| {
            let id = timer_id_bytes(id)?;
            let exp = non_negative("new_expires_at", new_expires_at)?;
            h.extend_timer(&id, exp)
        })
    });
    e.register_fn("extend_timer", |id: Blob, new_expires_at: INT| {
        host_call(|h| h.extend_timer(&id, non_negative("new_expires_at", new_expires_at)?))
    });
    e.register_fn("cancel_timer", |id: &str| {
        host_call(|h| h.cancel_timer(&timer_id_bytes(id)?))
    });
    e.register_fn("cancel_timer", |id: Blob| {
        host_call(|h| h.cancel_timer(&id))
    });

    // Context.
    e.register_fn("block_height", || {
        host_call(|h| to_int("block height", h.block_height()?))
    });
    e.register_fn("self_address", || {
        host_call(|h| h.self_address().map(|a| a.to_string()))
    });
    e.register_fn("tx_sender", || {
        host_call(|h| h.tx_sender().map(|a| a.to_string()))
    });
    e.register_fn("deployer", || {
        host_call(|h| h.deployer().map(|a| a.to_string()))
    });

    // Storage.
    e.register_fn("storage_get", |key: &str| {
        host_call(|h| match h.storage_get(key.as_bytes())? {
            None => Ok(Dynamic::UNIT),
            Some(v) => String::from_utf8(v).map(Dynamic::from).map_err(|_| {
                invalid(format!(
                    "the value under `{key}` is not UTF-8 text: read it with storage_get_blob"
                ))
            }),
        })
    });
    e.register_fn("storage_get_blob", |key: &str| {
        host_call(|h| {
            Ok(h.storage_get(key.as_bytes())?
                .map_or(Dynamic::UNIT, Dynamic::from_blob))
        })
    });
    e.register_fn("storage_set", |key: &str, value: &str| {
        host_call(|h| h.storage_set(key.as_bytes(), value.as_bytes()))
    });
    e.register_fn("storage_set", |key: &str, value: Blob| {
        host_call(|h| h.storage_set(key.as_bytes(), &value))
    });
    e.register_fn("storage_remove", |key: &str| {
        host_call(|h| h.storage_remove(key.as_bytes()))
    });

    // Funds.
    e.register_fn("balance", |who: &str| {
        host_call(|h| {
            let who = parse_address("balance", who)?;
            h.balance(&who).map(U128)
        })
    });
    e.register_fn("transfer", |to: &str, amount: U128| {
        host_call(|h| h.transfer(&parse_address("transfer", to)?, amount.0))
    });
    e.register_fn("transfer", |to: &str, amount: INT| {
        host_call(|h| {
            let to = parse_address("transfer", to)?;
            let amount = u128::try_from(amount)
                .map_err(|_| invalid(format!("transfer amount {amount} is negative")))?;
            h.transfer(&to, amount)
        })
    });

    // Events, metering, reverts.
    e.register_fn("emit", |topic: &str, data: &str| {
        host_call(|h| h.emit(topic, data.as_bytes()))
    });
    e.register_fn("emit", |topic: &str, data: Blob| {
        host_call(|h| h.emit(topic, &data))
    });
    e.register_fn("burn_cycles", |n: INT| {
        host_call(|h| h.charge_cycles(non_negative("burn_cycles", n)?))
    });
    e.register_fn("revert", |reason: &str| -> RhaiResult<Dynamic> {
        host_call(|h| Err(h.revert(reason)))
    });

    // Pure helpers.
    e.register_fn("handler_payload", |name: &str, inner: &str| {
        String::from_utf8_lossy(&handler_payload(name, inner.as_bytes())).into_owned()
    });
    e.register_fn("handler_payload", |name: &str, inner: Blob| {
        String::from_utf8_lossy(&handler_payload(name, &inner)).into_owned()
    });
}
