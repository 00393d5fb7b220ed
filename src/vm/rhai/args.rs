//! Conversions of host-function arguments from Rhai values.

use super::*;

pub(super) fn invalid(msg: String) -> VmError {
    VmError::InvalidInput(msg)
}

pub(super) fn non_negative(what: &str, v: INT) -> Result<u64, VmError> {
    u64::try_from(v).map_err(|_| invalid(format!("{what} must not be negative, got {v}")))
}

pub(super) fn to_int(what: &str, v: u64) -> Result<INT, VmError> {
    INT::try_from(v).map_err(|_| invalid(format!("{what} {v} does not fit an INT")))
}

pub(super) fn parse_address(what: &str, s: &str) -> Result<Address, VmError> {
    Address::from_str(s).map_err(|e| invalid(format!("{what}: {e}")))
}

/// A timer id given as a `"0x…"` string: decoded to bytes, which the host validates (CIP-5 §3.1).
pub(super) fn timer_id_bytes(s: &str) -> Result<Vec<u8>, VmError> {
    let t = s.strip_prefix("0x").unwrap_or(s);
    hex::decode(t).map_err(|e| invalid(format!("timer id `{s}` is not hex: {e}")))
}

/// Applies `schedule_timer_ex`'s options map (CIP-5 §4.1 Model B) to `args`. Every key is
/// optional and `()` means "the protocol default"; an unknown key is `InvalidInput`.
pub(super) fn apply_schedule_options(opts: &Map, args: &mut ScheduleArgs) -> Result<(), VmError> {
    for (k, v) in opts {
        if v.is_unit() {
            continue;
        }
        let int = |what: &str| {
            v.as_int()
                .map_err(|t| {
                    invalid(format!(
                        "schedule_timer_ex: `{what}` must be an INT, got {t}"
                    ))
                })
                .and_then(|i| non_negative(what, i))
        };
        match k.as_str() {
            "fee_payer" => {
                let s = v.clone().into_immutable_string().map_err(|t| {
                    invalid(format!(
                        "schedule_timer_ex: `fee_payer` must be an address string, got {t}"
                    ))
                })?;
                args.fee_payer = Some(parse_address("fee_payer", &s)?);
            }
            "gas_limit" => args.gas_limit = Some(int("gas_limit")?),
            "expires_at" => args.expires_at = Some(int("expires_at")?),
            // CIP-1 v3 §6 (prices in nanos per cycle: an INT ≥ 0, a U128 or a decimal string).
            "max_fee_per_cycle" => args.max_fee_per_cycle = Some(amount_arg(k, v)?),
            "max_priority_fee_per_cycle" => {
                args.max_priority_fee_per_cycle = Some(amount_arg(k, v)?)
            }
            "bid" => args.bid = Some(amount_arg(k, v)?),
            // CIP-5 drafts, English §6.2: the idempotent set's key.
            "client_nonce" => args.client_nonce = Some(int("client_nonce")?),
            // CIP-1 v3 §7.3: "economy", "standard", "fast" or "urgent".
            "priority_tier" => {
                let s = v.clone().into_immutable_string().map_err(|t| {
                    invalid(format!(
                        "schedule_timer_ex: `priority_tier` must be a string, got {t}"
                    ))
                })?;
                args.priority_tier = Some(
                    s.parse()
                        .map_err(|e: String| invalid(format!("schedule_timer_ex: {e}")))?,
                );
            }
            other => {
                return Err(invalid(format!(
                    "schedule_timer_ex: unknown option `{other}` (expected fee_payer, gas_limit, expires_at, max_fee_per_cycle, max_priority_fee_per_cycle, priority_tier, bid, client_nonce)"
                )));
            }
        }
    }
    Ok(())
}

/// An amount option: an `INT` ≥ 0, a `U128` or a decimal string.
fn amount_arg(what: &str, v: &Dynamic) -> Result<u128, VmError> {
    if let Ok(i) = v.as_int() {
        return non_negative(what, i).map(u128::from);
    }
    if let Some(a) = v.clone().try_cast::<U128>() {
        return Ok(a.0);
    }
    if let Ok(s) = v.clone().into_immutable_string() {
        return s
            .replace('_', "")
            .parse::<u128>()
            .map_err(|e| invalid(format!("schedule_timer_ex: `{what}` `{s}`: {e}")));
    }
    Err(invalid(format!(
        "schedule_timer_ex: `{what}` must be an INT, a U128 or a decimal string, got {}",
        v.type_name()
    )))
}

pub(super) fn schedule(height: INT, payload: &[u8], opts: Option<&Map>) -> RhaiResult<String> {
    host_call(|h| {
        let mut args = ScheduleArgs {
            height: non_negative("height", height)?,
            payload: payload.to_vec(),
            ..ScheduleArgs::default()
        };
        if let Some(m) = opts {
            apply_schedule_options(m, &mut args)?;
        }
        h.schedule_timer(args).map(|id| id.to_string())
    })
}
