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
    #[error(
        "StateFileNotRegular: {path} is not a regular file (a device, a pipe, a socket or a directory): a state file is read from a regular file only"
    )]
    NotRegular { path: PathBuf },
    #[error(
        "StateFileTooLarge: {path} holds more than {limit} bytes (--max-state-size): refused unread"
    )]
    TooLarge { path: PathBuf, limit: u64 },
}

/// The most a state file may hold by default (`--max-state-size`): 4 GiB.
pub const DEFAULT_MAX_STATE_BYTES: u64 = 4 << 30;

/// Reads a state file or a bare chain dump of at most [`DEFAULT_MAX_STATE_BYTES`].
pub fn read(path: &Path) -> Result<ChainDump, StateFileError> {
    read_bounded(path, DEFAULT_MAX_STATE_BYTES)
}

/// Reads a state file or a bare chain dump. The dump is checked for shape and version here;
/// the node checks the rest when it loads it (a dump it refuses also stops `serve`).
///
/// Issue 30 (Spec note 142): only a regular file is read (`/dev/zero`, a FIFO or a directory
/// is refused at once, by name: `StateFileNotRegular`), and at most `max` bytes of it (a file
/// that is larger, or grows past it while read, is `StateFileTooLarge`).
pub fn read_bounded(path: &Path, max: u64) -> Result<ChainDump, StateFileError> {
    use std::io::Read;
    let read_err = |source| StateFileError::Read {
        path: path.into(),
        source,
    };
    let file = File::open(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Err(StateFileError::NotRegular { path: path.into() });
    }
    let too_large = || StateFileError::TooLarge {
        path: path.into(),
        limit: max,
    };
    if meta.len() > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    let text = String::from_utf8(bytes).map_err(|e| StateFileError::Invalid {
        path: path.into(),
        why: format!("not UTF-8 ({e}); not a state file"),
    })?;
    parse(&text).map_err(|why| StateFileError::Invalid {
        path: path.into(),
        why,
    })
}

/// The outcome of the `--state` saves (issue 30): the last save's height and time and the
/// last error, for `devnet_head` (`state_save`); a failed save is also printed on stderr.
#[derive(Debug, Default)]
pub struct SaveStatus(std::sync::Mutex<SaveReport>);

/// See [`SaveStatus`]. Times are Unix milliseconds (display only).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SaveReport {
    pub file: String,
    pub saves: u64,
    pub failures: u64,
    pub last_height: Option<u64>,
    pub last_at_unix_ms: Option<u64>,
    pub last_error: Option<String>,
    pub last_error_at_unix_ms: Option<u64>,
}

fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl SaveStatus {
    pub fn new(file: &Path) -> Self {
        SaveStatus(std::sync::Mutex::new(SaveReport {
            file: file.display().to_string(),
            ..SaveReport::default()
        }))
    }

    fn with<T>(&self, f: impl FnOnce(&mut SaveReport) -> T) -> T {
        let mut g = self.0.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g)
    }

    /// A save of the state at `height` was written.
    pub fn saved(&self, height: u64) {
        self.with(|r| {
            r.saves += 1;
            r.last_height = Some(height);
            r.last_at_unix_ms = Some(now_unix_ms());
        })
    }

    /// A save failed with `error`.
    pub fn failed(&self, error: String) {
        self.with(|r| {
            r.failures += 1;
            r.last_error = Some(error);
            r.last_error_at_unix_ms = Some(now_unix_ms());
        })
    }

    pub fn report(&self) -> SaveReport {
        self.with(|r| r.clone())
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.report()).expect("a save report serializes")
    }
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

/// Issue 31 item 7: the text is written into the file as it is made (a 1M-timer state is never
/// held whole as text); the bytes are [`crate::chain::dump::state_text`]'s.
pub fn write(path: &Path, dump: &ChainDump) -> Result<(), StateFileError> {
    let err = |source| StateFileError::Write {
        path: path.into(),
        source,
    };
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
        let mut w = std::io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        crate::chain::dump::write_state_text(&mut w, dump)?;
        w.flush()?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
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
