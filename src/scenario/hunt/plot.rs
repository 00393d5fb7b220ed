//! `hunt --plot FILE.svg` (issue 33): per scheduler, the worst measure found beside the
//! baseline (no adversary), and what the adversaries spent to cause it (their fires' fees and
//! the funds they committed), as bars; a scheduler whose worst broke an invariant is marked.
//! Floats appear here for display only.

use super::Hunt;
use plotters::prelude::*;
use std::path::Path;

type Res = Result<(), Box<dyn std::error::Error>>;

/// A figure short: 1.2k, 3.4M, 7.5G, 1.1T.
fn human(v: f64) -> String {
    let (d, unit) = match v.abs() {
        a if a >= 1e12 => (1e12, "T"),
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e4 => (1e3, "k"),
        a if a >= 10.0 || v.fract() == 0.0 => return format!("{v:.0}"),
        _ => return format!("{v:.1}"),
    };
    format!("{:.1}{unit}", v / d)
}

/// One bar group: a scheduler's values, in the order of `series`.
fn bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    caption: &str,
    names: &[String],
    series: &[(&str, Vec<f64>)],
    marks: &[bool],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let max = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max)
        .max(1.0);
    let n = names.len() as u32;
    let mut c = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(0u32..n * 10, 0f64..max * 1.2)?;
    c.configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&|v| human(*v))
        .draw()?;
    let width = 8 / series.len().max(1) as u32;
    for (s, (label, values)) in series.iter().enumerate() {
        let col = Palette99::pick(s).to_rgba();
        for (i, v) in values.iter().enumerate() {
            let x0 = i as u32 * 10 + 1 + s as u32 * width;
            c.draw_series(std::iter::once(Rectangle::new(
                [(x0, 0.0), (x0 + width, *v)],
                col.filled(),
            )))?;
            c.draw_series(std::iter::once(Text::new(
                human(*v),
                (x0, *v + max * 0.03),
                ("sans-serif", 11),
            )))?;
        }
        c.draw_series(std::iter::once(Text::new(
            label.to_string(),
            (1 + s as u32 * 22, max * 1.17),
            ("sans-serif", 12).into_font().color(&col),
        )))?;
    }
    for (i, name) in names.iter().enumerate() {
        let mark = if marks[i] { " (invariant broken)" } else { "" };
        c.draw_series(std::iter::once(Text::new(
            format!("{name}{mark}"),
            (i as u32 * 10 + 1, -max * 0.06),
            ("sans-serif", 12),
        )))?;
    }
    Ok(())
}

/// Draws `h` to the SVG file `path`.
pub fn draw_svg(path: &Path, h: &Hunt) -> Res {
    let root = SVGBackend::new(path, (1000, 900)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "hunt {}: worst {} per scheduler (seed {})",
        h.name, h.measure, h.seed
    );
    let root = root.titled(&title, ("sans-serif", 20))?;
    let panels = root.split_evenly((3, 1));
    let names: Vec<String> = h.found.iter().map(|f| f.scheduler.clone()).collect();
    let marks: Vec<bool> = h.found.iter().map(|f| f.broken.is_some()).collect();
    let fig = |f: fn(&super::Found) -> u128| -> Vec<f64> {
        h.found.iter().map(|x| f(x) as f64).collect()
    };
    bars(
        &panels[0],
        &format!(
            "the victim's {}: worst found and with no adversary",
            h.measure
        ),
        &names,
        &[
            ("worst", fig(|f| f.measure)),
            ("baseline", fig(|f| f.baseline)),
        ],
        &marks,
    )?;
    bars(
        &panels[1],
        "what the adversaries' fires cost them (base units)",
        &names,
        &[("fees", fig(|f| f.adversary_fees))],
        &marks,
    )?;
    bars(
        &panels[2],
        "what the adversaries committed: endowments and top-ups (base units)",
        &names,
        &[("funds", fig(|f| f.adversary_funds))],
        &marks,
    )?;
    root.present()?;
    Ok(())
}
