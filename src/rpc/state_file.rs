//! `serve --state FILE`: the state saved to disk, atomically and versioned (issue 13).
//!
//! A save writes a temporary file beside the target, fsyncs it, renames it over the target and
//! fsyncs the directory: after a crash (even `kill -9` mid-save) the file is the old state or
//! the new one, never a torn mix. A load refuses anything it does not fully understand, with a
//! message naming the file and what is wrong, before the node starts.
//!
//! The file is `{"format": "cowboy-devnet-state", "version": 1, "chain": <ChainDump>}`. A bare
//! chain dump (what `run --dump` and `devnet_dumpState` write) loads too.

use crate::chain::ChainDump;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use crate::chain::dump::{STATE_FORMAT, STATE_VERSION};

#[derive(Debug, thiserror::Error)]
pub enum StateFileError {
    #[error("cannot read state file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write state file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("state file {path} is not valid: {why}")]
    Invalid { path: PathBuf, why: String },
}

/// Reads a state file or a bare chain dump. The dump is checked for shape and version here;
/// the node checks the rest when it loads it (a dump it refuses also stops `serve`).
pub fn read(path: &Path) -> Result<ChainDump, StateFileError> {
    let text = fs::read_to_string(path).map_err(|source| StateFileError::Read {
        path: path.into(),
        source,
    })?;
    parse(&text).map_err(|why| StateFileError::Invalid {
        path: path.into(),
        why,
    })
}

/// Parses the text of a state file or a bare chain dump (see [`crate::chain::dump::parse_state`]).
pub fn parse(text: &str) -> Result<ChainDump, String> {
    crate::chain::dump::parse_state(text)
}

/// Writes `dump` to `path` atomically: temp file, fsync, rename, fsync of the directory.
/// Checks, before anything runs, that [`write`] can write `path`: the path names a file, its
/// directory exists and a file can be created in it (issue 20: `serve --state
/// /nonexistent/x.json` started and failed at every save). A probe file is created beside it
/// and removed.
pub fn check_writable(path: &Path) -> Result<(), StateFileError> {
    let err = |source| StateFileError::Write {
        path: path.into(),
        source,
    };
    let name = path
        .file_name()
        .ok_or_else(|| err(std::io::Error::other("the path names no file")))?;
    if path.is_dir() {
        return Err(err(std::io::Error::other("the path is a directory")));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("the directory {} does not exist", dir.display()),
        )));
    }
    let mut probe_name = std::ffi::OsString::from(".");
    probe_name.push(name);
    probe_name.push(format!(".probe-{}", std::process::id()));
    let probe = dir.join(probe_name);
    File::create(&probe).map_err(err)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

pub fn write(path: &Path, dump: &ChainDump) -> Result<(), StateFileError> {
    let err = |source| StateFileError::Write {
        path: path.into(),
        source,
    };
    let text = crate::chain::dump::state_text(dump);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| err(std::io::Error::other("the path names no file")))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        // The rename itself is durable once the directory is synced (where the platform lets
        // a directory be opened).
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(err)
}
