//! The charts' window of blocks (issue 34, btop-style): `<` and `>` (the key table's
//! `narrow_window` and `widen_window`) step the blocks the lane pane's charts and window
//! figures cover through 32, 64, 128, 256 and all the node keeps (at most
//! [`MAX_LANE_BLOCKS`], the most `scheduler_lane` answers). The window is the refresh's
//! `LaneQuery.last`, so an attached dashboard asks the server the same window; the chart's
//! title names it (Spec note 178).

use crate::node::MAX_LANE_BLOCKS;

/// The windows `<`/`>` step through, in blocks; the last is "all kept".
pub const WINDOWS: [u64; 5] = [32, 64, 128, 256, MAX_LANE_BLOCKS];

/// The window a dashboard starts with (128 blocks).
pub const DEFAULT_WINDOW: usize = 2;

/// The blocks the window `i` asks for.
pub fn blocks(i: usize) -> u64 {
    WINDOWS[i.min(WINDOWS.len() - 1)]
}

/// Whether window `i` is the widest ("all kept").
pub fn is_all(i: usize) -> bool {
    i + 1 >= WINDOWS.len()
}

/// Window `i` as the chart's title says it: `128 blocks`, or `all kept (412 blocks)` with the
/// count of blocks drawn (`shown`) when known.
pub fn title(i: usize, shown: Option<usize>) -> String {
    match (is_all(i), shown) {
        (true, Some(n)) => format!("all kept ({n} blocks)"),
        (true, None) => "all kept".into(),
        (false, _) => format!("{} blocks", blocks(i)),
    }
}

/// `values` squeezed to at most `width` points, each the largest of the blocks it stands for
/// (a sparkline one cell per point keeps the whole window, btop-style).
pub fn squeeze(values: &[u64], width: usize) -> Vec<u64> {
    if width == 0 || values.len() <= width {
        return values.to_vec();
    }
    let per = values.len().div_ceil(width);
    values
        .chunks(per)
        .map(|c| c.iter().copied().max().unwrap_or(0))
        .collect()
}
