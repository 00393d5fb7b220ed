//! Fixtures and the headless runner (DESIGN.md, `scenario/`): scenario files that set up actors
//! and timers and replay them, with reports in JSON and CSV.

pub mod builtin;
pub mod fixture;
pub mod report;
pub mod runner;

pub use fixture::{FixtureError, LoadedFixture};
pub use report::Report;
pub use runner::{RunOptions, Scenario};
