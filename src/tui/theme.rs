//! Themes keyed by what things mean (issue 15, "How it behaves"). The shipped themes are the
//! TOML files in `themes/`, embedded at build time; a user file names only the keys it changes
//! and is laid over a shipped base. `NO_COLOR` selects `mono`, drawn with bold, reverse and
//! underline only: the dashboard itself never emits a colour then, rather than relying on the
//! terminal library's own `NO_COLOR` handling.
//!
//! ```toml
//! base = "dark"          # optional, the theme this one changes
//! [styles]
//! selection = { fg = "black", bg = "#ffaf00", modifiers = ["bold"] }
//! [kinds]
//! TimerFired = { fg = "green" }
//! ```

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::str::FromStr;

/// `(name, TOML)` of the shipped themes.
pub const SHIPPED: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("colorblind", include_str!("../../themes/colorblind.toml")),
    ("mono", include_str!("../../themes/mono.toml")),
];

/// Every key a theme may set, and what it colours.
pub const KEYS: &[(&str, &str)] = &[
    ("text", "ordinary text"),
    ("dim", "secondary text, empty values"),
    ("title", "pane titles"),
    ("border", "pane borders"),
    ("border_focus", "the focused pane's border"),
    ("selection", "the selected row"),
    ("header", "table headers"),
    ("status", "the status bar"),
    ("status_key", "figures in the status bar"),
    ("hint_key", "keys in the hint bar"),
    ("ok", "a command that succeeded"),
    ("warn", "warnings (paused, dropped events)"),
    ("error", "a command that failed"),
    ("basefee_line", "the basefee chart"),
    ("utilisation_line", "the lane utilisation chart"),
    ("gc_line", "the GC lane chart"),
    ("bucket_due", "the bucket due next"),
    ("bucket_over", "a bucket whose gas exceeds the lane"),
    ("tier_ring", "the ring occupancy bars"),
    ("event_default", "events of a kind the theme does not name"),
];

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StyleSpec {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    modifiers: Vec<String>,
}

impl StyleSpec {
    fn style(&self, key: &str) -> Result<Style, String> {
        let color = |c: &Option<String>| -> Result<Option<Color>, String> {
            c.as_deref()
                .map(|s| {
                    Color::from_str(s).map_err(|_| format!("theme `{key}`: unknown colour `{s}`"))
                })
                .transpose()
        };
        let mut st = Style::default();
        if let Some(c) = color(&self.fg)? {
            st = st.fg(c);
        }
        if let Some(c) = color(&self.bg)? {
            st = st.bg(c);
        }
        for m in &self.modifiers {
            st = st.add_modifier(match m.as_str() {
                "bold" => Modifier::BOLD,
                "dim" => Modifier::DIM,
                "italic" => Modifier::ITALIC,
                "underlined" | "underline" => Modifier::UNDERLINED,
                "reversed" | "reverse" => Modifier::REVERSED,
                other => return Err(format!("theme `{key}`: unknown modifier `{other}`")),
            });
        }
        Ok(st)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    base: Option<String>,
    #[serde(default)]
    styles: BTreeMap<String, StyleSpec>,
    #[serde(default)]
    kinds: BTreeMap<String, StyleSpec>,
}

/// A resolved theme.
#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    pub name: String,
    styles: BTreeMap<String, Style>,
    kinds: BTreeMap<String, Style>,
}

impl Default for Theme {
    fn default() -> Self {
        Theme::shipped("dark").expect("the dark theme ships")
    }
}

impl Theme {
    /// The style of a meaning (`title`, `selection`, ...); unset keys draw plain.
    pub fn get(&self, key: &str) -> Style {
        self.styles.get(key).copied().unwrap_or_default()
    }

    /// The style of an event kind (`TimerFired`, ...).
    pub fn kind(&self, kind: &str) -> Style {
        self.kinds
            .get(kind)
            .copied()
            .unwrap_or_else(|| self.get("event_default"))
    }

