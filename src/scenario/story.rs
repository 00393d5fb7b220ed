//! A fixture step in words, for the story line the dashboard shows as a fixture is played
//! live (issue 23): `worker schedules doomed for +20`, `bob calls oracle.rearm`.

use super::fixture::Step;

/// One step as a short sentence.
pub fn describe_step(step: &Step) -> String {
    let by = |from: &Option<String>| {
        from.as_ref()
            .map_or(String::new(), |f| format!(" (from {f})"))
    };
    match step {
        Step::Schedule {
            actor,
            from,
            height,
            after,
            handler,
            label,
            fee_payer,
            ..
        } => {
            let when = match (height, after) {
                (Some(h), _) => format!("for #{h}"),
                (None, Some(a)) => format!("for +{a}"),
                (None, None) => "for the next block".into(),
            };
            format!(
                "{actor} schedules {}{when}{}{}{}",
                label
                    .as_ref()
                    .map_or("a timer ".into(), |l| format!("`{l}` ")),
                handler
                    .as_ref()
                    .map_or(String::new(), |h| format!(" → {h}")),
                fee_payer
                    .as_ref()
                    .filter(|p| p.as_str() != "self")
                    .map_or(String::new(), |p| format!(", paid by {p}")),
                by(from)
            )
        }
        Step::Cancel {
            actor, timer, from, ..
        } => format!("{actor} cancels `{timer}`{}", by(from)),
        Step::Extend {
            actor,
            timer,
            to,
            by: blocks,
            from,
            ..
        } => format!(
            "{actor} extends `{timer}`{}{}",
            match (to, blocks) {
                (Some(t), _) => format!(" to expire at {t}"),
                (None, Some(b)) => format!(" by {b} blocks"),
                _ => String::new(),
            },
            by(from)
        ),
        Step::Call {
            from,
            actor,
            handler,
            ..
        } => format!("{from} calls {actor}.{handler}"),
        Step::Transfer {
            from, to, amount, ..
        } => format!("{from} sends {} to {to}", amount.0),
        Step::GovCancel { timer, .. } => format!("governance cancels `{timer}`"),
        Step::GovExtend { timer, to, .. } => {
            format!("governance extends `{timer}` to expire at {to}")
        }
        Step::GovConfig { set, .. } => format!(
            "governance sets {}",
            set.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Step::SetBalance {
            account, balance, ..
        } => format!("{account}'s balance is set to {}", balance.0),
        Step::Halt { blocks, .. } => format!("the chain halts for {blocks} blocks"),
        Step::Tx { tx, .. } => format!("a transaction {tx}"),
        Step::Command { command, .. } => format!("the command {command}"),
        Step::Activate { height, .. } => format!(
            "governance activates {} at {height}",
            crate::engine::SchedulerKind::after_activation()
        ),
        Step::Watch(d) | Step::Interval(d) | Step::Write(d) => d.describe(step.action()),
    }
}
