//! Files the API writes (issue 30, Spec note 139): under one directory the operator chose,
//! by file name only, never over an existing file.
//!
//! `devnet_exportFixture` with a `path` used to write wherever a client said: absolute paths,
//! `../`, through symlinks, over existing files. A client is anyone who can reach the port
//! (a page on an `--allow-origin` origin, anyone on the network with a non-loopback
//! `--host`), so the server decides where files go:
//!
//! - the directory is `serve --export-dir DIR`; by default an `exports/` folder beside
//!   `--state` (created when first written); with neither, every file-writing call is refused;
//! - a client gives a file name only: no `/` or `\`, not `.` or `..`, not hidden (no leading
//!   `.`), no NUL, at most 255 bytes;
//! - a file is created with `O_CREAT | O_EXCL` (`create_new`): it is never written over, and a
//!   symlink of that name (even a dangling one) is never followed. A name that is taken gets
//!   a new one, `<stem>-2.<ext>`, `<stem>-3.<ext>`, ... (as the dashboard's `W` does); the
//!   reply says which names were written;
//! - a refusal is the named error `ExportRefused` and writes nothing.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the API may write files.
#[derive(Clone, Debug, Default)]
pub struct ExportDir {
    /// The directory, or why there is none.
    dir: Option<PathBuf>,
}

/// Why a file was not written (`ExportRefused`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportRefused {
    #[error(
        "ExportRefused: this server writes no files: start it with --export-dir DIR (or --state FILE, whose exports/ folder is used)"
    )]
    NoExportDir,
    #[error(
        "ExportRefused: `{name}` is not a plain file name ({why}); files go under the server's --export-dir, named by file name only"
    )]
    BadName { name: String, why: &'static str },
    #[error("ExportRefused: cannot write `{name}` under the export directory: {why}")]
    Io { name: String, why: String },
}

/// A second file written with the first: the function naming it from the first's name, and
/// its body.
pub type Beside<'a> = (&'a dyn Fn(&str) -> String, &'a str);

/// The longest file name taken (most file systems' limit).
pub const MAX_NAME_BYTES: usize = 255;

impl ExportDir {
    /// No directory: every file-writing call is refused.
    pub fn none() -> Self {
        ExportDir { dir: None }
    }

    /// Files go under `dir`.
    pub fn at(dir: PathBuf) -> Self {
        ExportDir { dir: Some(dir) }
    }

