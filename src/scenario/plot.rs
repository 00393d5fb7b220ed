//! `--plot FILE.svg` of `run` and `compare`: the lane basefee and the lane utilisation over the
//! run, and each actor's fire latency, one series per scheduler, drawn with `plotters` (SVG
//! backend only). Floats appear here for display only.

use super::report::{ActorRow, BlockRow, PRICE_SCALE};
use plotters::prelude::*;
use std::path::Path;

/// Points a series keeps at most: past that it keeps every other point and samples half as
/// often, so a run of any length draws from at most this many points per series.
pub const MAX_POINTS: usize = 2048;

/// Actors drawn in the latency panel at most (those with the most fires).
pub const MAX_PLOTTED_ACTORS: usize = 24;

/// A series over heights in bounded memory (see [`MAX_POINTS`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub points: Vec<(u64, f64)>,
    /// A point is kept every `stride` samples.
    stride: u64,
    seen: u64,
}

impl Series {
    pub fn push(&mut self, height: u64, value: f64) {
        if self.stride == 0 {
            self.stride = 1;
        }
        if self.seen.is_multiple_of(self.stride) {
            self.points.push((height, value));
        }
        self.seen += 1;
        if self.points.len() > MAX_POINTS {
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride *= 2;
        }
    }

    fn max(&self) -> f64 {
        self.points.iter().map(|p| p.1).fold(0.0, f64::max)
    }

    fn last_height(&self) -> u64 {
        self.points.last().map_or(0, |p| p.0)
    }
}

/// What one run contributes to a plot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotRun {
    /// The series' name in the legend (the scheduler, `fifo` or `eip1559`).
    pub label: String,
    /// Lane basefee per block, in base units per cycle.
    pub basefee: Series,
    /// Lane utilisation per block, in percent.
    pub utilisation: Series,
    /// Per actor: name, latency p50, latency p99, fires.
    pub latency: Vec<(String, u64, u64, u64)>,
}

impl PlotRun {
    pub fn new(label: impl Into<String>) -> Self {
        PlotRun {
            label: label.into(),
            ..PlotRun::default()
        }
    }

    /// Adds a block's row (a row of `count` empty blocks adds its first and last heights).
    pub fn block(&mut self, row: &BlockRow) {
        let fee = row.lane_basefee as f64 / PRICE_SCALE as f64;
        let util = f64::from(row.utilisation_bps) / 100.0;
        self.basefee.push(row.height, fee);
        self.utilisation.push(row.height, util);
    }

    /// Sets the latency panel's figures from the report's actors.
    pub fn actors(&mut self, rows: &[ActorRow]) {
        self.latency = rows
            .iter()
            .map(|a| (a.actor.clone(), a.latency_p50, a.latency_p99, a.fires))
            .collect();
    }
}

type Res = Result<(), Box<dyn std::error::Error>>;

/// Pixels kept right of each panel for its legend.
const LEGEND_WIDTH: u32 = 340;

/// Draws the legend (one line and `label what` per run) in its own area beside a chart.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, RGBAColor)],
    what: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, (label, col)) in entries.iter().enumerate() {
        let y = 40 + 18 * i as i32;
        area.draw(&PathElement::new(
            vec![(8, y), (30, y)],
            col.stroke_width(3),
        ))?;
        let text: String = format!("{label} {what}").chars().take(56).collect();
        area.draw(&Text::new(text, (36, y - 6), ("sans-serif", 11)))?;
    }
    Ok(())
}

/// Draws `runs` to the SVG file `path`: three panels (lane basefee, lane utilisation, latency
/// per actor: a bar to p50 and a whisker to p99, with the figures written above), one colour
/// per run, every run in each panel, the legend in a column beside each panel (never over a
/// curve).
pub fn draw_svg(path: &Path, title: &str, runs: &[PlotRun]) -> Res {
    let root = SVGBackend::new(path, (1100, 1000)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let panels = root.split_evenly((3, 1));
    // Each panel: the chart, and a legend column to its right, so no legend covers a curve.
    let panels: Vec<_> = panels
        .iter()
        .map(|p| p.split_horizontally(p.dim_in_pixel().0.saturating_sub(LEGEND_WIDTH)))
        .collect();
    let entries: Vec<(String, RGBAColor)> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.label.clone(), Palette99::pick(i).to_rgba()))
        .collect();
    for ((_, legend_area), what) in panels
        .iter()
        .zip(["lane basefee", "utilisation", "latency"])
    {
        legend(legend_area, &entries, what)?;
    }
    let last = runs
        .iter()
        .map(|r| r.basefee.last_height())
        .max()
        .unwrap_or(1)
        .max(1);
    draw_basefee(&panels[0].0, runs, last)?;
    draw_utilisation(&panels[1].0, runs, last)?;
    draw_latency(&panels[2].0, runs)?;
    root.present()?;
    Ok(())
}

/// The drawing area of one panel's chart.
type Panel<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn colour(i: usize) -> RGBAColor {
    Palette99::pick(i).to_rgba()
}

