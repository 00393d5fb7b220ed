//! The timer record (CIP-5 §3.1), its id (§3.3) and the `_handler` payload convention (§4.2).

use super::config::{DEFAULT_HANDLER, MAX_HANDLER_BYTES};
use super::events::DeferReason;
use super::types::{Address, TimerId, keccak_parts};
use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// The CIP-1 v3 per-timer extension lives with the vocabulary the engine's modules share.
pub use super::args::FeeCaps;

/// A pending one-shot timer.
///
/// Fields of CIP-5 §3.1 plus what the queue needs: `seq` (global insertion order, which fixes
/// FIFO order within a height bucket, CIP-5 §7) and `schedule_block`. The two fee caps are the
/// CIP-1 v3 §6 parameters; they are absent (zero) and unused under the FIFO scheduler, and boxed
/// so that a timer without them stays small. The handler (§4.2) is not stored: it is a function
/// of the payload ([`Timer::handler`]).
///
/// Size: 136 bytes inline, payload bytes apart (see the memory benchmark, ≤ 256 B per timer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Timer {
    pub timer_id: TimerId,
    pub actor_address: Address,
    pub fee_payer: Address,
    /// Height the timer was scheduled for. A timer carried over (deferred by the lane, or left
    /// by the GC budget) keeps this height and is due at the next block.
    pub height: u64,
    pub seq: u64,
    pub schedule_block: u64,
    pub gas_limit_per_fire: u64,
    pub expires_at: u64,
    #[serde(with = "payload_b64")]
    #[schemars(with = "String")]
    pub payload: Box<[u8]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee_caps: Option<Box<FeeCaps>>,
}

/// The handler a timer invokes: the default `handle_timer`, or one named through the
/// `{"_handler", "_payload"}` convention. The default takes no heap space.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Handler {
    Default,
    Named(Box<str>),
}

impl Handler {
    pub fn name(&self) -> &str {
        match self {
            Handler::Default => DEFAULT_HANDLER,
            Handler::Named(n) => n,
        }
    }
}

/// CIP-5 §3.3: `keccak256(actor[20] || height[8 BE] || payload || nonce[8 BE])`.
///
/// Spec note (open point 1): the literal "transaction nonce" makes two schedules in one
/// transaction with the same height and payload collide, and two senders with equal nonces
/// calling one actor collide too. We take "the transaction nonce of the calling actor" to be the
/// scheduling *actor's* own account nonce, which advances by one on every successful schedule
/// (as an EVM contract's nonce advances on every CREATE). Ids are then unique by construction;
/// the queue still rejects a duplicate id defensively.
pub fn derive_timer_id(actor: &Address, height: u64, payload: &[u8], nonce: u64) -> TimerId {
    TimerId(keccak_parts(&[
        &actor.0,
        &height.to_be_bytes(),
        payload,
        &nonce.to_be_bytes(),
    ]))
}

/// Applies the CIP-5 §4.2 `_handler` convention. Returns the handler and, for a payload that
/// uses the convention, the decoded inner payload.
///
/// Spec note (§4.2, the `_handler` convention): a payload uses the convention when it parses
/// (as a whole, JSON whitespace allowed before and after) as a JSON object with a `_handler`
/// key. Such a payload must then name a handler: `_handler` a string of 1..=256 bytes, and
/// `_payload`, if present, a string of standard (padded) base64, the inner payload the handler
/// receives (absent: empty). Other keys are ignored. A payload that claims the convention but
/// breaks one of these rules is `Err` (scheduling rejects it with `InvalidInput`, so nothing is
/// scheduled that could only fail or silently reach another handler). Every other payload (not
/// JSON, not an object, no `_handler` key) goes unchanged to `handle_timer`.
pub fn parse_handler_convention(payload: &[u8]) -> Result<(Handler, Option<Vec<u8>>), String> {
    let is_ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    if payload.iter().find(|b| !is_ws(b)) != Some(&b'{') {
        return Ok((Handler::Default, None));
    }
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(payload)
    else {
        return Ok((Handler::Default, None));
    };
    let Some(name) = map.get("_handler") else {
        return Ok((Handler::Default, None));
    };
    let serde_json::Value::String(name) = name else {
        return Err(format!(
            "`_handler` must be a string naming the handler, got {}",
            json_kind(name)
        ));
    };
    if name.is_empty() {
        return Err("handler name is empty".into());
    }
    if name.len() > MAX_HANDLER_BYTES {
        return Err(format!(
            "handler name is {} bytes, the limit is {MAX_HANDLER_BYTES}",
            name.len()
        ));
    }
    let inner = match map.get("_payload") {
        None => Vec::new(),
        Some(serde_json::Value::String(b64)) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| format!("`_payload` is not valid base64: {e}"))?,
        Some(other) => {
            return Err(format!(
                "`_payload` must be a base64 string, got {}",
                json_kind(other)
            ));
        }
    };
    let handler = if name == DEFAULT_HANDLER {
        Handler::Default
    } else {
        Handler::Named(name.as_str().into())
    };
    Ok((handler, Some(inner)))
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Builds a `{"_handler", "_payload"}` payload (for fixtures, the dashboard and RPC).
pub fn handler_payload(handler: &str, inner: &[u8]) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "_handler": handler,
        "_payload": base64::engine::general_purpose::STANDARD.encode(inner),
    }))
    .expect("json of strings")
}

