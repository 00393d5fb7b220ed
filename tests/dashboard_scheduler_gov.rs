//! Issue 21 §3 in the dashboard: the `g config` prompt takes the CIP-1 v3 parameters
//! governance tunes (§7.3 tier multipliers, §8 fairness window, §10 auction cap) beside the
//! `TimerConfig` fields, sends them as `gov_updateSchedulerConfig`, and refuses a line that
//! mixes the two or names a value the chain refuses, changing nothing. And issue 21 §2: the
//! status bar names the variants in force that are not the default.

mod common;

use common::keys::{code, key, press, typed};
use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::scenario::{RunOptions, builtin};
use cowboy_devnet::tui::app::App;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::prompt::{config_fields, govern_help};
use cowboy_devnet::tui::refresh;
use cowboy_devnet::vm::DevnetRuntime;
use crossterm::event::KeyCode;

fn devnet() -> LocalDevnet {
    devnet_with(&[])
}

fn devnet_with(variants: &[&str]) -> LocalDevnet {
    let mut sc = builtin::scenario("congestion", &DevnetRuntime::new())
        .expect("ships")
        .expect("prepares");
    sc.set_variants(variants).expect("variants");
    let (_, node) = sc
        .run_with(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |b, _| {
                if b.header.height >= 3 {
                    std::ops::ControlFlow::Break(())
                } else {
                    std::ops::ControlFlow::Continue(())
                }
            },
        )
        .expect("runs");
    LocalDevnet::new(node, sc.address_book())
}

fn params(src: &LocalDevnet) -> (u32, u64, u64) {
    let p = src.chain().cip1_config().scheduler_params();
    (
        p.tier_fast_bps,
        p.fairness_window_blocks,
        p.max_cycles_per_fire_auction,
    )
}

#[test]
fn cip1_v3_7_3_8_10_g_config_governs_the_scheduler_parameters() {
    let mut src = devnet();
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    for f in [
        "tier_economy_bps",
        "tier_standard_bps",
        "tier_fast_bps",
        "tier_urgent_bps",
        "fairness_window_blocks",
        "max_cycles_per_fire_auction",
    ] {
        assert!(config_fields(app.scheduler()).contains(&f));
        assert!(govern_help("config ", app.scheduler()).contains(f));
    }
    // Issue 29: the prompt offers the fields the scheduler in force takes (the registry's
    // governance sections): the drafts' are not offered here, and are theirs under a draft.
    assert!(!config_fields(app.scheduler()).contains(&"max_fires_per_block"));
    assert!(!govern_help("config ", app.scheduler()).contains("w_fifo"));
    assert!(config_fields(SchedulerKind::Cip5Draft).contains(&"max_fires_per_block"));
    let before = params(&src);
    // A mixed line and a refused value change nothing.
    for line in [
        "config tier_fast_bps=20000 max_ttl_blocks=10",
        "config tier_fast_bps=0",
    ] {
        press(&mut src, &mut app, &[key('g')]);
        press(&mut src, &mut app, &typed(line));
        press(&mut src, &mut app, &[code(KeyCode::Enter)]);
        let t = app.toast.clone();
        let p_err = matches!(&app.overlay, cowboy_devnet::tui::app::Overlay::Prompt(p) if p.error.is_some());
        assert!(p_err || t.is_some_and(|t| t.error), "{line}");
        press(&mut src, &mut app, &[code(KeyCode::Esc)]);
        press(&mut src, &mut app, &[key(' ')]);
        assert_eq!(params(&src), before, "{line}");
    }
    press(&mut src, &mut app, &[key('g')]);
    press(
        &mut src,
        &mut app,
        &typed(
            "config tier_fast_bps=20000 fairness_window_blocks=50 max_cycles_per_fire_auction=200000",
        ),
    );
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let t = app.toast.clone().expect("a toast");
    assert!(!t.error, "{t:?}");
    assert_eq!(
        t.text,
        "governance updated the scheduler config (from the next block)"
    );
    assert_eq!(params(&src), before, "not before the block is sealed");
    press(&mut src, &mut app, &[key(' ')]);
    assert_eq!(params(&src), (20_000, 50, 200_000));
}

#[test]
fn issue_21_the_status_bar_names_the_non_default_variants() {
    let theme = cowboy_devnet::tui::theme::Theme::default();
    let line = |src: &mut LocalDevnet| {
        let mut app = App::new(KeyMap::default());
        refresh(src, &mut app);
        cowboy_devnet::tui::panes::status::status_line(&app, &theme, 240).to_string()
    };
    let plain = line(&mut devnet());
    assert!(!plain.contains("variants"), "{plain}");
    let named = line(&mut devnet_with(&[
        "tie_break=schedule_order",
        "basefee_step=proportional",
    ]));
    assert!(
        named.contains("variants basefee_step=proportional,tie_break=schedule_order"),
        "{named}"
    );
}
