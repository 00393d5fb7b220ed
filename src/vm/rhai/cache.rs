//! The runtime and its cache of compiled scripts.

use super::*;

/// Runs Rhai actor scripts: compiles each once and caches it by its source text.
///
/// The cache is keyed by the source itself, not by [`ActorCode::hash`]: a lookup then costs a
/// fast hash and one comparison of the text, where keccak of the source on every fire would
/// cost about as much as running a small handler.
#[derive(Default)]
pub struct RhaiRuntime {
    scripts: Mutex<hashbrown::HashMap<Box<str>, Arc<Script>>>,
}

impl std::fmt::Debug for RhaiRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RhaiRuntime")
            .field("cached_scripts", &self.cached_scripts())
            .finish()
    }
}

impl RhaiRuntime {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many compiled scripts the cache holds.
    pub fn cached_scripts(&self) -> usize {
        self.scripts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// The compiled script for `code`: from the cache, or compiled now (a cache miss, e.g. after
    /// a state load) and cached.
    pub(super) fn script(&self, code: &ActorCode) -> Result<Arc<Script>, VmError> {
        if let Some(s) = self
            .scripts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(code.source.as_str())
        {
            return Ok(s.clone());
        }
        // Compiled outside the lock; two threads racing on one script both compile it, and the
        // results are identical.
        let s = Arc::new(compile(code)?);
        self.scripts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(code.source.as_str().into(), s.clone());
        Ok(s)
    }

    /// Compiles and caches `code` (at deploy). A syntax error is `CompileError` at
    /// `name:line:column`.
    pub fn prepare(&self, code: &ActorCode) -> Result<(), VmError> {
        self.script(code).map(|_| ())
    }
}