impl Timer {
    /// Heap bytes the timer owns apart from its inline fields: its payload and its boxed fee
    /// caps (issue 31: a slab page copied on write copies these too, Spec note 203).
    pub fn heap_bytes(&self) -> usize {
        self.payload.len()
            + self
                .fee_caps
                .as_ref()
                .map_or(0, |_| std::mem::size_of::<FeeCaps>())
    }

    /// The handler this timer invokes (CIP-5 §4.2): named by the `_handler` convention, else
    /// `handle_timer`. Scheduling validated the name, so this never fails.
    pub fn handler(&self) -> Handler {
        parse_handler_convention(&self.payload).map_or(Handler::Default, |(h, _)| h)
    }

    /// The handler and the payload it receives: the inner payload under the `_handler`
    /// convention, the raw payload otherwise.
    pub fn dispatch(&self) -> (Handler, Vec<u8>) {
        match parse_handler_convention(&self.payload) {
            Ok((h, Some(inner))) => (h, inner),
            _ => (Handler::Default, self.payload.to_vec()),
        }
    }

    /// The payload the handler receives (see [`dispatch`](Self::dispatch)).
    pub fn delivered_payload(&self) -> Vec<u8> {
        self.dispatch().1
    }

    /// `(max_fee_per_cycle, max_priority_fee_per_cycle)`, zero when unset.
    pub fn fee_caps(&self) -> (u128, u128) {
        self.fee_caps.as_deref().map_or((0, 0), |c| {
            (
                c.max_fee_per_cycle.unwrap_or(0),
                c.max_priority_fee_per_cycle.unwrap_or(0),
            )
        })
    }

    /// `(blocks carried, last deferral reason)` (Spec note 54); `(0, None)` for a timer
    /// never deferred.
    pub fn carry(&self) -> (u32, Option<DeferReason>) {
        self.fee_caps
            .as_deref()
            .map_or((0, None), |c| (c.carried, c.last_defer))
    }

    /// Blocks this timer has been carried once the blocks below `next_height` ran: the heights
    /// from its first deferral to `next_height − 1` (Spec note 71), 0 if never deferred. The
    /// stored count is only rewritten when the record changes (a carried timer that stays
    /// deferred by the lane is not touched, see `queue::carry`), so readers derive it here.
    pub fn carried_by(&self, next_height: u64) -> u32 {
        match self.fee_caps.as_deref() {
            Some(c) => match c.first_deferred {
                Some(first) if self.height < next_height => {
                    u32::try_from(next_height.saturating_sub(first)).unwrap_or(u32::MAX)
                }
                _ => c.carried,
            },
            None => 0,
        }
    }

    /// Rewrites the stored carry count as [`carried_by`](Self::carried_by) derives it.
    pub fn refresh_carried(&mut self, next_height: u64) {
        let n = self.carried_by(next_height);
        if let Some(c) = self.fee_caps.as_deref_mut()
            && c.first_deferred.is_some()
        {
            c.carried = n;
        }
    }

    /// Records this timer's deferral by the block at `height`; returns its carry count, the
    /// heights from its first deferral to this one (Spec note 71: derived, not counted, so the
    /// committed record changes only on the first deferral and on a change of reason).
    pub fn record_deferral(&mut self, reason: DeferReason, height: u64) -> u32 {
        let c = self.fee_caps.get_or_insert_with(Default::default);
        // A record from before `first_deferred` existed: its count gives the first height.
        let first = *c
            .first_deferred
            .get_or_insert(height.saturating_sub(c.carried as u64));
        c.carried =
            u32::try_from(height.saturating_sub(first).saturating_add(1)).unwrap_or(u32::MAX);
        c.last_defer = Some(reason);
        c.carried
    }

