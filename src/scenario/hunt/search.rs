//! The search (issue 33 hunt): seeded random generation, then local search around the best
//! found, and the shrinker. Deterministic for a seed whatever `jobs` is: each generation's
//! candidates are drawn from the seed alone, played in parallel, and ranked by
//! (score, then the lower index).

use super::candidate::{Action, Candidate, Limits};
use super::eval::{Baseline, Outcome, evaluate};
use super::spec::Measure;
use super::text::Setting;
use crate::scenario::sweep::SplitMix64;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a search needs besides its candidates.
pub struct Ctx<'a> {
    pub setting: &'a Setting,
    pub limits: Limits,
    pub measure: Measure,
    pub baseline: &'a Baseline,
    pub jobs: usize,
    pub done: &'a (dyn Fn() + Sync),
}

/// Plays `cs` on `ctx.jobs` threads; the outcomes come back in `cs`'s order.
pub fn evaluate_all(ctx: &Ctx<'_>, cs: &[Candidate]) -> Vec<Outcome> {
    let jobs = ctx.jobs.clamp(1, cs.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; cs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(c) = cs.get(i) else { break };
                    let o = evaluate(ctx.setting, c, &ctx.measure, ctx.baseline);
                    slots.lock().expect("no thread panics holding it")[i] = Some(o);
                    (ctx.done)();
                }
            });
        }
    });
    slots
        .into_inner()
        .expect("no thread panics holding it")
        .into_iter()
        .map(|o| o.expect("every candidate played"))
        .collect()
}

/// The worst candidates found so far, best first, with their global index.
struct Elite {
    keep: usize,
    best: Vec<(usize, Candidate, Outcome)>,
}

impl Elite {
    fn offer(&mut self, index: usize, c: Candidate, o: Outcome) {
        self.best.push((index, c, o));
        // Worse (larger score) first; ties to the earlier index.
        self.best
            .sort_by(|a, b| b.2.score.cmp(&a.2.score).then(a.0.cmp(&b.0)));
        self.best.truncate(self.keep);
    }
}

/// Search for at most `runs` runs (and `deadline`, when given), from `seed`.
pub fn search(
    ctx: &Ctx<'_>,
    seed: u64,
    runs: u64,
    population: usize,
    keep: usize,
    deadline: Option<std::time::Instant>,
) -> (Candidate, Outcome, u64) {
    let mut rng = SplitMix64::new(seed);
    let mut elite = Elite {
        keep,
        best: Vec::new(),
    };
    let mut played = 0u64;
    while played < runs {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        let n = (runs - played).min(population as u64) as usize;
        let cs: Vec<Candidate> = (0..n)
            .map(|i| {
                if elite.best.is_empty() || i % 4 == 3 {
                    Candidate::random(&mut rng, &ctx.limits)
                } else {
                    let k = i % elite.best.len();
                    elite.best[k].1.mutate(&mut rng, &ctx.limits)
                }
            })
            .collect();
        let outs = evaluate_all(ctx, &cs);
        for (i, (c, o)) in cs.into_iter().zip(outs).enumerate() {
            elite.offer(played as usize + i, c, o);
        }
        played += n as u64;
    }
    let (_, c, o) = elite.best.into_iter().next().expect("runs > 0");
    (c, o, played)
}

/// Is `o` at least as bad as `target`: the same broken state, and a measure no smaller.
fn as_bad(o: &Outcome, target: &Outcome) -> bool {
    o.score.broken == target.score.broken && o.score.measure >= target.score.measure
}

/// Tries `c2`; keeps it when it is at least as bad. Counts the tries.
fn attempt(ctx: &Ctx<'_>, best: &mut (Candidate, Outcome), c2: Candidate, tries: &mut u32) -> bool {
    *tries += 1;
    let o = evaluate(ctx.setting, &c2, &ctx.measure, ctx.baseline);
    if as_bad(&o, &best.1) {
        *best = (c2, o);
        return true;
    }
    false
}

fn halve(a: &Action) -> Option<Action> {
    let mut a = a.clone();
    match &mut a {
        Action::Schedule { gas_limit, .. }
        | Action::Watch { gas_limit, .. }
        | Action::Interval { gas_limit, .. }
            if *gas_limit > 2_000 =>
        {
            *gas_limit /= 2
        }
        Action::Transfer { amount, .. } if *amount > 1 => *amount /= 2,
        _ => return None,
    }
    Some(a)
}

/// Shrinks the worst: drops actions, halves amounts and gas limits, cuts blocks, each step
/// kept only while the run stays at least as bad; at most `max_tries` runs.
pub fn shrink(ctx: &Ctx<'_>, c: Candidate, o: Outcome, max_tries: u32) -> (Candidate, Outcome) {
    let mut best = (c, o);
    let mut tries = 0u32;
    let mut changed = true;
    while changed && tries < max_tries {
        changed = false;
        let mut i = best.0.actions.len();
        while i > 0 && tries < max_tries {
            i -= 1;
            let mut c2 = best.0.clone();
            c2.actions.remove(i);
            changed |= attempt(ctx, &mut best, c2, &mut tries);
        }
        for i in 0..best.0.actions.len() {
            if tries >= max_tries {
                break;
            }
            if let Some(a) = halve(&best.0.actions[i]) {
                let mut c2 = best.0.clone();
                c2.actions[i] = a;
                changed |= attempt(ctx, &mut best, c2, &mut tries);
            }
        }
        for b in 0..best.0.bots.len() {
            if tries < max_tries && best.0.bots[b].endowment > 1 {
                let mut c2 = best.0.clone();
                c2.bots[b].endowment /= 2;
                changed |= attempt(ctx, &mut best, c2, &mut tries);
            }
        }
        let cut = best.0.blocks - best.0.blocks / 4;
        if tries < max_tries && cut >= 2 && cut < best.0.blocks {
            let mut c2 = best.0.clone();
            c2.blocks = cut;
            c2.actions.retain(|a| a.at() < cut);
            changed |= attempt(ctx, &mut best, c2, &mut tries);
        }
    }
    best
}
