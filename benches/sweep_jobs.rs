//! Issue 33, "Speed": "a sweep of N runs with `--jobs 2` within 1.2x of N/2 serial runs". The
//! same plan (the congestion fixture over two basefee-step variants and four lane targets:
//! eight runs) played on one thread, the baseline, and on two (`run_runs`, what `sweep
//! --jobs 2` calls). Target: `jobs_2` at most 0.6x `serial` (1.2 x N/2 runs' time); on a
//! machine with two cores that is the most a second thread can give.

use cowboy_devnet::scenario::sweep::{Plan, SweepSpec, run_runs};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;

const SPEC: &str = r#"
name = "bench"
fixtures = ["congestion"]
schedulers = ["eip1559"]

[set]
"cip1.lane" = { target_bps = 5000, max_step_bps = 1250, min_basefee_nanos = 8 }

[variants]
basefee_step = ["clip", "proportional"]

[params]
"cip1.lane.target_bps" = [4000, 5000, 6000, 7500]
"#;

fn bench(c: &mut Criterion) {
    let spec: SweepSpec = toml::from_str(SPEC).expect("the spec parses");
    let plan = Plan::from_spec(&spec, Path::new(".")).expect("the spec plans");
    let all: Vec<usize> = (0..plan.runs.len()).collect();
    assert_eq!(all.len(), 8);
    let mut g = c.benchmark_group("sweep_8_runs");
    g.sample_size(10);
    g.bench_function("serial", |b| {
        b.iter(|| black_box(run_runs(&plan, &all, 1, &|| {})))
    });
    g.bench_function("jobs_2", |b| {
        b.iter(|| black_box(run_runs(&plan, &all, 2, &|| {})))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
