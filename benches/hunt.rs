//! Issue 33, hunt speed: the scenario runs a hunt makes of a 200-block scenario with 10 actors
//! (the heartbeat victim and nine adversary bots), each built as fixture text and played by
//! the headless runner, beside the baseline: `run` of the same fixture text (parse, prepare,
//! play; what `cowboy-devnet run FILE` does after reading the file). Target: at least 200 runs
//! a second per core; the hunt's own overhead is the difference between the two.

use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::scenario::hunt::Measure;
use cowboy_devnet::scenario::hunt::candidate::{Candidate, Limits};
use cowboy_devnet::scenario::hunt::eval::{Baseline, evaluate, play_text};
use cowboy_devnet::scenario::hunt::text::{Setting, fixture};
use cowboy_devnet::scenario::hunt::victim::Victim;
use cowboy_devnet::scenario::sweep::SplitMix64;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn setting() -> Setting {
    Setting {
        name: "bench".into(),
        scheduler: SchedulerKind::Fifo,
        variants: Vec::new(),
        victim: Victim::Heartbeat {
            every: 5,
            cycles: 20_000,
        },
        funds: 1_000_000_000_000,
    }
}

fn candidates(n: usize) -> Vec<Candidate> {
    let limits = Limits {
        adversaries: 9,
        funds: 1_000_000_000_000,
        max_timers: 40,
        max_gas_per_block: 4_000_000,
        blocks: 200,
        watches: false,
        intervals: false,
    };
    let mut rng = SplitMix64::new(7);
    (0..n)
        .map(|_| Candidate::random(&mut rng, &limits))
        .collect()
}

fn bench(c: &mut Criterion) {
    let s = setting();
    let cs = candidates(8);
    let texts: Vec<String> = cs
        .iter()
        .map(|k| fixture(&s, k, &[], None, "bench"))
        .collect();
    let mut g = c.benchmark_group("hunt");
    g.sample_size(20);
    let measure = Measure::parse("latency_p99").expect("a built-in measure");
    let baseline = Baseline::default();
    let mut i = 0;
    g.bench_function("evaluate_200_blocks_10_actors", |b| {
        b.iter(|| {
            i = (i + 1) % cs.len();
            black_box(evaluate(&s, &cs[i], &measure, &baseline))
        })
    });
    let mut j = 0;
    g.bench_function("run_same_fixture_baseline", |b| {
        b.iter(|| {
            j = (j + 1) % texts.len();
            black_box(play_text(&texts[j], &[]).expect("no panic").expect("plays"))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
