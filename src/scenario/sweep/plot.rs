//! A sweep's summary plots (issue 33, "Sweep": "summary plots (a measure against a parameter,
//! per scheduler)"), drawn from the rows alone, so a sweep run whole and its shards merged
//! draw the same bytes.
//!
//! For every swept parameter with at least two numeric values among the played rows (the
//! x axes) and every measure of [`MEASURES`], one line chart: the measure against the
//! parameter, one line per scheduler (and per fixture, variant set and value of the other
//! parameters, when the sweep varies them). Rows that did not play (`error`, `refused`) are
//! left out. Floats appear here for display only.

use super::{Row, SweepError};
use plotters::prelude::*;
use std::collections::BTreeMap;

/// The measures the summary plots draw against each parameter: the worst actor's p99
/// latency, the highest lane basefee, the mean lane utilisation, and the timers fired,
/// expired and the fees burned.
pub const MEASURES: [&str; 6] = [
    "max_latency_p99",
    "lane_basefee_max",
    "utilisation_bps_mean",
    "fired",
    "expired",
    "burned",
];

/// A row field a plot can draw: every numeric field of [`Row`] (some are written as decimal
/// strings, being u128).
pub const PLOTTABLE: [&str; 16] = [
    "blocks",
    "fired",
    "deferred",
    "expired",
    "unfunded",
    "pending",
    "burned",
    "tipped",
    "full_lane_blocks",
    "max_latency_p99",
    "max_latency_p50",
    "lane_basefee_last",
    "lane_basefee_max",
    "utilisation_bps_mean",
    "index",
    "funds_conserved",
];

/// One drawn figure: its file name (`MEASURE-by-PARAM.svg`) and the SVG text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    pub file: String,
    pub svg: String,
}

/// One line of a chart: its label and its points, by x.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Whether a row played (its figures mean something).
fn played(r: &Row) -> bool {
    r.status == "ok" || r.status == "failed"
}

/// A row's parameters, `key=value` pairs as the plan wrote them (`;`-separated).
fn params_of(r: &Row) -> Vec<(&str, &str)> {
    r.params
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .collect()
}

fn number(s: &str) -> Option<f64> {
    s.trim().trim_matches('"').parse::<f64>().ok()
}

