//! The one key table (issue 15): it drives the key handling, the status-bar hints and the `?`
//! overlay, so the three never disagree. A user file (TOML) rebinds actions by name:
//!
//! ```toml
//! [keys]
//! step = ["space", "n"]
//! quit = ["q", "ctrl-c"]
//! ```
//!
//! Text fields (the schedule form, prompts, the feed filter) take keys directly; the table
//! applies everywhere else.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;
use std::collections::BTreeMap;

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyAction {
    Quit,
    Help,
    FocusNext,
    FocusPrev,
    Up,
    Down,
    /// A page of a bucket's timers up or down (issue 31: a bucket of 100,000 is read a page
    /// at a time).
    PageUp,
    PageDown,
    Left,
    Right,
    Select,
    Close,
    Filter,
    PauseFeed,
    Schedule,
    Cancel,
    Extend,
    Step,
    StepTen,
    ToggleMining,
    Faster,
    Slower,
    Govern,
    Snapshot,
    Revert,
    /// Register a CIP-5 draft timer: a state watch or an interval (issue 22).
    Draft,
    Sort,
    Watch,
    Log,
    Copy,
    Back,
    Forward,
    BackTen,
    ForwardTen,
    Fork,
    Export,
    /// Issue 34 features: mouse capture on/off, back to where I was, maximise a pane, a raw
    /// view of a timer or an event.
    ToggleMouse,
    Return,
    Zoom,
    Raw,
    /// The timer finder (issue 32).
    Find,
    /// A fire's trace, from a timer's life (issue 32).
    Trace,
    /// The open block's transactions, with drop (issue 32).
    Pool,
    /// Call an actor's handler, or dry-run the call (issue 32).
    Call,
    /// The charts' window of blocks, narrower or wider (issue 34, btop-style).
    NarrowWindow,
    WidenWindow,
}

impl KeyAction {
    /// The name used in the override file.
    pub fn name(&self) -> &'static str {
        match self {
            KeyAction::Quit => "quit",
            KeyAction::Help => "help",
            KeyAction::FocusNext => "focus_next",
            KeyAction::FocusPrev => "focus_prev",
            KeyAction::Up => "up",
            KeyAction::Down => "down",
            KeyAction::PageUp => "page_up",
            KeyAction::PageDown => "page_down",
            KeyAction::Left => "left",
            KeyAction::Right => "right",
            KeyAction::Select => "select",
            KeyAction::Close => "close",
            KeyAction::Filter => "filter",
            KeyAction::PauseFeed => "pause_feed",
            KeyAction::Schedule => "schedule",
            KeyAction::Cancel => "cancel",
            KeyAction::Extend => "extend",
            KeyAction::Step => "step",
            KeyAction::StepTen => "step_ten",
            KeyAction::ToggleMining => "toggle_mining",
            KeyAction::Faster => "faster",
            KeyAction::Slower => "slower",
            KeyAction::Govern => "govern",
            KeyAction::Snapshot => "snapshot",
            KeyAction::Revert => "revert",
            KeyAction::Draft => "draft",
            KeyAction::Sort => "sort",
            KeyAction::Watch => "watch",
            KeyAction::Log => "log",
            KeyAction::Copy => "copy",
            KeyAction::Back => "back",
            KeyAction::Forward => "forward",
            KeyAction::BackTen => "back_ten",
            KeyAction::ForwardTen => "forward_ten",
            KeyAction::Fork => "fork",
            KeyAction::Export => "export",
            KeyAction::ToggleMouse => "toggle_mouse",
            KeyAction::Return => "return",
            KeyAction::Zoom => "zoom",
            KeyAction::Raw => "raw",
            KeyAction::Find => "find",
            KeyAction::Trace => "trace",
            KeyAction::Pool => "pool",
            KeyAction::Call => "call",
            KeyAction::NarrowWindow => "narrow_window",
            KeyAction::WidenWindow => "widen_window",
        }
    }
}

/// One key: a code and the modifiers that must be held (Shift is implied by the character).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySpec {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

