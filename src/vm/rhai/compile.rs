//! Compiling a script, its entry points, and how Rhai errors are named.

use super::*;

/// The entry run once at deploy, with no parameters.
pub const DEPLOY_ENTRY: &str = "deploy";
/// The default timer handler (CIP-5 §3.1).
pub const TIMER_ENTRY: &str = crate::engine::config::DEFAULT_HANDLER;

/// A compiled script and its entry points.
pub(super) struct Script {
    pub(super) ast: AST,
    /// Public functions: name -> bit set of the parameter counts defined.
    pub(super) public: BTreeMap<String, u64>,
}

impl Script {
    pub(super) fn defines(&self, name: &str, arity: usize) -> bool {
        arity < 64 && self.public.get(name).is_some_and(|m| m & (1 << arity) != 0)
    }
}

pub(super) fn file_name(code: &ActorCode) -> &str {
    if code.name.is_empty() {
        "<script>"
    } else {
        &code.name
    }
}

pub(super) fn location(file: &str, pos: Position) -> String {
    format!(
        "{file}:{}:{}",
        pos.line().unwrap_or(0),
        pos.position().unwrap_or(0)
    )
}

/// Where `fn <name>` is defined in `source`, for shape errors (the AST keeps no positions for
/// function definitions).
pub(super) fn fn_location(file: &str, source: &str, name: &str) -> String {
    let needle = format!("fn {name}");
    for (i, line) in source.lines().enumerate() {
        if let Some(col) = line.find(&needle) {
            return format!("{file}:{}:{}", i + 1, col + 1);
        }
    }
    format!("{file}:0:0")
}

pub(super) fn compile(code: &ActorCode) -> Result<Script, VmError> {
    let file = file_name(code);
    if code.source.len() > MAX_SOURCE_BYTES {
        return Err(VmError::Compile {
            location: format!("{file}:0:0"),
            message: format!(
                "the script is {} bytes, the limit is {MAX_SOURCE_BYTES}",
                code.source.len()
            ),
        });
    }
    let mut ast = ENGINE.compile(&code.source).map_err(|e| VmError::Compile {
        location: location(file, e.position()),
        message: e.err_type().to_string(),
    })?;
    ast.set_source(file);
    let mut public = BTreeMap::new();
    for f in ast.iter_functions() {
        let arity = f.params.len();
        let fixed = match f.name {
            DEPLOY_ENTRY => Some(0),
            TIMER_ENTRY => Some(1),
            _ => None,
        };
        if let Some(want) = fixed
            && (arity != want || f.access == FnAccess::Private)
        {
            return Err(VmError::Compile {
                location: fn_location(file, &code.source, f.name),
                message: format!(
                    "`fn {}` must be public and take {want} parameter{}",
                    f.name,
                    if want == 1 { "" } else { "s" }
                ),
            });
        }
        if f.access == FnAccess::Public && arity < 64 {
            *public.entry(f.name.to_string()).or_insert(0u64) |= 1 << arity;
        }
    }
    Ok(Script { ast, public })
}

/// The innermost error of a chain of script-function calls, the functions it went through and
/// the best position known for it (its own, else the innermost call site that has one).
pub(super) fn root_error(err: EvalAltResult) -> (EvalAltResult, Vec<String>, Position) {
    let mut calls = Vec::new();
    let mut pos = Position::NONE;
    let mut e = err;
    loop {
        e = match e {
            EvalAltResult::ErrorInFunctionCall(name, _, inner, at) => {
                calls.push(name);
                if !at.is_none() {
                    pos = at;
                }
                *inner
            }
            EvalAltResult::ErrorInModule(_, inner, at) => {
                if !at.is_none() {
                    pos = at;
                }
                *inner
            }
            mut other => {
                let own = other.take_position();
                if !own.is_none() {
                    pos = own;
                }
                return (other, calls, pos);
            }
        };
    }
}

/// Maps a Rhai error (when no host error decided the outcome) to a [`VmError`].
///
/// Rhai moves a sandbox-limit error to the call site of the script function it escapes, which
/// for the entry point has no position; such errors name the entry function instead.
pub(super) fn script_error(file: &str, entry: &str, err: EvalAltResult) -> VmError {
    let (root, calls, pos) = root_error(err);
    let kind = match &root {
        EvalAltResult::ErrorStackOverflow(_)
        | EvalAltResult::ErrorDataTooLarge(..)
        | EvalAltResult::ErrorTooManyOperations(_)
        | EvalAltResult::ErrorTooManyVariables(_)
        | EvalAltResult::ErrorTooManyModules(_) => "sandbox limit: ",
        EvalAltResult::ErrorTerminated(..) => "terminated: ",
        _ => "",
    };
    let at = if pos.is_none() {
        format!("{file}, fn {entry}")
    } else {
        location(file, pos)
    };
    let mut msg = format!("{at}: {kind}{root}");
    if !calls.is_empty() {
        msg.push_str(&format!(" (in fn {})", calls.join(" <- ")));
    }
    VmError::Script(msg)
}

/// The parameter count of an entry point: none for `deploy`, the payload for the rest.
pub(super) fn entry_arity(entry: &str) -> usize {
    if entry == DEPLOY_ENTRY { 0 } else { 1 }
}

pub(super) fn missing_entry(script: &Script, name: &str, arity: usize) -> String {
    match script.public.get(name) {
        Some(_) => format!(
            "the script defines `{name}` but not with {arity} parameter{} (handlers take the payload, `deploy` takes none)",
            if arity == 1 { "" } else { "s" }
        ),
        None => format!("the script defines no handler `{name}`"),
    }
}