    /// `--export-dir`, else `exports/` beside `--state`, else none (Spec note 139).
    pub fn from_flags(export_dir: Option<&Path>, state: Option<&Path>) -> Self {
        match (export_dir, state) {
            (Some(d), _) => Self::at(d.to_path_buf()),
            (None, Some(s)) => {
                let parent = match s.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                Self::at(parent.join("exports"))
            }
            (None, None) => Self::none(),
        }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Writes `text` to a new file named `name` (or its first free numbered name) under the
    /// directory; returns the name written. Nothing is written on refusal.
    pub fn write_new(&self, name: &str, text: &str) -> Result<String, ExportRefused> {
        self.write_new_with(name, &|_| text.to_string(), None)
            .map(|(n, _)| n)
    }

    /// [`write_new`](Self::write_new) of a pair: `beside` (a second file whose name follows
    /// from the first's, as a fixture's base: the name function and the body) is written
    /// first, then the first file, whose text (`text`) may name the second; returns the names
    /// written. A pair is written whole or not at all.
    pub fn write_new_with(
        &self,
        name: &str,
        text: &dyn Fn(Option<&str>) -> String,
        beside: Option<Beside<'_>>,
    ) -> Result<(String, Option<String>), ExportRefused> {
        check_name(name)?;
        let dir = self.dir.as_ref().ok_or(ExportRefused::NoExportDir)?;
        let io = |n: &str, e: std::io::Error| ExportRefused::Io {
            name: n.to_string(),
            why: e.to_string(),
        };
        std::fs::create_dir_all(dir).map_err(|e| io(name, e))?;
        let (stem, ext) = match name.rsplit_once('.') {
            Some((s, e)) if !s.is_empty() => (s, Some(e)),
            _ => (name, None),
        };
        for n in 1..1000u32 {
            let candidate = match (n, ext) {
                (1, _) => name.to_string(),
                (n, Some(e)) => format!("{stem}-{n}.{e}"),
                (n, None) => format!("{stem}-{n}"),
            };
            if candidate.len() > MAX_NAME_BYTES {
                break;
            }
            let mut second = None;
            if let Some((name_of, body)) = &beside {
                let b = name_of(&candidate);
                check_name(&b)?;
                match create_new(&dir.join(&b)) {
                    Ok(mut f) => {
                        if let Err(e) = f.write_all(body.as_bytes()).and_then(|_| f.sync_all()) {
                            let _ = std::fs::remove_file(dir.join(&b));
                            return Err(io(&b, e));
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io(&b, e)),
                }
                second = Some(b);
            }
            let undo = |second: &Option<String>| {
                if let Some(b) = second {
                    let _ = std::fs::remove_file(dir.join(b));
                }
            };
            match create_new(&dir.join(&candidate)) {
                Ok(mut f) => {
                    let text = text(second.as_deref());
                    if let Err(e) = f.write_all(text.as_bytes()).and_then(|_| f.sync_all()) {
                        let _ = std::fs::remove_file(dir.join(&candidate));
                        undo(&second);
                        return Err(io(&candidate, e));
                    }
                    return Ok((candidate, second));
                }
                Err(e) => {
                    undo(&second);
                    if e.kind() == std::io::ErrorKind::AlreadyExists {
                        continue;
                    }
                    return Err(io(&candidate, e));
                }
            }
        }
        Err(ExportRefused::Io {
            name: name.to_string(),
            why: "the name and its numbered names are all taken".into(),
        })
    }
}

/// A new file: fails if anything (a file, a directory, a symlink, dangling or not) has the
/// name.
fn create_new(p: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(p)
}

/// A plain file name: see the module's documentation.
pub fn check_name(name: &str) -> Result<(), ExportRefused> {
    let bad = |why| {
        Err(ExportRefused::BadName {
            name: name.to_string(),
            why,
        })
    };
    if name.is_empty() {
        return bad("empty");
    }
    if name.len() > MAX_NAME_BYTES {
        return bad("longer than 255 bytes");
    }
    if name.contains('/') || name.contains('\\') {
        return bad("it holds a path separator");
    }
    if name == "." || name == ".." {
        return bad("it names a directory");
    }
    if name.starts_with('.') {
        return bad("a hidden name (leading `.`)");
    }
    if name.chars().any(|c| c == '\0' || c.is_control()) {
        return bad("it holds a control character");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_only() {
        for n in ["a.toml", "session-3.toml", "x"] {
            assert!(check_name(n).is_ok(), "{n}");
        }
        for n in [
            "",
            ".",
            "..",
            "../x.toml",
            "/etc/passwd",
            "a/b",
            "a\\b",
            ".hidden",
            "a\0b",
        ] {
            assert!(check_name(n).is_err(), "{n:?}");
        }
    }

    #[test]
    fn never_over_a_file_nor_through_a_symlink() {
        let d = std::env::temp_dir().join(format!("cowboy-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let x = ExportDir::at(d.clone());
        std::fs::write(d.as_path().join("a.toml"), "old").unwrap();
        let n = x.write_new("a.toml", "new").unwrap();
        assert_eq!(n, "a-2.toml");
        assert_eq!(
            std::fs::read_to_string(d.as_path().join("a.toml")).unwrap(),
            "old"
        );
        #[cfg(unix)]
        {
            let target = d.as_path().join("target");
            std::os::unix::fs::symlink(&target, d.as_path().join("s.toml")).unwrap();
            let n = x.write_new("s.toml", "new").unwrap();
            assert_eq!(n, "s-2.toml");
            assert!(!target.exists());
        }
        assert_eq!(
            ExportDir::none().write_new("a.toml", "x"),
            Err(ExportRefused::NoExportDir)
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
