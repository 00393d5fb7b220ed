//! Writes a hunt's scenario as a fixture (docs/FIXTURES.md): the victim, the adversaries'
//! bots and their steps, and, for the worst one found, expectations pinning its figures.

use super::candidate::{Action, Candidate, TIERS, Template};
use super::victim::Victim;
use crate::engine::SchedulerKind;
use std::fmt::Write;

/// The victim's and the run's settings a fixture needs besides the candidate.
#[derive(Debug, Clone)]
pub struct Setting {
    pub name: String,
    pub scheduler: SchedulerKind,
    pub variants: Vec<String>,
    pub victim: Victim,
    pub funds: u128,
}

pub use super::victim::VICTIM;

/// Adversary `i`'s account (its bot is `adv-N-bot`).
pub fn adversary(i: usize) -> String {
    format!("adv-{}", i + 1)
}

pub fn bot(i: usize) -> String {
    format!("adv-{}-bot", i + 1)
}

fn victim_code(every: u64, cycles: u64) -> String {
    let gas = cycles.saturating_mul(2).saturating_add(50_000);
    let again = format!(r#"{{"op":"schedule","delta":{every},"gas_limit":{gas}}}"#);
    format!(r#"{{"deploy":[{again}],"handle_timer":[{{"op":"burn","cycles":{cycles}}},{again}]}}"#)
}

/// Where a bidder bot's script is, its template's figures in its name, so one name is one
/// text whatever the scheduler or the run.
fn bidder_path(cycles: u64, fee_x: u64, tip_x: u64) -> String {
    format!("scripts/hunt-bidder-{cycles}-{fee_x}-{tip_x}.rhai")
}

/// The script of a bidder bot from its path ([`bidder_path`]), if it is one.
pub fn bot_script(rel: &str) -> Option<String> {
    let figures = rel
        .strip_prefix("scripts/hunt-bidder-")?
        .strip_suffix(".rhai")?;
    let n: Vec<u64> = figures
        .split('-')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let [cycles, fee_x, tip_x] = n[..] else {
        return None;
    };
    Some(format!(
        "// A hunt adversary's bot (issue 33, docs/HUNT.md): burns {cycles} cycles a fire and prices\n\
         // its fires with its own GBA (CIP-1 v3 §7.2): a fee cap of {fee_x}x the lane basefee, a\n\
         // tip of {tip_x}x it.\n\
         fn deploy() {{}}\n\n\
         fn handle_timer(payload) {{\n    burn_cycles({cycles});\n}}\n\n\
         fn get_gas_bid(ctx) {{\n    let fee = ctx.basefee_lane_timer;\n    \
         #{{ max_fee_per_cycle: fee * {fee_x}, max_priority_fee_per_cycle: fee * {tip_x} }}\n}}\n"
    ))
}

/// The bidder scripts a fixture text loads, each with its text: what goes beside it.
pub fn bot_scripts(fixture: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for l in fixture.lines() {
        if let Some(rel) = l
            .strip_prefix("script = \"")
            .and_then(|r| r.strip_suffix('"'))
            && let Some(t) = bot_script(rel)
            && !out.iter().any(|(r, _)| r == rel)
        {
            out.push((rel.to_string(), t));
        }
    }
    out
}

/// A bot's actor line: its native code, or its script.
fn bot_source(t: &Template) -> String {
    match t {
        Template::Bidder {
            cycles,
            fee_x,
            tip_x,
        } => format!("script = \"{}\"", bidder_path(*cycles, *fee_x, *tip_x)),
        t => format!("native = '{}'", bot_code(t)),
    }
}

fn bot_code(t: &Template) -> String {
    match t {
        Template::Bidder { cycles, .. } => {
            format!(r#"{{"handle_timer":[{{"op":"burn","cycles":{cycles}}}]}}"#)
        }
        Template::Burner { cycles } => {
            format!(r#"{{"handle_timer":[{{"op":"burn","cycles":{cycles}}}]}}"#)
        }
        Template::Rescheduler {
            cycles,
            every,
            gas_limit,
        } => {
            let again = format!(r#"{{"op":"schedule","delta":{every},"gas_limit":{gas_limit}}}"#);
            format!(
                r#"{{"deploy":[{again}],"handle_timer":[{{"op":"burn","cycles":{cycles}}},{again}]}}"#
            )
        }
    }
}

/// The victim's figures at the run's end: over its actors (fires and fees summed, latencies
/// and W their largest), and each actor's, which the written fixture pins.
#[derive(Debug, Clone, Default)]
pub struct Pins {
    pub fires: u64,
    pub latency_p50: u64,
    pub latency_p99: u64,
    pub latency_max: u64,
    pub fees: u128,
    pub weight_bps: Option<u32>,
    pub each: Vec<ActorPins>,
}

/// One victim actor's figures.
#[derive(Debug, Clone, Default)]
pub struct ActorPins {
    pub actor: String,
    pub fires: u64,
    pub latency_p50: u64,
    pub latency_p99: u64,
    pub latency_max: u64,
    pub fees: u128,
    pub weight_bps: Option<u32>,
}

impl Pins {
    /// The victim's figures from its actors'.
    pub fn of(each: Vec<ActorPins>) -> Pins {
        Pins {
            fires: each.iter().map(|a| a.fires).sum(),
            latency_p50: each.iter().map(|a| a.latency_p50).max().unwrap_or(0),
            latency_p99: each.iter().map(|a| a.latency_p99).max().unwrap_or(0),
            latency_max: each.iter().map(|a| a.latency_max).max().unwrap_or(0),
            fees: each.iter().fold(0u128, |t, a| t.saturating_add(a.fees)),
            weight_bps: each.iter().filter_map(|a| a.weight_bps).max(),
            each,
        }
    }
}

fn header(out: &mut String, s: &Setting, c: &Candidate, description: &str) {
    let _ = writeln!(out, "name = {:?}", s.name);
    let _ = writeln!(out, "description = \"\"\"\n{description}\"\"\"");
    let _ = writeln!(out, "blocks = {}\n", c.blocks);
    match &s.victim {
        Victim::Fixture(f) => {
            let _ = writeln!(out, "{}", f.chain_text(s.scheduler.as_str()));
        }
        Victim::Heartbeat { .. } => {
            let _ = writeln!(out, "[chain]\nscheduler = \"{}\"\n", s.scheduler.as_str());
        }
    }
    if !s.variants.is_empty() {
        let _ = writeln!(out, "[variants]");
        for v in &s.variants {
            if let Some((n, val)) = v.split_once('=') {
                let _ = writeln!(out, "{n} = {val:?}");
            }
        }
        out.push('\n');
    }
}

fn parties(out: &mut String, s: &Setting, c: &Candidate) {
    match &s.victim {
        Victim::Heartbeat { .. } => {
            let _ = writeln!(
                out,
                "[[accounts]]\nname = \"victim-owner\"\nbalance = \"1000000000000000000\"\n"
            );
        }
        Victim::Fixture(f) => {
            let _ = writeln!(out, "{}", f.body);
        }
    }
    for i in 0..c.bots.len() {
        let _ = writeln!(
            out,
            "[[accounts]]\nname = \"{}\"\nbalance = \"{}\"\n",
            adversary(i),
            s.funds
        );
    }
    if let Victim::Heartbeat { every, cycles } = &s.victim {
        let _ = writeln!(
            out,
            "[[actors]]\nname = \"{VICTIM}\"\ndeployer = \"victim-owner\"\nbalance = \"100000000000000000\"\nnative = '{}'\n",
            victim_code(*every, *cycles)
        );
    }
    for (i, b) in c.bots.iter().enumerate() {
        let _ = writeln!(
            out,
            "[[actors]]\nname = \"{}\"\ndeployer = \"{}\"\nbalance = \"{}\"\n{}\n",
            bot(i),
            adversary(i),
            b.endowment,
            bot_source(&b.template)
        );
    }
}

fn step(out: &mut String, a: &Action, error: Option<&str>) {
    let _ = writeln!(out, "[[steps]]\nat = {}", a.at());
    match a {
        Action::Schedule {
            id,
            bot: b,
            height,
            gas_limit,
            tier,
            ttl,
            sender_pays,
            ..
        } => {
            let _ = writeln!(
                out,
                "action = \"schedule\"\nactor = \"{}\"\nheight = {height}\ngas_limit = {gas_limit}\nlabel = \"a{id}\"",
                bot(*b)
            );
            if let Some(t) = tier {
                let _ = writeln!(out, "priority_tier = \"{}\"", TIERS[*t]);
            }
            if let Some(t) = ttl {
                let _ = writeln!(out, "expires_at = {}", height + t);
            }
            if *sender_pays {
                let _ = writeln!(out, "fee_payer = \"sender\"");
            }
        }
        Action::Extend { bot: b, id, by, .. } => {
            let _ = writeln!(
                out,
                "action = \"extend\"\nactor = \"{}\"\ntimer = \"a{id}\"\nby = {by}",
                bot(*b)
            );
        }
        Action::Watch {
            id,
            bot: b,
            key,
            gas_limit,
            ..
        } => {
            let _ = writeln!(
                out,
                "action = \"watch\"\nactor = \"{}\"\nkeys = [\"k{key}\"]\ngas_limit = {gas_limit}\nlabel = \"a{id}\"",
                bot(*b)
            );
        }
        Action::Write { bot: b, key, .. } => {
            let _ = writeln!(
                out,
                "action = \"write\"\nactor = \"{}\"\nkey = \"k{key}\"",
                bot(*b)
            );
        }
        Action::Interval {
            id,
            bot: b,
            every,
            gas_limit,
            ..
        } => {
            let _ = writeln!(
                out,
                "action = \"interval\"\nactor = \"{}\"\nevery = {every}\ngas_limit = {gas_limit}\nlabel = \"a{id}\"",
                bot(*b)
            );
        }
        Action::Cancel { bot: b, id, .. } => {
            let _ = writeln!(
                out,
                "action = \"cancel\"\nactor = \"{}\"\ntimer = \"a{id}\"",
                bot(*b)
            );
        }
        Action::Transfer { adv, amount, .. } => {
            let _ = writeln!(
                out,
                "action = \"transfer\"\nfrom = \"{}\"\nto = \"{}\"\namount = \"{amount}\"",
                adversary(*adv),
                bot(*adv)
            );
        }
    }
    if let Some(e) = error {
        let _ = writeln!(out, "expect_error = {e:?}");
    }
    out.push('\n');
}

fn pins(out: &mut String, p: &Pins) {
    for a in &p.each {
        let mut one = |metric: &str, value: String| {
            let _ = writeln!(
                out,
                "[[expect]]\nmetric = \"{metric}\"\nactor = \"{}\"\nequals = {value}\n",
                a.actor
            );
        };
        one("fires", a.fires.to_string());
        one("latency_p50", a.latency_p50.to_string());
        one("latency_p99", a.latency_p99.to_string());
        one("latency_max", a.latency_max.to_string());
        one("fees", format!("\"{}\"", a.fees));
        if let Some(w) = a.weight_bps {
            one("weight_bps", w.to_string());
        }
    }
}

/// The fixture text of `c` under `s`. `errors[i]` is the error step `i` fails with (written
/// as its `expect_error`); `pins`, when given, are written as expectations.
pub fn fixture(
    s: &Setting,
    c: &Candidate,
    errors: &[Option<String>],
    pins_of: Option<&Pins>,
    description: &str,
) -> String {
    let mut out = String::with_capacity(4096);
    header(&mut out, s, c, description);
    parties(&mut out, s, c);
    for (i, a) in c.actions.iter().enumerate() {
        step(&mut out, a, errors.get(i).and_then(|e| e.as_deref()));
    }
    if let Some(p) = pins_of {
        pins(&mut out, p);
    }
    out
}
