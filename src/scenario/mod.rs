//! Fixtures and the headless runner (DESIGN.md, `scenario/`): scenario files that set up actors
//! and timers and replay them, with reports in JSON and CSV.

pub mod amount;
pub mod base;
pub mod builtin;
pub mod command_step;
pub mod draft_step;
mod expect;
mod expect_trace;
pub mod export;
pub mod fixture;
mod fixture_expect;
pub mod gov_set;
pub mod hunt;
pub mod lines;
pub mod live;
pub mod plot;
pub mod report;
pub mod runner;
pub mod scripts;
pub mod story;
pub mod sweep;
pub mod translate;
mod validate;

pub use fixture::{FixtureError, LoadedFixture};
pub use report::Report;
pub use runner::{MAX_RUN_BLOCKS, RunOptions, Scenario};
pub use validate::DEFAULT_GOVERNANCE_BALANCE;
