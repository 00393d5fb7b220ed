//! DESIGN.md "Layers": dependencies point inward only (`tui`, `rpc`, `scenario` -> `node` ->
//! `chain` -> `engine`), and inside `engine/` the modules import one way (issue 19, "Files of
//! one job, no circles"; the order is drawn in docs/ARCHITECTURE.md, "Engine module order").
//!
//! The library's sources are parsed (with `syn`) from `src/lib.rs` down its `mod` declarations.
//! Every path that names a module of the crate is an edge from the module it is written in:
//! `use` trees, paths in types and expressions, and `a::b` runs inside macro calls; paths
//! starting with `crate`, `super`, `self` or a child module's name are resolved. A path names
//! the deepest module it passes through (`crate::engine::scheduler::lane::PRICE_SCALE` names
//! `engine::scheduler::lane`; `crate::engine::Timer`, a re-export, names `engine`). Items
//! under `#[cfg(test)]` are left out (unit tests may reach anywhere), and so are strings
//! (`#[serde(with = "...")]`) and doc comments.
//!
//! A module declared private (`mod slab;`, `mod eip1559;`) is part of its parent: its
//! `impl` blocks and helpers reach the parent's private items through `super::` by design,
//! and nothing outside the parent can name it.

use proc_macro2::{TokenStream, TokenTree};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// A module of the crate, by its path below `crate` (`["engine", "queue"]`).
type ModPath = Vec<String>;

#[derive(Default)]
struct Crate {
    /// Every module, with whether it was declared `pub` (the crate root counts as public).
    modules: BTreeMap<ModPath, bool>,
    /// The paths each module writes, as segments, before resolution.
    refs: Vec<(ModPath, Vec<String>)>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| match &a.meta {
        syn::Meta::List(l) if l.path.is_ident("cfg") => {
            let t = l.tokens.to_string();
            t.split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == "test")
                && !t.contains("not")
        }
        _ => false,
    })
}

/// Collects the paths one module writes (not those of its inline child modules, which are
/// modules of their own).
struct PathCollector<'a> {
    module: ModPath,
    krate: &'a mut Crate,
    /// Where this module's `mod x;` files are: its own folder for `mod.rs` and `lib.rs`,
    /// `<folder>/<name>/` for `<name>.rs`.
    child_dir: PathBuf,
}

impl PathCollector<'_> {
    fn push(&mut self, segs: Vec<String>) {
        if !segs.is_empty() {
            self.krate.refs.push((self.module.clone(), segs));
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut v = prefix.clone();
                if n.ident != "self" {
                    v.push(n.ident.to_string());
                }
                self.push(v);
            }
            syn::UseTree::Rename(r) => {
                let mut v = prefix.clone();
                if r.ident != "self" {
                    v.push(r.ident.to_string());
                }
                self.push(v);
            }
            syn::UseTree::Glob(_) => self.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    fn tokens(&mut self, ts: TokenStream) {
        let mut run: Vec<String> = Vec::new();
        let mut colons = 0;
        for tt in ts {
            match tt {
                TokenTree::Ident(i) => {
                    if colons != 2 && !run.is_empty() {
                        let done = std::mem::take(&mut run);
                        self.push(done);
                    }
                    run.push(i.to_string());
                    colons = 0;
                }
                TokenTree::Punct(p) if p.as_char() == ':' => colons += 1,
                TokenTree::Group(g) => {
                    let done = std::mem::take(&mut run);
                    self.push(done);
                    colons = 0;
                    self.tokens(g.stream());
                }
                _ => {
                    let done = std::mem::take(&mut run);
                    self.push(done);
                    colons = 0;
                }
            }
        }
        self.push(run);
    }
}

