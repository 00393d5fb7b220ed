//! `rpc.discover`: the OpenRPC document (issue 13). Every method is described from its types
//! (issue 29, [`super::schema`]): those served through the generic adapters
//! ([`super::command`], [`super::served`]) from their request types, those registered by hand
//! from their params and result structs ([`super::wire_chain`], [`super::wire_find`],
//! [`super::wire_hand`]). A test fails when a registered method is missing from the document.

use serde_json::{Value, json};

/// The methods described from their types: those served through the generic adapters, then
/// those registered by hand that have their own params structs.
fn described(g: &mut schemars::SchemaGenerator) -> Vec<super::schema::MethodSchema> {
    let mut v: Vec<_> = super::command::entries()
        .into_iter()
        .chain(super::served::entries())
        .map(|e| (e.schema)(g))
        .collect();
    v.extend(super::draft::schemas(g));
    v.extend(super::wire_chain::schemas(g));
    v.extend(super::wire_find::schemas(g));
    v.extend(super::wire_hand::schemas(g));
    v
}

/// The OpenRPC document: the methods served through the generic adapters described from
/// their types (issue 29), then the table's.
pub fn document() -> Value {
    let mut g = super::schema::generator();
    let methods: Vec<Value> = described(&mut g).iter().map(|m| m.to_json()).collect();
    let c = json!({ "schemas": super::schema::components(&mut g) });
    json!({
        "openrpc": "1.2.6",
        "info": {
            "title": "cowboy-devnet",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A local Cowboy devnet with the CIP-5 timer engine. Amounts are decimal strings, addresses 0x + 40 hex, ids and hashes 0x + 64 hex, heights numbers. Domain errors: codes -32050..-32099 with data.reason."
        },
        "methods": methods,
        "components": c,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_document_builds_and_names_are_unique() {
        let d = super::document();
        let names: Vec<&str> = d["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        let set: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(set.len(), names.len());
    }
}
