//! Issue 32, "off by default at no cost": the shipped `demo` fixture (100 blocks, five actors,
//! calls, deploys and about 50 fires) played headless with tracing off (the baseline: what
//! every run does) and with tracing on (`run --trace`: every call, deploy and fire traced and
//! kept), in the same process. The off figure is the cost of the switch; the on figure the
//! cost of recording every host call.

use cowboy_devnet::scenario::builtin::{self, FIXTURES};
use cowboy_devnet::scenario::fixture::LoadedFixture;
use cowboy_devnet::scenario::runner::{RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn scenario(trace: bool) -> Scenario {
    let text = FIXTURES.iter().find(|(n, _)| *n == "demo").unwrap().1;
    let lf = LoadedFixture::parse("demo.toml", text.to_string()).expect("parses");
    let rt = DevnetRuntime::new();
    let mut s = Scenario::prepare(&lf, &rt, &builtin::script_loader).expect("prepares");
    s.trace = trace;
    s
}

fn play(s: &Scenario) -> u64 {
    let opts = RunOptions {
        blocks: None,
        skip_rows: true,
        keep_blocks: None,
    };
    let (r, node) = s
        .run_devnet(DevnetRuntime::shared(), opts, &mut |_, _| {})
        .expect("plays");
    black_box(node.kept_traces().len());
    r.summary.fired
}

fn bench(c: &mut Criterion) {
    let (off, on) = (scenario(false), scenario(true));
    assert_eq!(play(&off), play(&on), "tracing changes no outcome");
    let mut g = c.benchmark_group("traces");
    g.sample_size(20);
    g.bench_function("demo_tracing_off_baseline", |b| b.iter(|| play(&off)));
    g.bench_function("demo_tracing_on", |b| b.iter(|| play(&on)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