impl KeySpec {
    /// Parses `q`, `N`, `?`, `ctrl-c`, `alt-x`, `space`, `enter`, `esc`, `tab`, `shift-tab`,
    /// `backspace`, `up`, `down`, `left`, `right`, `pageup`, `pagedown`, `home`, `end`, `f1`..
    pub fn parse(s: &str) -> Result<KeySpec, String> {
        let mut ctrl = false;
        let mut alt = false;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            if lower.starts_with("ctrl-") && rest.len() > 5 {
                ctrl = true;
                rest = &rest[5..];
            } else if lower.starts_with("alt-") && rest.len() > 4 {
                alt = true;
                rest = &rest[4..];
            } else {
                break;
            }
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "space" => KeyCode::Char(' '),
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "shift-tab" | "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            l if l.len() > 1 && l.starts_with('f') && l[1..].parse::<u8>().is_ok() => {
                KeyCode::F(l[1..].parse().expect("checked"))
            }
            _ => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => KeyCode::Char(if ctrl { c.to_ascii_lowercase() } else { c }),
                    _ => return Err(format!("unknown key `{s}`")),
                }
            }
        };
        Ok(KeySpec { code, ctrl, alt })
    }

    pub fn matches(&self, ev: &KeyEvent) -> bool {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        let alt = ev.modifiers.contains(KeyModifiers::ALT);
        if ctrl != self.ctrl || alt != self.alt {
            return false;
        }
        match (self.code, ev.code) {
            (KeyCode::Char(a), KeyCode::Char(b)) if self.ctrl => a.eq_ignore_ascii_case(&b),
            (a, b) => a == b,
        }
    }

    /// How the key is written in hints.
    pub fn label(&self) -> String {
        let key = match self.code {
            KeyCode::Char(' ') => "space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Backspace => "Bksp".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        let mut s = String::new();
        if self.ctrl {
            s.push_str("C-");
        }
        if self.alt {
            s.push_str("M-");
        }
        s.push_str(&key);
        s
    }
}

/// One row of the key table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyBinding {
    pub action: KeyAction,
    pub keys: Vec<KeySpec>,
    /// What the help overlay says.
    pub help: &'static str,
    /// The status bar's short word, when the action is hinted there.
    pub hint: Option<&'static str>,
}

/// The key table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyMap {
    bindings: Vec<KeyBinding>,
}

