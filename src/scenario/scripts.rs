//! Reading the scripts a fixture names (its actors' code), from disk or from the shipped set.

use super::fixture::LoadedFixture;

/// Reads a script named by a fixture (a path relative to the fixture).
pub type ScriptLoader<'a> = dyn Fn(&LoadedFixture, &str) -> Result<String, ScriptLoadError> + 'a;

/// Why a script named by a fixture could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScriptLoadError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// A shipped fixture names a script that is not shipped with it.
    #[error("no shipped script `{0}`")]
    NotShipped(String),
}

/// Reads scripts from disk, relative to the fixture's directory.
pub fn disk_loader(f: &LoadedFixture, rel: &str) -> Result<String, ScriptLoadError> {
    let path = match &f.dir {
        Some(d) => d.join(rel),
        None => rel.into(),
    };
    std::fs::read_to_string(&path).map_err(|source| ScriptLoadError::Read { path, source })
}
