//! An attached dashboard checks that the server speaks its API (issue 31: a dashboard of one
//! build attached to a server of another failed its bucket query, `timer_bucketPage`'s fifth
//! param being the older server's block tag, and said only that a refresh failed).
//!
//! The crate's version does not tell two builds apart, so the check compares what the API is:
//! the server's `rpc.discover` against the document this build would serve, method by method,
//! by name and by the names of the params in order. What differs is named in the status bar,
//! for as long as the dashboard stays attached to that server.

use serde_json::Value;
use std::collections::BTreeMap;

/// How many differences the status bar names; the rest are counted.
const NAMED: usize = 2;

/// Each method's param names, in order, from an OpenRPC document.
fn signatures(doc: &Value) -> BTreeMap<String, Vec<String>> {
    let methods = doc.get("methods").and_then(Value::as_array);
    methods
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let name = m.get("name")?.as_str()?.to_string();
            let params = m.get("params").and_then(Value::as_array);
            let names = params
                .into_iter()
                .flatten()
                .filter_map(|p| p.get("name")?.as_str().map(str::to_string))
                .collect();
            Some((name, names))
        })
        .collect()
}

/// What differs between the API this build serves (`ours`) and the server's (`theirs`), one
/// line per method: a method this build has and the server lacks, or takes other params.
/// Methods only the server has are left out (this dashboard does not ask for them).
pub fn differences(ours: &Value, theirs: &Value) -> Vec<String> {
    let theirs = signatures(theirs);
    signatures(ours)
        .into_iter()
        .filter_map(|(name, params)| match theirs.get(&name) {
            None => Some(format!("the server has no `{name}`")),
            Some(p) if *p != params => Some(format!(
                "`{name}` takes ({}) there, ({}) here",
                p.join(", "),
                params.join(", ")
            )),
            Some(_) => None,
        })
        .collect()
}

/// The status bar's line for `differences` (none when the APIs match).
pub fn status_line(url: &str, differences: &[String]) -> Option<String> {
    let (named, rest) = differences.split_at(differences.len().min(NAMED));
    if named.is_empty() {
        return None;
    }
    let more = match rest.len() {
        0 => String::new(),
        n => format!(" (+{n} more)"),
    };
    Some(format!(
        "the server at {url} is another build: {}{more}; panes that use them may fail (attach a dashboard of the server's build)",
        named.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(methods: Value) -> Value {
        json!({ "openrpc": "1.2.6", "methods": methods })
    }

    #[test]
    fn the_same_document_has_no_differences() {
        let d = crate::rpc::openrpc::document();
        assert_eq!(differences(&d, &d), Vec::<String>::new());
        assert_eq!(status_line("u", &[]), None);
    }

    #[test]
    fn a_missing_method_and_changed_params_are_named() {
        let ours = doc(json!([
            { "name": "a", "params": [{ "name": "x" }, { "name": "follow_due" }] },
            { "name": "b", "params": [] },
            { "name": "c", "params": [] },
        ]));
        let theirs = doc(json!([
            { "name": "a", "params": [{ "name": "x" }, { "name": "block" }] },
            { "name": "c", "params": [] },
            { "name": "d", "params": [] },
        ]));
        let d = differences(&ours, &theirs);
        assert_eq!(
            d,
            vec![
                "`a` takes (x, block) there, (x, follow_due) here".to_string(),
                "the server has no `b`".to_string(),
            ]
        );
        let line = status_line("http://h", &[d.clone(), d].concat()).unwrap();
        assert!(line.contains("another build"), "{line}");
        assert!(
            line.ends_with("(attach a dashboard of the server's build)"),
            "{line}"
        );
        assert!(line.contains("(+2 more)"), "{line}");
    }
}
