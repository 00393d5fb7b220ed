//! One file per pane; each draws into the area it is given from the app state alone.

pub mod buckets;
pub mod draft;
pub mod events;
pub mod fairness;
pub mod finder;
pub mod frame;
pub mod lane;
pub mod lane_chart;
pub mod lane_figures;
pub mod modal;
pub mod overlays;
pub mod pool;
pub mod raw;
pub mod status;
pub mod tiers;
pub mod trace;
pub mod watch;