/// The lane basefee over the heights, one line per run.
fn draw_basefee(area: &Panel<'_>, runs: &[PlotRun], last: u64) -> Res {
    let fee_max = runs.iter().map(|r| r.basefee.max()).fold(0.0, f64::max);
    let mut c = ChartBuilder::on(area)
        .caption("lane basefee (base units per cycle)", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(0..last + 1, 0f64..(fee_max * 1.1).max(1e-9))?;
    c.configure_mesh().x_desc("height").draw()?;
    for (i, r) in runs.iter().enumerate() {
        let col = colour(i);
        c.draw_series(LineSeries::new(r.basefee.points.iter().copied(), col))?;
    }
    Ok(())
}

/// The lane utilisation over the heights, one line per run.
fn draw_utilisation(area: &Panel<'_>, runs: &[PlotRun], last: u64) -> Res {
    let util_max = runs
        .iter()
        .map(|r| r.utilisation.max())
        .fold(100.0, f64::max);
    let mut c = ChartBuilder::on(area)
        .caption(
            "lane utilisation (% of LANE_TIMER_CYCLES)",
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(0..last + 1, 0f64..util_max * 1.05)?;
    c.configure_mesh().x_desc("height").draw()?;
    for (i, r) in runs.iter().enumerate() {
        let col = colour(i);
        c.draw_series(LineSeries::new(r.utilisation.points.iter().copied(), col))?;
    }
    Ok(())
}

/// The actors with the most fires over all runs (at most [`MAX_PLOTTED_ACTORS`]), in name
/// order, with their fires.
fn plotted_actors(runs: &[PlotRun]) -> Vec<(String, u64)> {
    let mut names: Vec<(String, u64)> = Vec::new();
    for r in runs {
        for (n, _, _, fires) in &r.latency {
            match names.iter_mut().find(|(m, _)| m == n) {
                Some(e) => e.1 += fires,
                None => names.push((n.clone(), *fires)),
            }
        }
    }
    names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    names.truncate(MAX_PLOTTED_ACTORS);
    names.sort();
    names
}

/// Each actor's fire latency per run: a bar to p50, a whisker to p99, the figures above.
fn draw_latency(area: &Panel<'_>, runs: &[PlotRun]) -> Res {
    let names = plotted_actors(runs);
    let lat_raw = runs
        .iter()
        .flat_map(|r| r.latency.iter().map(|l| l.2))
        .max()
        .unwrap_or(0);
    let lat_max = lat_raw.max(1) as f64;
    // A latency of 0 still gets a visible stub (and its figure above it), so a run where every
    // timer fired on time shows its bars rather than an empty chart.
    let stub = lat_max * 0.04;
    let group = runs.len().max(1) as f64 + 1.0;
    let width = (names.len().max(1) as f64) * group;
    let mut c = ChartBuilder::on(area)
        .caption(
            "fire latency per actor (blocks; bar p50, whisker p99)",
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(10)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..width, 0f64..lat_max * 1.25)?;
    c.configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("blocks")
        .draw()?;
    for (i, r) in runs.iter().enumerate() {
        let col = colour(i);
        let mut bars = Vec::new();
        for (a, (name, _)) in names.iter().enumerate() {
            if let Some((_, p50, p99, _)) = r.latency.iter().find(|l| &l.0 == name) {
                let x = a as f64 * group + i as f64 + 0.1;
                bars.push((x, *p50 as f64, *p99 as f64));
            }
        }
        c.draw_series(bars.iter().map(|(x, p50, _)| {
            Rectangle::new([(*x, 0.0), (*x + 0.8, p50.max(stub))], col.filled())
        }))?;
        c.draw_series(bars.iter().map(|(x, p50, p99)| {
            Text::new(
                format!("{p50}/{p99}"),
                (*x, p99.max(stub) + lat_max * 0.03),
                ("sans-serif", 10),
            )
        }))?;
        c.draw_series(bars.iter().map(|(x, p50, p99)| {
            PathElement::new(
                vec![
                    (*x + 0.4, *p50),
                    (*x + 0.4, *p99),
                    (*x + 0.2, *p99),
                    (*x + 0.6, *p99),
                ],
                BLACK,
            )
        }))?;
    }
    c.draw_series(names.iter().enumerate().map(|(a, (name, _))| {
        Text::new(
            name.clone(),
            (a as f64 * group, lat_max * 1.18),
            ("sans-serif", 12),
        )
    }))?;
    if lat_raw == 0 {
        c.draw_series(std::iter::once(Text::new(
            "every fire on time: all latencies are 0 blocks",
            (0.0, lat_max * 0.6),
            ("sans-serif", 14),
        )))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_keeps_at_most_max_points_however_long() {
        let mut s = Series::default();
        for h in 1..=100_000u64 {
            s.push(h, h as f64);
        }
        assert!(s.points.len() <= MAX_POINTS);
        assert!(s.points.len() > MAX_POINTS / 2);
        assert_eq!(s.points[0].0, 1);
        assert!(s.points.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