const DEFAULTS: &[(KeyAction, &[&str], &str, Option<&str>)] = &[
    (
        KeyAction::Step,
        &["space", "n"],
        "mine one block",
        Some("step"),
    ),
    (
        KeyAction::StepTen,
        &["N"],
        "mine ten blocks",
        Some("step 10"),
    ),
    (
        KeyAction::ToggleMining,
        &["p"],
        "pause or resume interval mining",
        Some("pause"),
    ),
    (KeyAction::Faster, &["+", "="], "shorter block time", None),
    (KeyAction::Slower, &["-"], "longer block time", None),
    (
        KeyAction::Schedule,
        &["s"],
        "schedule a timer (form)",
        Some("schedule"),
    ),
    (
        KeyAction::Cancel,
        &["c"],
        "cancel the selected timer",
        Some("cancel"),
    ),
    (
        KeyAction::Extend,
        &["e"],
        "extend the selected timer",
        Some("extend"),
    ),
    (
        KeyAction::Govern,
        &["g"],
        "governance: cancel, extend, config, activation",
        Some("gov"),
    ),
    (KeyAction::Snapshot, &["S"], "take a snapshot", None),
    (
        KeyAction::Back,
        &["["],
        "view one block back (history; Esc: the head)",
        None,
    ),
    (KeyAction::Forward, &["]"], "view one block forward", None),
    (KeyAction::BackTen, &["{"], "view ten blocks back", None),
    (
        KeyAction::ForwardTen,
        &["}"],
        "view ten blocks forward",
        None,
    ),
    (
        KeyAction::Fork,
        &["F"],
        "fork here: revert the chain to the viewed height (asks first)",
        None,
    ),
    (
        KeyAction::Export,
        &["W"],
        "write the session as a fixture: session-<height>.toml here",
        None,
    ),
    (KeyAction::Revert, &["R"], "revert to a snapshot", None),
    (
        KeyAction::Draft,
        &["D"],
        "CIP-5 drafts: register a state watch or an interval",
        None,
    ),
    (KeyAction::FocusNext, &["tab"], "focus the next pane", None),
    (
        KeyAction::FocusPrev,
        &["shift-tab"],
        "focus the previous pane",
        None,
    ),
    (KeyAction::Up, &["up", "k"], "move up", None),
    (KeyAction::Down, &["down", "j"], "move down", None),
    (
        KeyAction::PageUp,
        &["pageup"],
        "a bucket's timers: 20 rows up",
        None,
    ),
    (
        KeyAction::PageDown,
        &["pagedown"],
        "a bucket's timers: 20 rows down",
        None,
    ),
    (KeyAction::Left, &["left", "h"], "back (bucket list)", None),
    (
        KeyAction::Right,
        &["right", "l"],
        "into (a bucket's timers)",
        None,
    ),
    (
        KeyAction::Select,
        &["enter"],
        "details: the selected timer's life (buckets, feed, drafts' pane)",
        Some("details"),
    ),
    (
        KeyAction::Close,
        &["esc"],
        "close the overlay; viewing the past: back to the head",
        None,
    ),
    (
        KeyAction::Filter,
        &["/"],
        "filter the feed: kind, actor or timer",
        Some("filter"),
    ),
    (
        KeyAction::PauseFeed,
        &["f"],
        "pause or resume the event feed",
        None,
    ),
    (
        KeyAction::Sort,
        &["o"],
        "sort the fairness table by the next column",
        None,
    ),
    (
        KeyAction::Watch,
        &["w"],
        "watch the selected timer: its timeline under the status bar (several: each pinned; w again: stop)",
        Some("watch"),
    ),
    (
        KeyAction::Copy,
        &["y"],
        "copy the selected timer's (or actor's) full id to the clipboard (OSC 52)",
        None,
    ),
    (
        KeyAction::Find,
        &[":", "ctrl-f"],
        "find any timer: every timer the node knows, filtered as you type (see below)",
        None,
    ),
    (
        KeyAction::Pool,
        &["P"],
        "the pending transactions of the open block, newest first; d drops one (asks first)",
        None,
    ),
    (
        KeyAction::Call,
        &["a"],
        "call an actor: ACTOR METHOD [args as a JSON array] [from=NAME]; Tab completes the actor, C-d dry-runs it",
        None,
    ),
    (
        KeyAction::Trace,
        &["t"],
        "the selected timer's (or, in a life, that timer's) last fire's trace: host calls with their cycles, storage writes, output, where it failed",
        None,
    ),
    (
        KeyAction::Log,
        &["!"],
        "the message log: every status-line message in full",
        None,
    ),
    (
        KeyAction::Raw,
        &["v"],
        "raw view of the selected timer or event: every field, the payload as hex (y copies)",
        None,
    ),
    (
        KeyAction::Zoom,
        &["z"],
        "maximise the focused pane (z again: back); ←/→ scroll it sideways",
        None,
    ),
    (
        KeyAction::NarrowWindow,
        &["<"],
        "the lane charts' window: fewer blocks (32, 64, 128, 256, all kept)",
        None,
    ),
    (
        KeyAction::WidenWindow,
        &[">"],
        "the lane charts' window: more blocks, up to all the node keeps",
        None,
    ),
    (
        KeyAction::Return,
        &["b"],
        "back to where I was: the height and selection before the last fork, revert or jump",
        None,
    ),
    (
        KeyAction::ToggleMouse,
        &["m"],
        "mouse capture on/off (off: the terminal selects text)",
        None,
    ),
    (KeyAction::Help, &["?"], "this help", Some("help")),
    (KeyAction::Quit, &["q", "ctrl-c"], "quit", Some("quit")),
];

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap {
            bindings: DEFAULTS
                .iter()
                .map(|(action, keys, help, hint)| KeyBinding {
                    action: *action,
                    keys: keys
                        .iter()
                        .map(|k| KeySpec::parse(k).expect("default keys parse"))
                        .collect(),
                    help,
                    hint: *hint,
                })
                .collect(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OverrideFile {
    #[serde(default)]
    keys: BTreeMap<String, Vec<String>>,
}

impl KeyMap {
    pub fn bindings(&self) -> &[KeyBinding] {
        &self.bindings
    }

    /// The defaults with the actions a user file names rebound; every other action keeps its
    /// keys.
    pub fn with_overrides(toml_text: &str) -> Result<KeyMap, String> {
        let file: OverrideFile = toml::from_str(toml_text).map_err(|e| format!("key file: {e}"))?;
        let mut map = KeyMap::default();
        for (name, keys) in file.keys {
            let b = map
                .bindings
                .iter_mut()
                .find(|b| b.action.name() == name)
                .ok_or_else(|| format!("key file: unknown action `{name}`"))?;
            b.keys = keys
                .iter()
                .map(|k| KeySpec::parse(k).map_err(|e| format!("key file, `{name}`: {e}")))
                .collect::<Result<_, _>>()?;
        }
        // A key bound to two actions would reach only the first: refuse it, naming both.
        for (i, a) in map.bindings.iter().enumerate() {
            for b in &map.bindings[i + 1..] {
                if let Some(k) = a.keys.iter().find(|k| b.keys.contains(k)) {
                    return Err(format!(
                        "key file: `{}` is bound to both `{}` and `{}`",
                        k.label(),
                        a.action.name(),
                        b.action.name()
                    ));
                }
            }
        }
        Ok(map)
    }

    /// The action a key press means, first binding first.
    pub fn action_for(&self, ev: &KeyEvent) -> Option<KeyAction> {
        self.bindings
            .iter()
            .find(|b| b.keys.iter().any(|k| k.matches(ev)))
            .map(|b| b.action)
    }

    /// The keys of an action, as hints write them (`space/n`).
    pub fn keys_label(&self, action: KeyAction) -> String {
        self.bindings
            .iter()
            .find(|b| b.action == action)
            .map(|b| {
                b.keys
                    .iter()
                    .map(KeySpec::label)
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .unwrap_or_default()
    }

    /// `(keys, word)` for the status bar.
    pub fn hints(&self) -> Vec<(String, &'static str)> {
        self.bindings
            .iter()
            .filter_map(|b| {
                b.hint
                    .filter(|_| !b.keys.is_empty())
                    .map(|h| (b.keys[0].label(), h))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{KeyAction, KeyMap};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn key(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    #[test]
    fn defaults_and_overrides() {
        let m = KeyMap::default();
        assert_eq!(
            m.action_for(&key(KeyCode::Char(' '), KeyModifiers::NONE)),
            Some(KeyAction::Step)
        );
        assert_eq!(
            m.action_for(&key(KeyCode::Char('N'), KeyModifiers::SHIFT)),
            Some(KeyAction::StepTen)
        );
        assert_eq!(
            m.action_for(&key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(KeyAction::Quit)
        );
        assert_eq!(
            m.action_for(&key(KeyCode::Char('c'), KeyModifiers::NONE)),
            Some(KeyAction::Cancel)
        );
        let o = KeyMap::with_overrides("[keys]\nstep = [\"x\"]\n").unwrap();
        assert_eq!(
            o.action_for(&key(KeyCode::Char('x'), KeyModifiers::NONE)),
            Some(KeyAction::Step)
        );
        assert_eq!(
            o.action_for(&key(KeyCode::Char('n'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(o.keys_label(KeyAction::Quit), "q/C-c");
        assert!(KeyMap::with_overrides("[keys]\nnope = [\"x\"]\n").is_err());
        assert!(KeyMap::with_overrides("[keys]\nstep = [\"what\"]\n").is_err());
        let clash = KeyMap::with_overrides("[keys]\nstep = [\"s\"]\n").unwrap_err();
        assert!(
            clash.contains("`step`") && clash.contains("`schedule`"),
            "{clash}"
        );
    }
}