    /// The leaf this timer contributes to the state root: a digest of every field (the handler
    /// is committed through the payload that names it; absent fee caps hash as zero). A timer
    /// with CIP-1 v3 fee parameters appends them (which are set, and the tier), so a CIP-5
    /// timer's leaf is what it always was. A timer that has been deferred appends its carry
    /// record (first deferral height, last reason; Spec note 71), so a never-deferred timer's
    /// leaf is also unchanged.
    pub fn leaf(&self) -> [u8; 32] {
        let (max_fee, max_priority_fee) = self.fee_caps();
        let mut ext: Vec<u8> = match self.fee_caps.as_deref().filter(|c| c.has_fees()) {
            None => Vec::new(),
            Some(c) => vec![
                b'x',
                c.max_fee_per_cycle.is_some() as u8,
                c.max_priority_fee_per_cycle.is_some() as u8,
                c.priority_tier.map_or(0, |t| t.tag()),
            ],
        };
        if let Some(c) = self.fee_caps.as_deref()
            && let (Some(first), Some(reason)) = (c.first_deferred, c.last_defer)
        {
            ext.push(b'd');
            ext.extend_from_slice(&first.to_be_bytes());
            ext.push(reason.tag());
        }
        keccak_parts(&[
            b"timer",
            &self.timer_id.0,
            &self.actor_address.0,
            &self.fee_payer.0,
            &self.height.to_be_bytes(),
            &self.seq.to_be_bytes(),
            &self.schedule_block.to_be_bytes(),
            &self.gas_limit_per_fire.to_be_bytes(),
            &self.expires_at.to_be_bytes(),
            &max_fee.to_be_bytes(),
            &max_priority_fee.to_be_bytes(),
            &(self.payload.len() as u32).to_be_bytes(),
            &self.payload,
            &ext,
        ])
    }
}

mod payload_b64 {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(v))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u8]>, D::Error> {
        let s = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .map(Vec::into_boxed_slice)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inline record the queue's slab holds per timer (the memory target counts it).
    #[test]
    fn timer_record_stays_small() {
        assert_eq!(std::mem::size_of::<Timer>(), 136);
        assert_eq!(std::mem::size_of::<Option<Timer>>(), 136);
    }

    #[test]
    fn convention_routes_to_named_handler() {
        let p = handler_payload("tick", b"abc");
        let (h, inner) = parse_handler_convention(&p).unwrap();
        assert_eq!(h.name(), "tick");
        assert_eq!(inner.unwrap(), b"abc");
    }

    #[test]
    fn non_convention_goes_to_default() {
        for p in [
            &b"hello"[..],
            b"{\"_payload\":\"\"}",
            b"{bad json",
            b"",
            b"[1]",
            b"{\"a\":1} x",
        ] {
            let (h, inner) = parse_handler_convention(p).unwrap();
            assert_eq!(h, Handler::Default);
            assert!(inner.is_none());
        }
    }

    #[test]
    fn convention_allows_whitespace_and_an_absent_payload() {
        let (h, inner) = parse_handler_convention(b" \n\t{\"_handler\":\"x\"}\r\n").unwrap();
        assert_eq!(h.name(), "x");
        assert_eq!(inner.unwrap(), b"");
    }

    #[test]
    fn broken_convention_is_an_error() {
        for p in [
            &b"{\"_handler\":1,\"_payload\":\"\"}"[..],
            b"{\"_handler\":\"x\",\"_payload\":\"not base64!\"}",
            b"{\"_handler\":\"x\",\"_payload\":7}",
            b"{\"_handler\":\"\"}",
        ] {
            assert!(
                parse_handler_convention(p).is_err(),
                "{}",
                String::from_utf8_lossy(p)
            );
        }
    }

    #[test]
    fn id_depends_on_every_input() {
        let a = Address::from_label("a");
        let base = derive_timer_id(&a, 10, b"p", 0);
        assert_ne!(base, derive_timer_id(&a, 11, b"p", 0));
        assert_ne!(base, derive_timer_id(&a, 10, b"q", 0));
        assert_ne!(base, derive_timer_id(&a, 10, b"p", 1));
        assert_ne!(
            base,
            derive_timer_id(&Address::from_label("b"), 10, b"p", 0)
        );
    }
}
