//! The timer finder's state and its query syntax (issue 32, Spec note 173; the syntax table is
//! in [`crate::tui::panes::finder`], which draws the finder and takes its keys). A leaf: the
//! dashboard's state holds a [`Finder`] while it is open.

use crate::engine::Address;
use crate::node::{TimerFilter, TimerPage, TimerStatus, TimersPageQuery, valid_id_prefix};
use std::collections::BTreeMap;

/// The finder's state: the query as typed, the selection and the last page the node answered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Finder {
    pub text: String,
    pub sel: usize,
    /// The query the shown page answers.
    pub asked: Option<TimersPageQuery>,
    pub page: Option<TimerPage>,
    /// Why the typed query is not sent (a word it does not read).
    pub error: Option<String>,
    /// Where the page shown starts in the node's list (`timer_list`'s cursor; `None`: the
    /// first page) and how many matches the pages before it held.
    pub at: Option<u64>,
    pub before: usize,
    /// The pages before this one (their cursor and `before`), for PgUp.
    pub back: Vec<(Option<u64>, usize)>,
}

/// How many timers the finder asks a page (Spec note 184): a screen shows about 30, and
/// PgDn past the last row asks the next page.
pub const FINDER_PAGE: usize = 200;

/// A query as typed: the node's filter (its `label` the label words, which the node matches,
/// Spec note 186), and those words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FinderQuery {
    pub filter: TimerFilter,
    pub labels: Vec<String>,
}

/// Reads the query syntax; `names` resolves `actor:NAME`.
pub fn parse(text: &str, names: &BTreeMap<Address, String>) -> Result<FinderQuery, String> {
    let mut q = FinderQuery::default();
    for word in text.split_whitespace() {
        let (key, value) = word.split_once(':').unwrap_or(("", word));
        match key {
            "" if word.starts_with("0x") || word.starts_with("0X") => {
                q.filter.id_prefix = Some(id_prefix(word)?)
            }
            "" | "label" => q.labels.push(value.to_lowercase()),
            "id" => q.filter.id_prefix = Some(id_prefix(value)?),
            "actor" => q.filter.actor = Some(actor(value, names)?),
            "handler" => q.filter.handler = Some(value.to_string()),
            "status" | "s" => q.filter.status = Some(status(value)?),
            "h" => (q.filter.from_height, q.filter.to_height) = heights(value)?,
            other => {
                return Err(format!(
                    "unknown word `{other}:`; see ? for the query syntax"
                ));
            }
        }
    }
    if !q.labels.is_empty() {
        let words = q.labels.join(" ");
        if words.len() > crate::node::MAX_LABEL {
            return Err(format!(
                "the label words are {} bytes: at most {}",
                words.len(),
                crate::node::MAX_LABEL
            ));
        }
        q.filter.label = Some(words);
    }
    Ok(q)
}

fn id_prefix(v: &str) -> Result<String, String> {
    match valid_id_prefix(v) && !v.is_empty() {
        true => Ok(v.to_string()),
        false => Err(format!("`{v}` is not a hex id prefix")),
    }
}

fn actor(v: &str, names: &BTreeMap<Address, String>) -> Result<Address, String> {
    if let Ok(a) = v.parse::<Address>() {
        return Ok(a);
    }
    names
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(v))
        .map(|(a, _)| *a)
        .ok_or_else(|| format!("no actor named `{v}`"))
}

fn status(v: &str) -> Result<TimerStatus, String> {
    v.parse::<TimerStatus>().map_err(|_| {
        let all: Vec<&str> = TimerStatus::ALL.iter().map(|s| s.as_str()).collect();
        format!("status `{v}`: one of {}", all.join(", "))
    })
}

/// `100..200`, `100..`, `..200` or `150`.
fn heights(v: &str) -> Result<(Option<u64>, Option<u64>), String> {
    let num = |s: &str| -> Result<Option<u64>, String> {
        match s {
            "" => Ok(None),
            s => s
                .parse()
                .map(Some)
                .map_err(|_| format!("h:{v}: `{s}` is not a height")),
        }
    };
    let (from, to) = match v.split_once("..") {
        Some((a, b)) => (num(a)?, num(b)?),
        None => (num(v)?, num(v)?),
    };
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        return Err(format!("h:{v}: the window is empty ({f} > {t})"));
    }
    Ok((from, to))
}

impl Finder {
    /// The node query of the typed text, or the reason it is not sent.
    pub(crate) fn query(&mut self, names: &BTreeMap<Address, String>) -> Option<TimersPageQuery> {
        match parse(&self.text, names) {
            Ok(q) => {
                self.error = None;
                Some(TimersPageQuery {
                    filter: q.filter,
                    cursor: self.at,
                    limit: FINDER_PAGE,
                })
            }
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

impl Finder {
    /// Moves on to the page after the one shown (`None`: it is the last).
    pub(crate) fn next_page(&mut self) -> Option<()> {
        let page = self.page.as_ref()?;
        let next = page.next_cursor.as_ref()?.parse::<u64>().ok()?;
        let len = page.timers.len();
        self.back.push((self.at, self.before));
        (self.at, self.before, self.sel) = (Some(next), self.before + len, 0);
        Some(())
    }

    /// Moves back to the page before the one shown, its last row selected.
    pub(crate) fn prev_page(&mut self) -> Option<()> {
        let (at, before) = self.back.pop()?;
        (self.at, self.sel) = (at, self.before.saturating_sub(before).saturating_sub(1));
        self.before = before;
        Some(())
    }

    /// The query was edited: back to its first page.
    pub(crate) fn restart(&mut self) {
        (self.at, self.before, self.sel) = (None, 0, 0);
        self.back.clear();
    }
}
