//! `<` and `>`: the lane charts' window of blocks ([`crate::tui::chart_window`]).

use crate::tui::chart_window::{WINDOWS, title};
use crate::tui::state::{App, Effect};

/// `<` (narrower) or `>` (wider): the next window, a refresh to read it.
pub(super) fn step(app: &mut App, wider: bool) -> Vec<Effect> {
    let i = app.lane_window;
    let next = if wider {
        (i + 1).min(WINDOWS.len() - 1)
    } else {
        i.saturating_sub(1)
    };
    if next == i {
        app.toast(
            if wider {
                "the charts already show every block the node keeps"
            } else {
                "the charts already show the narrowest window (32 blocks)"
            },
            false,
        );
        return vec![];
    }
    app.lane_window = next;
    let text = format!("charts: {}", title(app.lane_window, None));
    app.toast(text, false);
    vec![Effect::Refresh]
}
