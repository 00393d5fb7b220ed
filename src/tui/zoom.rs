//! A maximised pane (`z`, issue 34; lazygit's `+`): the focused pane over the whole body, drawn
//! at a width where nothing is cut (at least [`VIRTUAL_WIDTH`] columns) and scrolled sideways
//! with ←/→, so no number is cut at 120x34.

use super::panes;
use super::state::{App, Pane};
use super::theme::Theme;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::{Frame, Terminal};

/// The width a maximised pane is drawn at before it is scrolled into the screen.
pub const VIRTUAL_WIDTH: u16 = 240;

/// Draws one pane into `area` of `frame`.
pub fn pane(frame: &mut Frame, p: Pane, area: Rect, app: &App, theme: &Theme) {
    match p {
        Pane::Buckets => panes::buckets::render(frame, area, app, theme),
        Pane::Tiers => panes::tiers::render(frame, area, app, theme),
        Pane::Lane => match &app.data.draft {
            Some(d) => panes::draft::render(frame, area, app, d, theme),
            None => panes::lane::render(frame, area, app, theme),
        },
        Pane::Fairness => panes::fairness::render(frame, area, app, theme),
        Pane::Events => panes::events::render(frame, area, app, theme),
    }
}

/// The focused pane maximised over `area`, drawn [`VIRTUAL_WIDTH`] wide and shown from column
/// `app.hscroll` (clamped so the pane's right edge can be reached and not passed).
pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let vw = VIRTUAL_WIDTH.max(area.width);
    let Ok(mut t) = Terminal::new(TestBackend::new(vw, area.height));
    let drawn = t.draw(|f| pane(f, app.focus, Rect::new(0, 0, vw, area.height), app, theme));
    if drawn.is_err() {
        return;
    }
    let off = app.hscroll.min(vw - area.width);
    let src = t.backend().buffer().clone();
    let dst = frame.buffer_mut();
    for y in 0..area.height {
        for x in 0..area.width {
            if let (Some(from), Some(to)) = (
                src.cell((x + off, y)),
                dst.cell_mut((area.x + x, area.y + y)),
            ) {
                *to = from.clone();
            }
        }
    }
}
