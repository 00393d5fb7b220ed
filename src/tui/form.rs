//! The schedule form (`s`): its fields, the request it describes, and its keys.

use super::command::ScheduleRequest;
use super::data::{CommandError, DashboardData};
use super::outcome::Estimate;
use crate::engine::{Address, PriorityTier};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The schedule form's fields, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormField {
    Actor,
    When,
    Handler,
    Payload,
    FeePayer,
    Gas,
    ExpiresAt,
    /// The node's label for the timer (optional; issue 32, Spec note 191).
    Label,
    /// CIP-1 v3 §6 fee caps and §7.3 tier (optional: empty fields are priced by the GBA).
    MaxFee,
    MaxPriorityFee,
    Tier,
}

impl FormField {
    pub const ALL: [FormField; 11] = [
        FormField::Actor,
        FormField::When,
        FormField::Handler,
        FormField::Payload,
        FormField::FeePayer,
        FormField::Gas,
        FormField::ExpiresAt,
        FormField::Label,
        FormField::MaxFee,
        FormField::MaxPriorityFee,
        FormField::Tier,
    ];

    pub fn label(self) -> &'static str {
        match self {
            FormField::Actor => "actor",
            FormField::When => "height or +delay",
            FormField::Handler => "handler",
            FormField::Payload => "payload",
            FormField::FeePayer => "fee payer",
            FormField::Gas => "gas per fire",
            FormField::ExpiresAt => "expires_at",
            FormField::Label => "label",
            FormField::MaxFee => "max_fee_per_cycle",
            FormField::MaxPriorityFee => "max_priority_fee_per_cycle",
            FormField::Tier => "priority_tier",
        }
    }

    pub fn hint(self) -> &'static str {
        match self {
            FormField::Actor => "←/→ choose",
            FormField::When => "+N: N blocks from now",
            FormField::Handler => "empty: handle_timer",
            FormField::Payload => "text",
            FormField::FeePayer => "self, or a name / 0x address",
            FormField::Gas => "empty: max per fire",
            FormField::ExpiresAt => "empty: height + max TTL",
            FormField::Label => "optional: timer_list and the finder find it by this",
            FormField::MaxFee => "nanos/cycle; empty: 2 × lane basefee",
            FormField::MaxPriorityFee => "nanos/cycle; empty: tier or p50 tip",
            FormField::Tier => "economy|standard|fast|urgent",
        }
    }
}

/// The schedule form (`s`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleForm {
    pub actor: usize,
    /// Text of every field but the actor.
    pub values: [String; FormField::ALL.len()],
    pub field: usize,
    pub estimate: Option<Estimate>,
    pub error: Option<CommandError>,
    /// The request the last estimate was asked for: a reply for any other is stale.
    pub sent: Option<ScheduleRequest>,
    /// How many of [`FormField::ALL`] the form shows: all of them, or, under a scheduler with
    /// no timer lane (the CIP-5 drafts: their quotas pick the fires), not the CIP-1 v3 fee
    /// fields, which nothing there reads (issue 29).
    pub shown: usize,
}

impl ScheduleForm {
    /// The form for `actor` under `kind` (which fields it shows).
    pub(crate) fn for_scheduler(actor: usize, kind: crate::engine::SchedulerKind) -> Self {
        let mut f = Self::new(actor);
        if kind.facts().drafts {
            f.shown = FormField::MaxFee as usize;
        }
        f
    }

    pub(crate) fn new(actor: usize) -> Self {
        let mut values: [String; FormField::ALL.len()] = Default::default();
        values[1] = "+5".into();
        values[4] = "self".into();
        ScheduleForm {
            actor,
            values,
            field: 1,
            estimate: None,
            error: None,
            sent: None,
            shown: FormField::ALL.len(),
        }
    }

    pub fn value(&self, f: FormField) -> &str {
        &self.values[f as usize]
    }

