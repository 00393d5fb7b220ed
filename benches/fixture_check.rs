//! Checking a fixture: `LoadedFixture::parse` + `Scenario::prepare` of fixtures of 2,500 and
//! 20,000 `schedule` steps (linear in the steps), beside the naive line lookup that rescans
//! the source up to each step (quadratic: it is what `prepare` did per step; measured at
//! 2,500 steps only, as it takes seconds per iteration at 20,000) and the indexed
//! lookup `LoadedFixture::line` that replaced it. Throughput is in steps per second.
//!
//! Run: `cargo bench --bench fixture_check`.

use cowboy_devnet::scenario::{LoadedFixture, Scenario, builtin};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// A fixture of `n` schedule steps over ten heights.
fn fixture(n: usize) -> String {
    let mut s = String::from(
        "name = \"steps\"\nblocks = 20\n\n[[accounts]]\nname = \"alice\"\nbalance = \"1_000_000_000_000_000\"\n\n[[actors]]\nname = \"a\"\ndeployer = \"alice\"\nbalance = \"100_000_000_000\"\n",
    );
    for i in 0..n {
        s += &format!(
            "\n[[steps]]\nat = {}\naction = \"schedule\"\nactor = \"a\"\nafter = 5\n",
            2 + i % 10
        );
    }
    s
}

/// The line of `offset`, counted from the start of the source (the naive lookup).
fn naive_line_of(source: &str, offset: usize) -> usize {
    source[..offset.min(source.len())].matches('\n').count() + 1
}

fn bench_fixture_check(c: &mut Criterion) {
    let mut g = c.benchmark_group("fixture_check");
    g.sample_size(10);
    let rt = DevnetRuntime::new();
    for n in [2_500usize, 20_000] {
        let text = fixture(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("prepare", n), &text, |b, text| {
            b.iter(|| {
                let lf = LoadedFixture::parse("steps.toml", text.clone()).unwrap();
                black_box(Scenario::prepare(&lf, &rt, &builtin::script_loader).unwrap())
            })
        });
        let lf = LoadedFixture::parse("steps.toml", text.clone()).unwrap();
        let starts: Vec<usize> = lf.fixture.steps.iter().map(|s| s.span().start).collect();
        g.bench_with_input(
            BenchmarkId::new("indexed_line_lookup", n),
            &starts,
            |b, s| b.iter(|| s.iter().map(|o| lf.line(*o)).sum::<usize>()),
        );
        g.bench_with_input(BenchmarkId::new("naive_line_lookup", n), &starts, |b, s| {
            b.iter(|| {
                s.iter()
                    .map(|o| naive_line_of(&lf.source, *o))
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_fixture_check);
criterion_main!(benches);
