//! A dump's text (issue 31 item 7, Spec note 195): what the node's thread pays for a dump, and
//! what making the text costs in time and heap, at 100,000 pending timers.
//!
//! - `copy_on_node_thread`: what the node's thread does now (`NodeCore::dump_copy`: a clone
//!   sharing the timer pages); beside it `naive_dump_on_node_thread`, what it did before (the
//!   whole dump's image, `DumpState`).
//! - `stream_text`: the image and its text written into a writer as it is made (what
//!   `devnet_dumpState` and a `--state` save do now); beside it `naive_value_then_text`, the
//!   image turned into a `serde_json::Value` and then into a string (what the RPC answer did
//!   before). Their peak heap (counting allocator) is printed once.
//!
//! Run: `cargo bench --bench dump_text`.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use common::fleet;
use cowboy_devnet::node::{DumpState, NodeCore};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::io::Write;

const TIMERS: u64 = 100_000;
const ACTORS: u64 = 100;

fn node() -> NodeCore {
    let (mut c, genesis) = fleet::fleet_chain(fleet::uncapped_genesis(), ACTORS, fleet::FLEET_RICH);
    c.test_hook_insert_timers(fleet::spread_timers(0, TIMERS, 1_000, 100_000, |i| {
        fleet::fleet_actor(ACTORS, i)
    }))
    .expect("fresh ids");
    c.seal_block();
    fleet::node_from(&c, genesis)
}

/// Counts what is written, keeps nothing.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn stream(n: &NodeCore) -> usize {
    let copy = n.dump_copy().unwrap();
    let mut w = Count(0);
    cowboy_devnet::chain::dump::write_dump_text(&mut w, &copy.dump()).unwrap();
    w.0
}

fn naive(n: &mut NodeCore) -> usize {
    let d = n.apply(DumpState).unwrap();
    let v = serde_json::to_value(&*d).unwrap();
    serde_json::to_string(&v).unwrap().len()
}

fn bench(c: &mut Criterion) {
    let mut n = node();
    let (len, streamed) = counting_alloc::measure(|| stream(&n));
    let (_, naive_heap) = counting_alloc::measure(|| naive(&mut n));
    eprintln!(
        "dump_text: {TIMERS} timers, {len} bytes of text; peak heap streamed {:.1} MB, naive (Value then text) {:.1} MB",
        streamed.peak as f64 / 1e6,
        naive_heap.peak as f64 / 1e6
    );
    let mut g = c.benchmark_group("dump_text");
    g.sample_size(10);
    g.bench_function("copy_on_node_thread", |b| {
        b.iter(|| black_box(n.dump_copy().unwrap()))
    });
    g.bench_function("naive_dump_on_node_thread", |b| {
        b.iter(|| black_box(n.apply(DumpState).unwrap()))
    });
    g.bench_function("stream_text", |b| b.iter(|| black_box(stream(&n))));
    g.bench_function("naive_value_then_text", |b| {
        b.iter(|| black_box(naive(&mut n)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