    /// The request the form describes at head `height`, or what is wrong with it.
    pub fn request(&self, data: &DashboardData, height: u64) -> Result<ScheduleRequest, String> {
        let actor = *data
            .actors
            .get(self.actor)
            .ok_or("no actor is deployed: nothing can schedule a timer")?;
        let when = self.value(FormField::When).trim();
        // `+N` counts from the block being built (the head's next), as a fixture's `after`.
        // Checked: a delay past the last height is refused, never wrapped (issue 34, item 2).
        let at = if let Some(d) = when.strip_prefix('+') {
            let delay = parse_number::<u64>("delay", d)?;
            height
                .checked_add(1)
                .and_then(|h| h.checked_add(delay))
                .ok_or_else(|| {
                    format!(
                        "delay `{d}` is too large: #{height} + 1 + {d} is past the last height {}",
                        u64::MAX
                    )
                })?
        } else {
            parse_number::<u64>("height", when)?
        };
        let opt_u64 = |f: FormField| -> Result<Option<u64>, String> {
            let v = self.value(f).trim();
            if v.is_empty() {
                Ok(None)
            } else {
                parse_number::<u64>(f.label(), v).map(Some)
            }
        };
        let payer = self.value(FormField::FeePayer).trim();
        let fee_payer = match payer {
            "" | "self" => None,
            p => Some(resolve_address(data, p)?),
        };
        let handler = self.value(FormField::Handler).trim();
        // Prices are nanos per cycle, as `timer_schedule` takes them (contract decision 1).
        let opt_u128 = |f: FormField| -> Result<Option<u128>, String> {
            let v = self.value(f).trim();
            if v.is_empty() {
                Ok(None)
            } else {
                parse_number::<u128>(f.label(), v)
                    .map(Some)
                    .map_err(|e| format!("{e} of nanos per cycle"))
            }
        };
        let tier = match self.value(FormField::Tier).trim() {
            "" => None,
            t => Some(
                PriorityTier::ALL
                    .into_iter()
                    .find(|p| p.as_str() == t)
                    .ok_or_else(|| {
                        format!("priority_tier `{t}` is not economy, standard, fast or urgent")
                    })?,
            ),
        };
        let label = self.value(FormField::Label).trim();
        if !label.is_empty() {
            crate::node::check_label(label)?;
        }
        Ok(ScheduleRequest {
            actor,
            height: at,
            payload: self.value(FormField::Payload).as_bytes().to_vec(),
            handler: (!handler.is_empty()).then(|| handler.to_string()),
            from: None,
            fee_payer,
            gas_limit: check_gas(data, opt_u64(FormField::Gas)?)?,
            expires_at: opt_u64(FormField::ExpiresAt)?,
            max_fee_per_cycle: opt_u128(FormField::MaxFee)?,
            max_priority_fee_per_cycle: opt_u128(FormField::MaxPriorityFee)?,
            priority_tier: tier,
            label: (!label.is_empty()).then(|| label.to_string()),
        })
    }
}

/// The gas per fire within the scheduler's real cap (issue 34, item 13: under eip1559 the
/// auction cap, not `max_cycles_per_fire`, which the node's message names).
fn check_gas(data: &DashboardData, gas: Option<u64>) -> Result<Option<u64>, String> {
    let Some(s) = data.status.as_ref().filter(|s| s.gas_cap > 0) else {
        return Ok(gas);
    };
    match gas {
        Some(g) if g == 0 || g > s.gas_cap => {
            let why = if s.scheduler.facts().auction_cap {
                format!("the {} auction cap, CIP-1 v3 §10", s.scheduler)
            } else {
                "max_cycles_per_fire".to_string()
            };
            Err(format!(
                "gas per fire {g} must be in 1..={} ({why})",
                s.gas_cap
            ))
        }
        g => Ok(g),
    }
}

/// A name from the address book or a `0x` address.
fn resolve_address(data: &DashboardData, s: &str) -> Result<Address, String> {
    if let Some((a, _)) = data.names.iter().find(|(_, n)| n.as_str() == s) {
        return Ok(*a);
    }
    s.parse::<Address>()
        .map_err(|_| format!("`{s}` is neither a known name nor a 0x address"))
}

/// Edits a text field: characters append, Backspace deletes one, Ctrl-U clears it.
pub(crate) fn edit(s: &mut String, k: &KeyEvent) -> bool {
    if k.modifiers.contains(KeyModifiers::CONTROL) {
        if k.code == KeyCode::Char('u') {
            s.clear();
            return true;
        }
        return false;
    }
    match k.code {
        KeyCode::Backspace => {
            s.pop();
            true
        }
        KeyCode::Char(c) => {
            s.push(c);
            true
        }
        _ => false,
    }
}

/// An unsigned number typed in a field or a prompt (`_` separators allowed): one that does not
/// fit says it is too large and names the largest, instead of "not a number" (issue 34,
/// item 2); a sign or a letter is "not a number".
pub(crate) fn parse_number<T>(label: &str, s: &str) -> Result<T, String>
where
    T: std::str::FromStr<Err = std::num::ParseIntError> + std::fmt::Display + Bounded,
{
    let v = s.trim().replace('_', "");
    let named = if label.is_empty() {
        format!("`{}`", s.trim())
    } else {
        format!("{label} `{}`", s.trim())
    };
    v.parse::<T>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            format!("{named} is too large (at most {})", T::MAX_SHOWN)
        }
        std::num::IntErrorKind::Empty => format!("{named} is empty: type a number"),
        _ => format!("{named} is not a number"),
    })
}

/// The largest value of an unsigned integer type, for [`parse_number`]'s message.
pub(crate) trait Bounded {
    const MAX_SHOWN: &'static str;
}
impl Bounded for u64 {
    const MAX_SHOWN: &'static str = "18446744073709551615";
}
impl Bounded for u128 {
    const MAX_SHOWN: &'static str = "340282366920938463463374607431768211455";
}
impl Bounded for u32 {
    const MAX_SHOWN: &'static str = "4294967295";
}
