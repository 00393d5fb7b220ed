//! The pure view: `render(frame, &App, &Theme)` draws the whole dashboard from the app state,
//! nothing else. Tests call it on a `TestBackend`.

use super::panes;
pub use super::panes::frame::{pane_block, scroll_offset, short_amount};
use super::state::{App, Overlay, Pane};
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

/// Below this size the dashboard says so instead of drawing.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

/// Where each pane sits in a frame of this size (also what mouse focus would hit-test).
pub struct Areas {
    pub status: Rect,
    /// The watch strip and the story line (empty when neither shows).
    pub strip: Rect,
    pub buckets: Rect,
    pub tiers: Rect,
    pub lane: Rect,
    pub fairness: Rect,
    pub events: Rect,
    pub hints: Rect,
}

pub fn areas(area: Rect) -> Areas {
    areas_with(area, 0)
}

/// The areas with `strip` lines under the status bar (the watch strip, the story line).
pub fn areas_with(area: Rect, strip: u16) -> Areas {
    let [status, strip, body, events, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(strip),
        Constraint::Min(10),
        Constraint::Percentage(30),
        Constraint::Length(1),
    ])
    .areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body);
    let [buckets, tiers] =
        Layout::vertical([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(left);
    // Issue 34, item 1: the lane pane takes 60 % of the right column, so that at 120x34 (the
    // documented size) its figures leave the chart its rows; the fairness table scrolls.
    let [lane, fairness] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(right);
    Areas {
        status,
        strip,
        buckets,
        tiers,
        lane,
        fairness,
        events,
        hints,
    }
}

/// Draws the dashboard.
pub fn render(frame: &mut Frame, app: &App, theme: &Theme) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = vec![
            Line::from("terminal too small"),
            Line::from(format!(
                "need {MIN_WIDTH}x{MIN_HEIGHT}, have {}x{}",
                area.width, area.height
            )),
            Line::from(format!(
                "{}: quit",
                app.keys.keys_label(super::keys::KeyAction::Quit)
            )),
        ];
        let y = area.height.saturating_sub(3) / 2;
        let r = Rect::new(
            area.x,
            area.y + y,
            area.width,
            area.height.saturating_sub(y),
        );
        frame.render_widget(
            Paragraph::new(msg)
                .style(theme.get("warn"))
                .alignment(Alignment::Center)
                .wrap(Wrap { trim: true }),
            r,
        );
        return;
    }
    let a = areas_with(area, strip_lines(app));
    panes::status::render(frame, a.status, app, theme);
    panes::watch::render(frame, a.strip, app, theme);
    if app.data.status.is_none() {
        // Nothing read yet (an --attach to a devnet not answering): no figure is drawn as
        // if it were data.
        for (p, r, title) in [
            (Pane::Buckets, a.buckets, "buckets"),
            (Pane::Tiers, a.tiers, "calendar queue tiers"),
            (Pane::Lane, a.lane, "lane"),
            (Pane::Fairness, a.fairness, "fairness"),
            (Pane::Events, a.events, "events"),
        ] {
            let block = pane_block(title.into(), p, app, theme);
            let msg = match &app.link {
                Some(l) => format!("waiting for the devnet… ({l})"),
                None => "waiting for the devnet…".into(),
            };
            frame.render_widget(
                Paragraph::new(Line::styled(msg, theme.get("dim")))
                    .wrap(Wrap { trim: true })
                    .block(block),
                r,
            );
        }
    } else if app.zoom {
        // Issue 34: the focused pane over the whole body, scrolled sideways.
        let top = a.buckets.y;
        let body = Rect::new(area.x, top, area.width, a.hints.y.saturating_sub(top));
        super::zoom::render(frame, body, app, theme);
    } else {
        panes::buckets::render(frame, a.buckets, app, theme);
        panes::tiers::render(frame, a.tiers, app, theme);
        match &app.data.draft {
            Some(d) => panes::draft::render(frame, a.lane, app, d, theme),
            None => panes::lane::render(frame, a.lane, app, theme),
        }
        panes::fairness::render(frame, a.fairness, app, theme);
        panes::events::render(frame, a.events, app, theme);
    }
    panes::status::render_hints(frame, a.hints, app, theme);
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help => panes::modal::help(frame, area, app, theme),
        Overlay::Log => panes::modal::log(frame, area, app, theme),
        _ if panes::raw::render(frame, area, app, theme) => {}
        Overlay::Event(e) => panes::modal::event(frame, area, app, e, theme),
        Overlay::Confirm(c) => panes::modal::confirm(frame, area, c, theme),
        Overlay::Life(l) => panes::overlays::life(frame, area, app, l, theme),
        Overlay::LifeLoading(id) => panes::overlays::loading(frame, area, id, theme),
        Overlay::Form(f) => panes::overlays::form(frame, area, app, f, theme),
        Overlay::Prompt(p) => panes::overlays::prompt(frame, area, p, theme),
        Overlay::Finder(f) => panes::finder::draw(frame, area, app, f, theme),
        Overlay::Trace(t) => panes::trace::draw(frame, area, app, t, theme),
        // The body only: the status line above shows the drop's result (issue 32).
        Overlay::Pool(p) => {
            let top = a.buckets.y;
            let body = Rect::new(area.x, top, area.width, a.hints.y.saturating_sub(top));
            panes::pool::draw(frame, body, app, p, theme)
        }
        Overlay::DryRun(d) => panes::pool::draw_dry_run(frame, area, app, d, theme),
    }
}

/// Lines under the status bar: the story line while a fixture tells one, the watch strip
/// when a timer is watched.
pub fn strip_lines(app: &App) -> u16 {
    u16::from(app.watch.is_some()) + app.pinned.len() as u16 + u16::from(!app.story.is_empty())
}