impl<'ast> Visit<'ast> for PathCollector<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => &[],
        };
        if is_cfg_test(attrs) {
            return;
        }
        match item {
            syn::Item::Mod(m) => {
                let mut child = self.module.clone();
                child.push(m.ident.to_string());
                let public = matches!(m.vis, syn::Visibility::Public(_));
                match &m.content {
                    Some((_, items)) => {
                        let dir = self.child_dir.join(m.ident.to_string());
                        load_items(self.krate, child, public, items, dir);
                    }
                    None => {
                        let name = m.ident.to_string();
                        let flat = self.child_dir.join(format!("{name}.rs"));
                        let file = if flat.exists() {
                            flat
                        } else {
                            self.child_dir.join(&name).join("mod.rs")
                        };
                        let dir = self.child_dir.join(&name);
                        load_file(self.krate, child, public, &file, dir);
                    }
                }
            }
            syn::Item::Use(u) => self.use_tree(&mut Vec::new(), &u.tree),
            _ => syn::visit::visit_item(self, item),
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    /// `pub(super)`, `pub(in crate::x)` say who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

fn load_items(
    krate: &mut Crate,
    module: ModPath,
    public: bool,
    items: &[syn::Item],
    child_dir: PathBuf,
) {
    krate.modules.insert(module.clone(), public);
    let mut c = PathCollector {
        module,
        krate,
        child_dir,
    };
    for item in items {
        c.visit_item(item);
    }
}

fn load_file(krate: &mut Crate, module: ModPath, public: bool, file: &Path, child_dir: PathBuf) {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    load_items(krate, module, public, &ast.items, child_dir);
}

fn load_crate() -> Crate {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut krate = Crate::default();
    load_file(
        &mut krate,
        Vec::new(),
        true,
        &src.join("lib.rs"),
        src.clone(),
    );
    krate
}

/// The node a module counts as: itself if declared `pub` (or the root), else its parent's.
fn node_of(krate: &Crate, m: &ModPath) -> ModPath {
    let mut m = m.clone();
    while !m.is_empty() && !krate.modules[&m] {
        m.pop();
    }
    m
}

/// Resolves a written path to the deepest crate module it names, if it names one.
fn resolve(krate: &Crate, from: &ModPath, segs: &[String]) -> Option<ModPath> {
    let (mut base, rest): (ModPath, &[String]) = match segs[0].as_str() {
        "crate" => (Vec::new(), &segs[1..]),
        "self" => (from.clone(), &segs[1..]),
        "super" => {
            let mut b = from.clone();
            let mut i = 0;
            while segs.get(i).map(String::as_str) == Some("super") {
                b.pop();
                i += 1;
            }
            (b, &segs[i..])
        }
        first => {
            let mut child = from.clone();
            child.push(first.to_string());
            if !krate.modules.contains_key(&child) {
                return None;
            }
            (from.clone(), segs)
        }
    };
    for s in rest {
        let mut next = base.clone();
        next.push(s.clone());
        if !krate.modules.contains_key(&next) {
            break;
        }
        base = next;
    }
    Some(base)
}

/// Module-to-module edges between nodes (private modules folded into their parents), with one
/// written path that makes each.
fn edges(krate: &Crate) -> BTreeMap<(ModPath, ModPath), String> {
    let mut out = BTreeMap::new();
    for (from, segs) in &krate.refs {
        let Some(to) = resolve(krate, from, segs) else {
            continue;
        };
        let (a, b) = (node_of(krate, from), node_of(krate, &to));
        if a != b {
            out.entry((a, b)).or_insert_with(|| segs.join("::"));
        }
    }
    out
}

fn name(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

fn under(m: &ModPath, top: &str) -> bool {
    m.first().map(String::as_str) == Some(top)
}

/// A cycle among the nodes under `top`, as the modules around it, if there is one.
fn find_cycle(
    edges: &BTreeMap<(ModPath, ModPath), String>,
    top: &str,
) -> Option<Vec<(ModPath, String)>> {
    let mut adj: BTreeMap<&ModPath, Vec<(&ModPath, &String)>> = BTreeMap::new();
    for ((a, b), why) in edges {
        if under(a, top) && under(b, top) {
            adj.entry(a).or_default().push((b, why));
            adj.entry(b).or_default();
        }
    }
    // 0 = unseen, 1 = on the stack, 2 = done.
    let mut state: BTreeMap<&ModPath, u8> = adj.keys().map(|k| (*k, 0)).collect();
    fn dfs<'a>(
        n: &'a ModPath,
        adj: &BTreeMap<&'a ModPath, Vec<(&'a ModPath, &'a String)>>,
        state: &mut BTreeMap<&'a ModPath, u8>,
        stack: &mut Vec<(&'a ModPath, &'a String)>,
    ) -> Option<Vec<(ModPath, String)>> {
        state.insert(n, 1);
        for &(m, why) in &adj[n] {
            stack.push((n, why));
            match state[m] {
                1 => {
                    let start = stack.iter().position(|(x, _)| *x == m).expect("on stack");
                    return Some(
                        stack[start..]
                            .iter()
                            .map(|(x, w)| ((*x).clone(), (*w).clone()))
                            .collect(),
                    );
                }
                0 => {
                    if let Some(c) = dfs(m, adj, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
            stack.pop();
        }
        state.insert(n, 2);
        None
    }
    let nodes: Vec<&ModPath> = adj.keys().copied().collect();
    for n in nodes {
        if state[n] == 0
            && let Some(c) = dfs(n, &adj, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn engine_modules_import_one_way() {
    let krate = load_crate();
    let edges = edges(&krate);
    if let Some(cycle) = find_cycle(&edges, "engine") {
        let text: Vec<String> = cycle
            .iter()
            .map(|(m, why)| format!("{} (writes `{why}`)", name(m)))
            .collect();
        panic!(
            "the engine's modules import in a circle: {} -> back to the first",
            text.join(" -> ")
        );
    }
}

/// DESIGN.md "Layers": `engine` imports no outer layer (and not the VM: the chain calls it
/// through a trait), `chain` no front end nor the node, `node` no front end.
#[test]
fn layers_point_inward() {
    let krate = load_crate();
    let forbidden: [(&str, &[&str]); 3] = [
        ("engine", &["chain", "node", "rpc", "tui", "scenario", "vm"]),
        ("chain", &["node", "rpc", "tui", "scenario"]),
        ("node", &["rpc", "tui", "scenario"]),
    ];
    let mut bad = Vec::new();
    for ((a, b), why) in edges(&krate) {
        for (layer, outer) in &forbidden {
            if under(&a, layer) && outer.iter().any(|o| under(&b, o)) {
                bad.push(format!("{} imports {} (`{why}`)", name(&a), name(&b)));
            }
        }
    }
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

/// The checker itself: it sees the engine's edges (so an empty graph cannot pass for an
/// acyclic one), and it finds a circle when there is one.
#[test]
fn the_checker_sees_edges_and_circles() {
    let krate = load_crate();
    let edges = edges(&krate);
    let m = |s: &str| -> ModPath { s.split("::").map(String::from).collect() };
    assert!(edges.contains_key(&(m("engine::eob"), m("engine::queue"))));
    assert!(edges.contains_key(&(m("engine::scheduler::policy"), m("engine::eob"))));
    assert!(edges.contains_key(&(m("chain"), m("engine"))));
    // The queue's private files (`dump`, `slab`, ...) are folded into the queue.
    assert!(!krate.modules[&m("engine::queue::slab")]);
    assert!(!edges.keys().any(|(a, _)| a == &m("engine::queue::slab")));
    let mut with_circle = edges.clone();
    with_circle.insert(
        (m("engine::queue"), m("engine::scheduler::policy")),
        "a made-up import".into(),
    );
    let cycle = find_cycle(&with_circle, "engine").expect("a circle is found");
    assert!(cycle.iter().any(|(x, _)| x == &m("engine::queue")));
}

/// Issue 19, "Files of one job": no library or binary source file over 900 lines and no
/// `too_many_arguments` allowance (a struct names what travels together), the dashboard's
/// files included.
#[test]
fn source_files_keep_to_one_job() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("src is readable") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "the walk found the sources");
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let lines = text.lines().count();
        let name = f.strip_prefix(&src).expect("under src").display();
        if lines > 900 {
            bad.push(format!("src/{name} has {lines} lines"));
        }
        if text.contains("too_many_arguments") {
            bad.push(format!("src/{name} allows too_many_arguments"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The import graph between modules of which neither contains the other: a module and its
/// ancestors import each other by design (a `mod.rs` re-exports its children, and they use
/// the re-exports), so such an edge closes no circle.
fn sibling_edges(edges: &BTreeMap<(ModPath, ModPath), String>) -> Edges {
    edges
        .iter()
        .filter(|((a, b), _)| !a.starts_with(b) && !b.starts_with(a))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

type Edges = BTreeMap<(ModPath, ModPath), String>;

fn reach<'a>(adj: &BTreeMap<&'a ModPath, Vec<&'a ModPath>>, from: &'a ModPath) -> Vec<&'a ModPath> {
    let mut seen = vec![from];
    let mut todo = vec![from];
    while let Some(n) = todo.pop() {
        for m in adj.get(n).into_iter().flatten() {
            if !seen.contains(m) {
                seen.push(m);
                todo.push(m);
            }
        }
    }
    seen
}

/// The graph's import circles: its strongly connected sets of more than one module, each
/// sorted, in order.
fn circles(edges: &Edges) -> Vec<Vec<ModPath>> {
    let mut adj: BTreeMap<&ModPath, Vec<&ModPath>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default();
    }
    let reached: BTreeMap<&ModPath, Vec<&ModPath>> =
        adj.keys().map(|n| (*n, reach(&adj, n))).collect();
    let mut out: Vec<Vec<ModPath>> = Vec::new();
    for (n, from_n) in &reached {
        let mut set: Vec<ModPath> = from_n
            .iter()
            .filter(|m| reached[**m].contains(n))
            .map(|m| (*m).clone())
            .collect();
        set.sort();
        if set.len() > 1 && !out.contains(&set) {
            out.push(set);
        }
    }
    out
}

/// One circle: the folder it is in (the members' deepest common module), the members below
/// that folder (`core`, `scheduler::policy`), and the imports that close it.
#[derive(Debug)]
struct Circle {
    folder: String,
    members: Vec<String>,
    imports: Vec<String>,
}

/// Every import circle between files of the crate, in whichever folder (issue 29).
fn sibling_circles(edges: &BTreeMap<(ModPath, ModPath), String>) -> Vec<Circle> {
    let graph = sibling_edges(edges);
    let mut out = Vec::new();
    for set in circles(&graph) {
        let depth = (0..set[0].len())
            .take_while(|&i| set.iter().all(|m| m.len() > i && m[i] == set[0][i]))
            .count();
        let imports = graph
            .iter()
            .filter(|((a, b), _)| set.contains(a) && set.contains(b))
            .map(|((a, b), why)| format!("{} -> {} (`{why}`)", name(a), name(b)))
            .collect();
        out.push(Circle {
            folder: name(&set[0][..depth].to_vec()),
            members: set.iter().map(|m| m[depth..].join("::")).collect(),
            imports,
        });
    }
    out
}

/// Issue 29, "No circles, short functions": no import circle between the files of any
/// folder of `src/` (as `engine_modules_import_one_way` checks for the engine), a file in a
/// subfolder included (`a.rs` -> `b/x.rs` -> `a.rs` is a circle in the folder of `a.rs`).
/// Private modules are folded into their parents, as everywhere in this file.
#[test]
fn no_folder_imports_in_a_circle() {
    let bad: Vec<String> = sibling_circles(&edges(&load_crate()))
        .iter()
        .map(|c| {
            format!(
                "{}: {} import in a circle:\n    {}",
                c.folder,
                c.members.join(", "),
                c.imports.join("\n    ")
            )
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The folder checker itself: it sees the edges between files in folders of every layer,
/// does not take a module and its parent for a circle, and finds a made-up circle, through
/// a subfolder's file too, in the folder it is in.
#[test]
fn the_folder_checker_sees_edges_and_circles() {
    let edges = edges(&load_crate());
    let m = |s: &str| -> ModPath { s.split("::").map(String::from).collect() };
    let graph = sibling_edges(&edges);
    assert!(graph.contains_key(&(m("chain"), m("engine"))));
    assert!(graph.contains_key(&(m("engine::eob"), m("engine::queue"))));
    assert!(graph.contains_key(&(m("engine::scheduler::policy"), m("engine::eob"))));
    for folder in ["node", "rpc", "scenario", "chain"] {
        let inside = graph
            .keys()
            .filter(|(a, b)| under(a, folder) && under(b, folder))
            .count();
        assert!(inside > 3, "the {folder} folder's edges are seen");
    }
    // A module and its parent import each other (a re-export each way), and that is no circle.
    assert!(edges.contains_key(&(m("node"), m("node::query"))));
    assert!(edges.contains_key(&(m("node::query"), m("node"))));
    assert!(!graph.contains_key(&(m("node::query"), m("node"))));
    // A made-up import back closes a circle, here through a file of a subfolder.
    let mut with_circle = edges.clone();
    with_circle.insert(
        (m("engine::queue"), m("engine::scheduler::policy")),
        "a made-up import".into(),
    );
    let found = sibling_circles(&with_circle);
    let made_up: Vec<&Circle> = found
        .iter()
        .filter(|c| c.imports.iter().any(|i| i.contains("a made-up import")))
        .collect();
    assert_eq!(made_up.len(), 1, "{found:?}");
    assert_eq!(made_up[0].folder, "engine");
    assert!(made_up[0].members.contains(&"queue".to_string()));
    assert!(
        made_up[0]
            .members
            .contains(&"scheduler::policy".to_string())
    );
}
