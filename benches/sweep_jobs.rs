//! Issue 33, "Speed": "a sweep of N runs with `--jobs 2` within 1.2x of N/2 serial runs". The
//! same plan (the congestion fixture over two basefee-step variants and four, then sixteen,
//! lane targets: 8 and 32 runs) played on one thread, the baseline, and on two (`run_runs`,
//! what `sweep --jobs 2` calls). Target: `jobs_2` at most 0.6x `serial` (1.2 x N/2 runs'
//! time); on a machine with two cores that is the most a second thread can give.

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

const SIXTEEN: &str = "[2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500, 6000, 6500, 7000, 7500, 8000, 8500, 9000, 9500]";

fn group(c: &mut Criterion, spec_text: &str, runs: usize) {
    let spec: SweepSpec = toml::from_str(spec_text).expect("the spec parses");
    let plan = Plan::from_spec(&spec, Path::new(".")).expect("the spec plans");
    let all: Vec<usize> = (0..plan.runs.len()).collect();
    assert_eq!(all.len(), runs);
    let mut g = c.benchmark_group(format!("sweep_{runs}_runs"));
    g.sample_size(10);
    g.bench_function("serial", |b| {
        b.iter(|| black_box(run_runs(&plan, &all, 1, &|| {})))
    });
    g.bench_function("jobs_2", |b| {
        b.iter(|| black_box(run_runs(&plan, &all, 2, &|| {})))
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    group(c, SPEC, 8);
    group(c, &SPEC.replace("[4000, 5000, 6000, 7500]", SIXTEEN), 32);
}

criterion_group!(benches, bench);
criterion_main!(benches);
