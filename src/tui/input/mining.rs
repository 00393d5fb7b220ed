//! The mining keys: one block, ten blocks, pause or resume, the block time, a snapshot.

use crate::tui::command::UiCommand;
use crate::tui::data::MiningMode;
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, BLOCK_TIMES_MS, Effect};

pub(super) fn on_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    let out = match action {
        KeyAction::Step => vec![Effect::Command(UiCommand::Mine(1))],
        KeyAction::StepTen => vec![Effect::Command(UiCommand::Mine(10))],
        KeyAction::Snapshot => vec![Effect::Command(UiCommand::Snapshot)],
        KeyAction::ToggleMining => {
            let mode = match app.data.status.as_ref().map(|s| s.mining) {
                Some(MiningMode::Interval { .. }) => MiningMode::Manual,
                _ => MiningMode::Interval {
                    ms: app.block_time_ms,
                },
            };
            vec![Effect::Command(UiCommand::SetMining(mode))]
        }
        KeyAction::Faster | KeyAction::Slower => block_time(app, action == KeyAction::Faster),
        _ => return None,
    };
    Some(out)
}

/// `+`/`-`: the next shorter or longer block time; it applies at once while interval mining
/// runs, else when mining resumes.
fn block_time(app: &mut App, faster: bool) -> Vec<Effect> {
    let i = BLOCK_TIMES_MS
        .iter()
        .position(|t| *t >= app.block_time_ms)
        .unwrap_or(BLOCK_TIMES_MS.len() - 1);
    let j = if faster {
        i.saturating_sub(1)
    } else {
        (i + 1).min(BLOCK_TIMES_MS.len() - 1)
    };
    app.block_time_ms = BLOCK_TIMES_MS[j];
    if let Some(MiningMode::Interval { .. }) = app.data.status.as_ref().map(|s| s.mining) {
        return vec![Effect::Command(UiCommand::SetMining(
            MiningMode::Interval {
                ms: app.block_time_ms,
            },
        ))];
    }
    app.toast(
        format!(
            "block time {} ms (applies when mining resumes: p)",
            app.block_time_ms
        ),
        false,
    );
    vec![]
}