    /// A shipped theme by name.
    pub fn shipped(name: &str) -> Result<Theme, String> {
        let text = SHIPPED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| {
                let names: Vec<_> = SHIPPED.iter().map(|(n, _)| *n).collect();
                format!("no theme `{name}` (shipped: {})", names.join(", "))
            })?;
        Theme::parse(name, text, None)
    }

    /// A theme file laid over its `base` (default `dark`): only the keys it names change.
    pub fn parse(name: &str, text: &str, base: Option<&Theme>) -> Result<Theme, String> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| format!("theme {name}: {e}"))?;
        let mut theme = match (&file.base, base) {
            (Some(b), _) if b != name => Theme::shipped(b)?,
            (_, Some(b)) => b.clone(),
            _ => Theme {
                name: name.into(),
                styles: BTreeMap::new(),
                kinds: BTreeMap::new(),
            },
        };
        theme.name = name.into();
        for (k, spec) in &file.styles {
            if !KEYS.iter().any(|(key, _)| key == k) {
                return Err(format!("theme {name}: unknown key `{k}`"));
            }
            theme.styles.insert(k.clone(), spec.style(k)?);
        }
        for (k, spec) in &file.kinds {
            theme.kinds.insert(k.clone(), spec.style(k)?);
        }
        Ok(theme)
    }

    /// `NAME` of a shipped theme or the path of a theme file (laid over `dark`).
    pub fn load(name_or_path: &str) -> Result<Theme, String> {
        if SHIPPED.iter().any(|(n, _)| *n == name_or_path) {
            return Theme::shipped(name_or_path);
        }
        let text = std::fs::read_to_string(name_or_path).map_err(|e| {
            let names: Vec<_> = SHIPPED.iter().map(|(n, _)| *n).collect();
            format!(
                "theme `{name_or_path}`: no shipped theme of that name ({}) and no such file: {e}",
                names.join(", ")
            )
        })?;
        Theme::parse(name_or_path, &text, Some(&Theme::default()))
    }

    /// The theme to use: `mono` when `no_color` (the `NO_COLOR` convention), else the named one
    /// (default `dark`).
    pub fn select(name: Option<&str>, no_color: bool) -> Result<Theme, String> {
        if no_color {
            return Theme::shipped("mono");
        }
        Theme::load(name.unwrap_or("dark"))
    }

    /// True when `NO_COLOR` is set to a non-empty value.
    pub fn no_color_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }

    /// True when no style of this theme sets a colour.
    pub fn is_colourless(&self) -> bool {
        self.styles
            .values()
            .chain(self.kinds.values())
            .all(|s| s.fg.is_none() && s.bg.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::{KEYS, SHIPPED, Theme};
    use ratatui::style::{Color, Style};

    #[test]
    fn shipped_themes_parse_and_mono_has_no_colour() {
        for (n, _) in SHIPPED {
            let t = Theme::shipped(n).unwrap();
            for (k, _) in KEYS {
                assert!(t.styles.contains_key(*k), "{n} lacks {k}");
            }
        }
        assert!(Theme::shipped("mono").unwrap().is_colourless());
        assert!(!Theme::shipped("dark").unwrap().is_colourless());
    }

    #[test]
    fn a_user_file_overrides_only_what_it_names() {
        let dark = Theme::default();
        let t = Theme::parse("mine", "[styles]\ntitle = { fg = \"red\" }\n", Some(&dark)).unwrap();
        assert_eq!(t.get("title"), Style::default().fg(Color::Red));
        assert_eq!(t.get("selection"), dark.get("selection"));
        assert!(Theme::parse("bad", "[styles]\ntitel = {}\n", Some(&dark)).is_err());
        assert!(Theme::parse("bad", "[styles]\ntitle = { fg = \"nocolour\" }\n", None).is_err());
        let e = Theme::load("no-such-theme").unwrap_err();
        assert!(
            e.contains("dark, light, high-contrast, colorblind, mono"),
            "{e}"
        );
    }
}
