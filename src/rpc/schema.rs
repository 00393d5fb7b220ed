//! The OpenRPC entries of the methods served through the generic adapters, built from the
//! types (issue 29, "OpenRPC derived from the types"): the params from a params struct
//! ([`super::wire`]) whose fields are the positional params, the result from the reply type,
//! every named type once under `components.schemas`.

use schemars::generate::SchemaSettings;
use schemars::transform::{ReplacePrefixItems, ReplaceUnevaluatedProperties};
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

/// What the last `block` param of a read means.
pub const BLOCK_DOC: &str = "the state as of this sealed height (default: latest); older than the retained history: HistoryPruned";

/// The generator every method's schemas come from: JSON Schema draft 7 (OpenRPC 1.2's), the
/// named types under `#/components/schemas/`. A field's description stays beside its `$ref`
/// (draft 7 validators ignore it there; readers of the document see it) rather than wrapping
/// the reference in an `allOf`.
pub fn generator() -> SchemaGenerator {
    let mut s = SchemaSettings::draft07();
    s.transforms = vec![
        Box::new(ReplaceUnevaluatedProperties::default()),
        Box::new(ReplacePrefixItems::default()),
    ];
    s.definitions_path = "/components/schemas".into();
    s.meta_schema = None;
    s.into_generator()
}

/// One method of the OpenRPC document.
#[derive(Clone, Debug)]
pub struct MethodSchema {
    pub name: &'static str,
    pub summary: String,
    /// `{name, required, description, schema}` each, in position order.
    pub params: Vec<Value>,
    pub result: Value,
}

impl MethodSchema {
    /// The method's entry as OpenRPC writes it.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "summary": self.summary,
            "paramStructure": "by-position",
            "params": self.params,
            "result": {"name": "result", "schema": self.result},
        })
    }

    /// Adds the optional block tag as the last param (issue 24).
    pub fn with_block(mut self, g: &mut SchemaGenerator) -> Self {
        let tag = g.subschema_for::<crate::node::BlockTag>().to_value();
        self.params
            .push(param("block", false, json!(BLOCK_DOC), tag));
        self
    }
}

/// `name`'s entry: `P`'s fields named in `names` are its params (in that order; a field that is
/// not an `Option` is required), `P`'s doc comment its summary, `R` its result.
pub fn method<P: JsonSchema, R: JsonSchema>(
    g: &mut SchemaGenerator,
    name: &'static str,
    names: &[&str],
) -> MethodSchema {
    let p = P::json_schema(g).to_value();
    let props = p["properties"].as_object().cloned().unwrap_or_default();
    let required: Vec<&str> = p["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let params = names
        .iter()
        .map(|n| {
            let mut s = props.get(*n).cloned().unwrap_or(json!({}));
            let doc = take_doc(&mut s);
            param(n, required.contains(n), doc, s)
        })
        .collect();
    MethodSchema {
        name,
        summary: summary(&p),
        params,
        result: g.subschema_for::<R>().to_value(),
    }
}

fn param(name: &str, required: bool, description: Value, schema: Value) -> Value {
    json!({"name": name, "required": required, "description": description, "schema": schema})
}

/// A field's doc comment, taken off its schema (it is the param's description).
fn take_doc(s: &mut Value) -> Value {
    let o = s.as_object_mut();
    let doc = o.and_then(|o| o.remove("description"));
    json!(one_line(doc.as_ref().and_then(Value::as_str).unwrap_or("")))
}

/// A doc comment's lines as one line (the source wraps them at 100 columns).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A struct's doc comment (schemars splits a first paragraph off as the title).
fn summary(s: &Value) -> String {
    let parts: Vec<&str> = [&s["title"], &s["description"]]
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    one_line(&parts.join(" "))
}

/// Every named type the generator met, for `components.schemas`.
pub fn components(g: &mut SchemaGenerator) -> Map<String, Value> {
    g.take_definitions(true)
}
