//! The lane pane's figures (issue 34, item 1): short labelled cells, each a whole value, laid
//! out in as many columns as the pane's width takes (the last block's figures first, then the
//! window's), so that at 120x34 they leave the chart its rows. Where the pane is too short the
//! last row says which figures are hidden and how to see them (`z` maximises the pane); no
//! value is ever cut mid-number.

use super::frame::short_amount;
use crate::tui::data::fmt_nanos;
use crate::tui::state::App;

/// One figure: its text (a label and a whole value) and the short name a "hidden" note uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    /// What the cell is, for the note that lists hidden cells.
    pub name: &'static str,
    /// Drawn in the warning colour (a deferral).
    pub hot: bool,
}

fn cell(name: &'static str, text: String) -> Cell {
    Cell {
        text,
        name,
        hot: false,
    }
}

/// The figures: the last block's, then the window's (tips, burn, first deferrals by reason).
pub fn cells(app: &App, eip: bool) -> Vec<Cell> {
    let rows = &app.data.lane;
    let status = app.data.status.as_ref();
    let sched = app.scheduler().as_str();
    let mut v = Vec::new();
    let Some(r) = rows.last() else {
        v.push(cell("last block", "no block yet".into()));
        return v;
    };
    v.push(cell(
        "last block",
        format!("last #{} {}", r.height, r.scheduler),
    ));
    // The cycles the basefee followed (Spec note 152): consumed under eip1559 by default,
    // else the budgets reserved; the other reading beside it.
    let consumed = r.utilisation_of == "consumed";
    let (main, other, other_name) = if consumed {
        (r.cycles_used, r.cycles_reserved, "reserved")
    } else {
        (r.cycles_reserved, r.cycles_used, "used")
    };
    v.push(cell(
        "utilisation",
        format!(
            "{} {} {}.{:02}%",
            r.utilisation_of,
            short_amount(main.into()),
            r.utilisation_bps / 100,
            r.utilisation_bps % 100
        ),
    ));
    v.push(cell(
        other_name,
        format!("{other_name} {}", short_amount(other.into())),
    ));
    v.push(cell(
        "selected",
        format!("selected {} · fired {}", r.selected, r.fired),
    ));
    // Issue 34, item 8: the block's own count (carried timers again each block).
    v.push(Cell {
        text: format!("deferred this block {}", r.deferred),
        name: "deferred",
        hot: r.deferred > 0,
    });
    v.push(cell(
        "gc",
        format!(
            "gc {} of {}",
            short_amount(r.gc_cycles.into()),
            short_amount(status.map_or(0, |s| s.gc_cycles).into())
        ),
    ));
    if eip || rows.iter().any(|r| r.p50_tip.is_some()) {
        let tips: u128 = rows.iter().map(|r| r.tips).sum();
        let burned: u128 = rows.iter().map(|r| r.burned).sum();
        let lane_burned: u128 = rows.iter().map(|r| r.lane_burned).sum();
        v.push(cell(
            "p50 tip",
            format!("p50 tip {}/cycle", r.p50_tip.map_or("—".into(), fmt_nanos)),
        ));
        v.push(cell("tips", format!("window tips {}", short_amount(tips))));
        v.push(cell(
            "burned",
            format!(
                "burned {} (lane {})",
                short_amount(burned),
                short_amount(lane_burned)
            ),
        ));
    } else {
        v.push(cell("tips", format!("no tips ({sched})")));
    }
    // Issue 34, item 8: these count `TimerDeferred` events over the lane window, recorded on
    // a timer's first deferral only (Spec note 147): a timer carried for 40 blocks counts once.
    let hot: Vec<&(String, u64)> = app
        .data
        .defer_reasons
        .iter()
        .filter(|(_, n)| *n > 0)
        .collect();
    if hot.is_empty() {
        v.push(cell("first deferrals", "first deferrals none".into()));
    }
    for (reason, n) in hot {
        v.push(Cell {
            text: format!("first deferred {reason} {n}"),
            name: "first deferrals",
            hot: true,
        });
    }
    v
}

/// Columns between two cells.
const GAP: usize = 2;

/// The cells in the most columns (up to 4) that fit `width`, column-major (a column is as wide
/// as its widest cell): each line is its cells, padded. One column when even that does not
/// fit; a cell wider than the line is then cut with `…` (never at 80 columns or more).
pub fn grid(cells: &[Cell], width: usize) -> Vec<Vec<(String, bool)>> {
    let n = cells.len().max(1);
    let fits = |k: usize| {
        let rows = n.div_ceil(k);
        let total: usize = cells
            .chunks(rows)
            .map(|c| c.iter().map(|c| c.text.chars().count()).max().unwrap_or(0))
            .sum::<usize>()
            + GAP * (k - 1);
        total <= width
    };
    let k = (1..=4.min(n)).rev().find(|k| fits(*k)).unwrap_or(1);
    let rows = n.div_ceil(k);
    let cols: Vec<&[Cell]> = cells.chunks(rows).collect();
    let widths: Vec<usize> = cols
        .iter()
        .map(|c| c.iter().map(|c| c.text.chars().count()).max().unwrap_or(0))
        .collect();
    (0..rows)
        .map(|i| {
            let mut line = Vec::new();
            for (c, col) in cols.iter().enumerate() {
                let Some(cell) = col.get(i) else { continue };
                let last = c + 1 == cols.len();
                let text = if k == 1 {
                    crate::tui::panes::overlays::head(&cell.text, width)
                } else if last {
                    cell.text.clone()
                } else {
                    format!("{:w$}", cell.text, w = widths[c] + GAP)
                };
                line.push((text, cell.hot));
            }
            line
        })
        .collect()
}

/// The last row when the rows from `shown_rows` on do not fit: which figures are hidden and
/// that `zoom_key` maximises the pane, in `width` columns (fewer names, then a count, where
/// the line is short: never a word cut).
pub fn hidden_note(cells: &[Cell], shown_rows: usize, width: usize, zoom_key: &str) -> String {
    let rows = grid(cells, width).len().max(1);
    // Column-major: the hidden cells are those at a row index of `shown_rows` or more.
    let hidden: Vec<&Cell> = cells
        .chunks(rows)
        .flat_map(|col| col.iter().skip(shown_rows))
        .collect();
    let mut names: Vec<&str> = hidden.iter().map(|c| c.name).collect();
    names.dedup();
    let tail = format!(" · {zoom_key} maximises");
    (0..=names.len())
        .rev()
        .map(|k| {
            let more = names.len() - k;
            match (k, more) {
                (0, _) => format!("▾ {} figures hidden{tail}", hidden.len()),
                (_, 0) => format!("▾ hidden: {}{tail}", names.join(", ")),
                (_, n) => format!("▾ hidden: {} +{n}{tail}", names[..k].join(", ")),
            }
        })
        .find(|l| l.chars().count() <= width)
        .unwrap_or_else(|| format!("▾ {zoom_key} maximises"))
}
