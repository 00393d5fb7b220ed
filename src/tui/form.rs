//! The schedule form (`s`): its fields, the request it describes, and its keys.

use super::app::{App, Effect, Overlay};
use super::model::*;
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
    /// CIP-1 v3 §6 fee caps and §7.3 tier (optional: empty fields are priced by the GBA).
    MaxFee,
    MaxPriorityFee,
    Tier,
}

impl FormField {
    pub const ALL: [FormField; 10] = [
        FormField::Actor,
        FormField::When,
        FormField::Handler,
        FormField::Payload,
        FormField::FeePayer,
        FormField::Gas,
        FormField::ExpiresAt,
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
}

impl ScheduleForm {
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
        let at = if let Some(d) = when.strip_prefix('+') {
            height
                + 1
                + d.parse::<u64>()
                    .map_err(|_| format!("delay `{d}` is not a number"))?
        } else {
            when.parse::<u64>()
                .map_err(|_| format!("height `{when}` is not a number (or +delay)"))?
        };
        let opt_u64 = |f: FormField| -> Result<Option<u64>, String> {
            let v = self.value(f).trim();
            if v.is_empty() {
                Ok(None)
            } else {
                v.replace('_', "")
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{} `{v}` is not a number", f.label()))
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
                v.replace('_', "")
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{} `{v}` is not a number of nanos per cycle", f.label()))
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
        Ok(ScheduleRequest {
            actor,
            height: at,
            payload: self.value(FormField::Payload).as_bytes().to_vec(),
            handler: (!handler.is_empty()).then(|| handler.to_string()),
            from: None,
            fee_payer,
            gas_limit: opt_u64(FormField::Gas)?,
            expires_at: opt_u64(FormField::ExpiresAt)?,
            max_fee_per_cycle: opt_u128(FormField::MaxFee)?,
            max_priority_fee_per_cycle: opt_u128(FormField::MaxPriorityFee)?,
            priority_tier: tier,
        })
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

pub(crate) fn form_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let h = app.height();
    let n_actors = app.data.actors.len().max(1);
    let Overlay::Form(form) = &mut app.overlay else {
        return vec![];
    };
    let field = FormField::ALL[form.field];
    match k.code {
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            return vec![];
        }
        KeyCode::Tab | KeyCode::Down => form.field = (form.field + 1) % FormField::ALL.len(),
        KeyCode::BackTab | KeyCode::Up => {
            form.field = (form.field + FormField::ALL.len() - 1) % FormField::ALL.len()
        }
        KeyCode::Enter => match form.request(&app.data, h) {
            Ok(req) => return vec![Effect::Command(UiCommand::ScheduleTimer(req))],
            Err(m) => {
                form.error = Some(CommandError::new("InvalidInput", m));
                return vec![];
            }
        },
        KeyCode::Left if field == FormField::Actor => {
            form.actor = (form.actor + n_actors - 1) % n_actors;
        }
        KeyCode::Right if field == FormField::Actor => form.actor = (form.actor + 1) % n_actors,
        _ if field == FormField::Actor => return vec![],
        _ => {
            if !edit(&mut form.values[form.field], &k) {
                return vec![];
            }
        }
    }
    app.form_estimate()
}