/// The value of `field` in `r`, as a number to draw.
pub fn value(r: &Row, field: &str) -> Option<f64> {
    let v = serde_json::to_value(r).ok()?;
    match v.get(field)? {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => number(s),
        serde_json::Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// The parameters a plot can put on its x axis: swept with at least two distinct numeric
/// values among the played rows, in name order.
pub fn axes(rows: &[Row]) -> Vec<String> {
    let mut seen: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in rows.iter().filter(|r| played(r)) {
        for (k, v) in params_of(r) {
            let vs = seen.entry(k).or_default();
            if !vs.contains(&v) {
                vs.push(v);
            }
        }
    }
    seen.into_iter()
        .filter(|(_, vs)| vs.len() >= 2 && vs.iter().all(|v| number(v).is_some()))
        .map(|(k, _)| k.to_string())
        .collect()
}

/// What tells one line from another: the scheduler, and whatever else varies among the rows
/// besides `x` (the fixture, the variants, the other parameters).
fn label(r: &Row, x: &str, many_fixtures: bool) -> String {
    let mut parts = vec![if r.scheduler.is_empty() {
        "(fixture's scheduler)".to_string()
    } else {
        r.scheduler.clone()
    }];
    if many_fixtures {
        parts.push(r.fixture.clone());
    }
    if !r.variants.is_empty() {
        parts.push(r.variants.clone());
    }
    parts.extend(
        params_of(r)
            .into_iter()
            .filter(|(k, _)| *k != x)
            .map(|(k, v)| format!("{k}={v}")),
    );
    parts.join(" ")
}

/// The lines of the chart of `y` against `x`. Errors name an `x` no played row sweeps and a
/// `y` that is not a numeric field of the rows.
pub fn series(rows: &[Row], x: &str, y: &str) -> Result<Vec<Series>, SweepError> {
    if !PLOTTABLE.contains(&y) {
        return Err(SweepError::UnknownMeasure(format!(
            "`{y}` is not a numeric column of the rows (one of {})",
            PLOTTABLE.join(", ")
        )));
    }
    let played_rows: Vec<&Row> = rows.iter().filter(|r| played(r)).collect();
    let many_fixtures = played_rows
        .iter()
        .any(|r| r.fixture != played_rows[0].fixture);
    let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in &played_rows {
        let Some(xv) = params_of(r)
            .into_iter()
            .find(|(k, _)| *k == x)
            .and_then(|(_, v)| number(v))
        else {
            continue;
        };
        if let Some(yv) = value(r, y) {
            lines
                .entry(label(r, x, many_fixtures))
                .or_default()
                .push((xv, yv));
        }
    }
    if lines.is_empty() {
        return Err(SweepError::UnknownParameter(format!(
            "no played row sweeps `{x}` with numeric values (swept: {})",
            axes(rows).join(", ")
        )));
    }
    Ok(lines
        .into_iter()
        .map(|(label, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            Series { label, points }
        })
        .collect())
}

/// A figure short: 1.2k, 3.4M, 7.5G.
fn human(v: f64) -> String {
    let (d, unit) = match v.abs() {
        a if a >= 1e12 => (1e12, "T"),
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e4 => (1e3, "k"),
        _ if v.fract() == 0.0 => return format!("{v:.0}"),
        _ => return format!("{v:.2}"),
    };
    format!("{:.1}{unit}", v / d)
}

/// The chart of `y` against `x` as SVG text.
pub fn chart(rows: &[Row], x: &str, y: &str) -> Result<String, SweepError> {
    let lines = series(rows, x, y)?;
    let mut svg = String::new();
    draw(&mut svg, &lines, x, y).map_err(|e| SweepError::BadSpec(format!("drawing: {e}")))?;
    Ok(svg)
}

fn bounds(lines: &[Series]) -> ((f64, f64), f64) {
    let xs = lines.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(x), h.max(x)));
    let pad = ((hi - lo) * 0.05).max(0.5);
    let ymax = lines
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max)
        .max(1.0);
    ((lo - pad, hi + pad), ymax * 1.15)
}

fn draw(svg: &mut String, lines: &[Series], x: &str, y: &str) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let ((x0, x1), ymax) = bounds(lines);
    let root = SVGBackend::with_string(svg, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut c = ChartBuilder::on(&root)
        .caption(format!("{y} against {x}"), ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, 0f64..ymax)
        .map_err(|x| e(&x))?;
    c.configure_mesh()
        .x_desc(x)
        .y_desc(y)
        .x_label_formatter(&|v| human(*v))
        .y_label_formatter(&|v| human(*v))
        .draw()
        .map_err(|x| e(&x))?;
    for (i, s) in lines.iter().enumerate() {
        let col = Palette99::pick(i).to_rgba();
        c.draw_series(LineSeries::new(
            s.points.iter().copied(),
            col.stroke_width(2),
        ))
        .map_err(|x| e(&x))?
        .label(s.label.clone())
        .legend(move |(px, py)| PathElement::new([(px, py), (px + 18, py)], col));
        c.draw_series(
            s.points
                .iter()
                .map(|p| Circle::new(*p, 4, Palette99::pick(i).filled())),
        )
        .map_err(|x| e(&x))?;
    }
    c.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))?;
    Ok(())
}

/// The summary plots of a sweep's rows: every measure of [`MEASURES`] against every axis of
/// [`axes`], in that order. None when no parameter was swept over numbers.
pub fn summary(rows: &[Row]) -> Vec<Figure> {
    let mut out = Vec::new();
    for x in axes(rows) {
        for y in MEASURES {
            if let Ok(svg) = chart(rows, &x, y) {
                out.push(Figure {
                    file: format!("{y}-by-{x}.svg"),
                    svg,
                });
            }
        }
    }
    out
}
