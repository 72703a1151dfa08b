//! Crash-safe file writes and the game-directory lock.
//!
//! A file is written whole to a hidden temporary file beside it, flushed to disk (`fsync`),
//! renamed over its final name, and the directory is flushed, so a reader sees the old file or
//! the new one, never a part. A game directory is locked (`flock` on its `.lock` file) while a
//! command writes it; the lock dies with the process, so a killed writer leaves no stale lock.
//!
//! Fault injection for the crash test: with `STEWARD_CRASH_AFTER=N` in the environment the
//! process aborts at the N-th write step (file created, each 64-byte chunk written, fsync,
//! rename, directory fsync), as a `kill -9` would, without unwinding or flushing anything.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Environment variable of the fault injection.
pub const CRASH_ENV: &str = "STEWARD_CRASH_AFTER";

static STEPS: AtomicU64 = AtomicU64::new(0);

/// `fsync`s made by this process (files and directories), for the daemon's benchmark.
static FSYNCS: AtomicU64 = AtomicU64::new(0);

/// How many `fsync`s this process made through [`sync_file`] and [`sync_dir`] (every durable
/// write of steward's goes through them): `cargo bench --bench daemon_cpu` prints it per message.
pub fn fsyncs() -> u64 {
    FSYNCS.load(Ordering::Relaxed)
}

/// Flushes a file's data and metadata to disk.
pub fn sync_file(f: &File) -> io::Result<()> {
    FSYNCS.fetch_add(1, Ordering::Relaxed);
    f.sync_all()
}

fn crash_after() -> Option<u64> {
    static AFTER: OnceLock<Option<u64>> = OnceLock::new();
    *AFTER.get_or_init(|| std::env::var(CRASH_ENV).ok().and_then(|v| v.parse().ok()))
}

/// Counts one write step; aborts the process at the step `STEWARD_CRASH_AFTER` names.
pub fn step() {
    if let Some(n) = crash_after()
        && STEPS.fetch_add(1, Ordering::SeqCst) + 1 >= n
    {
        std::process::abort();
    }
}

/// How hard writes try to survive a power cut.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Durability {
    /// `fsync` every file and directory (the default).
    Sync,
    /// Atomic renames only: safe against a killed process, not against a power cut (bulk
    /// simulations).
    NoSync,
}

/// The temporary name `path` is written under: `.<name>.tmp` in the same directory.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// True for the names [`write_atomic`] uses for its temporary files.
pub fn is_temp(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// Writes `bytes` to `path` atomically; `private` makes the file readable by its owner only.
pub fn write_atomic(path: &Path, bytes: &[u8], durability: Durability, private: bool) -> io::Result<()> {
    let tmp = temp_path(path);
    let _ = fs::remove_file(&tmp);
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut f = opts.open(&tmp)?;
    step();
    if crash_after().is_some() {
        for chunk in bytes.chunks(64) {
            f.write_all(chunk)?;
            step();
        }
    } else {
        f.write_all(bytes)?;
    }
    if durability == Durability::Sync {
        sync_file(&f)?;
    }
    step();
    drop(f);
    fs::rename(&tmp, path)?;
    step();
    if durability == Durability::Sync
        && let Some(dir) = path.parent()
    {
        sync_dir(dir)?;
    }
    step();
    Ok(())
}

/// Flushes a directory's entries to disk.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        sync_file(&File::open(dir)?)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Removes temporary files an interrupted write left in `dir`.
pub fn remove_temps(dir: &Path) -> io::Result<()> {
    for e in fs::read_dir(dir)?.flatten() {
        if e.file_name().to_str().is_some_and(is_temp) {
            fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

/// An exclusive lock on a directory, held until dropped (or the process dies).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    /// Waits for and takes the lock of `dir` (its `.lock` file).
    pub fn take(dir: &Path) -> io::Result<DirLock> {
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(dir.join(".lock"))?;
        file.lock()?;
        Ok(DirLock { _file: file })
    }
}
