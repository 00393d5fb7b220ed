//! `hunt SPEC` (issue 33): the command line over `scenario::hunt`, which searches, shrinks
//! and writes the worst fixtures.

use crate::cli::{EXIT_FAILED, EXIT_OK, EXIT_OUTPUT, HuntArgs};
use crate::commands::Out;
use crate::sweep::{jobs, progress};
use anyhow::Result;
use cowboy_devnet::scenario::hunt::{self, HuntSpec, Options};

pub fn hunt(a: HuntArgs, out: &mut Out) -> Result<u8> {
    let mut spec = HuntSpec::read(&a.spec)?;
    if let Some(s) = a.seed {
        spec.seed = s;
    }
    if let Some(r) = a.runs {
        spec.budget.runs = r;
    }
    if !a.schedulers.is_empty() {
        spec.schedulers = a.schedulers.clone();
    }
    let ch = spec.check()?;
    let total = ch.spec.budget.runs * ch.schedulers.len() as u64;
    let bar = progress(total, a.common.progress, &ch.spec.name);
    let h = hunt::hunt(
        &ch,
        &Options {
            jobs: jobs(a.common.jobs),
            done: &|| bar.inc(1),
        },
    );
    bar.finish_and_clear();
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("error: creating {}: {e}", a.out.display());
        return Ok(EXIT_OUTPUT);
    }
    // The scripts the worst fixtures load (a fixture victim's actors', the bidder bots') go
    // beside them, where `run` looks.
    let bots = h
        .found
        .iter()
        .flat_map(|f| hunt::text::bot_scripts(&f.fixture));
    for (rel, text) in ch.victim.scripts().iter().cloned().chain(bots) {
        let p = a.out.join(&rel);
        let made = p.parent().map_or(Ok(()), std::fs::create_dir_all);
        if let Err(e) = made.and_then(|()| std::fs::write(&p, text)) {
            eprintln!("error: writing {}: {e}", p.display());
            return Ok(EXIT_OUTPUT);
        }
    }
    for f in &h.found {
        let p = a.out.join(format!("{}.toml", f.scheduler));
        if let Err(e) = std::fs::write(&p, &f.fixture) {
            eprintln!("error: writing {}: {e}", p.display());
            return Ok(EXIT_OUTPUT);
        }
    }
    if a.json {
        out.line(&serde_json::to_string_pretty(&h)?);
    } else {
        for l in hunt::table(&h).lines() {
            out.line(l);
        }
        out.line(&format!(
            "worst fixtures: {}/SCHEDULER.toml (replay: cowboy-devnet run FILE)",
            a.out.display()
        ));
    }
    if let Some(p) = &a.plot {
        if let Err(e) = hunt::plot::draw_svg(p, &h) {
            eprintln!("error: drawing {}: {e}", p.display());
            return Ok(EXIT_OUTPUT);
        }
        if !a.json {
            out.line(&format!("plot: {}", p.display()));
        }
    }
    let broken = h.found.iter().any(|f| f.broken.is_some());
    Ok(if broken { EXIT_FAILED } else { EXIT_OK })
}
