//! Crash-safe file writes and the game-directory lock.
//!
//! A file is written whole to a hidden temporary file beside it, flushed to disk (`fsync`),
//! renamed over its final name, and the directory is flushed, so a reader sees the old file or
//! the new one, never a part. A game directory is locked (`flock` on its `.lock` file) while a
//! command writes it; the lock dies with the process, so a killed writer leaves no stale lock.
//!
//! Grouped writes (issue 17): a write made with [`Durability::Grouped`] flushes its file at once
//! but leaves its directory's flush for the next [`barrier`], which every [`Durability::Sync`]
//! write makes before its own. So a `Sync` write is still durable only after everything written
//! before it, and a job's writes into one directory (its outbox replies, its standing orders)
//! share one directory flush instead of one each. The set of directories waiting for a flush is
//! the thread's: the daemon writes from one thread, whose writes are one sequence (and tests
//! running side by side do not flush each other's).
//!
//! Fault injection for the crash test: with `STEWARD_CRASH_AFTER=N` in the environment the
//! process aborts at the N-th write step (file created, each 64-byte chunk written, fsync,
//! rename, directory fsync), as a `kill -9` would, without unwinding or flushing anything.
//! With `STEWARD_CRASH_BEFORE=<file name>` it aborts as the first atomic write of a file of
//! that name begins: a crash between two named writes of one job, which counting steps only
//! reaches by chance.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Environment variable of the fault injection.
pub const CRASH_ENV: &str = "STEWARD_CRASH_AFTER";

/// Environment variable of the fault injection before a named file's write.
pub const CRASH_BEFORE_ENV: &str = "STEWARD_CRASH_BEFORE";

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

fn crash_before() -> Option<&'static str> {
    static BEFORE: OnceLock<Option<String>> = OnceLock::new();
    BEFORE.get_or_init(|| std::env::var(CRASH_BEFORE_ENV).ok().filter(|v| !v.is_empty())).as_deref()
}

/// Aborts the process if `path` is the file `STEWARD_CRASH_BEFORE` names.
fn crash_before_writing(path: &Path) {
    if let Some(name) = crash_before()
        && path.file_name().is_some_and(|f| f == name)
    {
        std::process::abort();
    }
}

/// Writes `bytes` to `f`; under the crash test's fault injection, in 64-byte write steps, so
/// that the process can die in the middle of a file (or of a log's line).
pub fn write_in_steps(mut f: impl Write, bytes: &[u8]) -> io::Result<()> {
    if crash_after().is_none() {
        return f.write_all(bytes);
    }
    for chunk in bytes.chunks(64) {
        f.write_all(chunk)?;
        step();
    }
    Ok(())
}

/// Counts one write step; aborts the process at the step `STEWARD_CRASH_AFTER` names.
pub fn step() {
    if let Some(n) = crash_after()
        && STEPS.fetch_add(1, Ordering::SeqCst) + 1 >= n
    {
        std::process::abort();
    }
}

/// True for the local I/O errors that may clear up by themselves (a full disk, an exhausted
/// quota, an interrupted or timed-out call, a busy resource, memory short): a daemon waits and
/// tries again rather than giving up or blaming the order it was applying.
pub fn is_transient(e: &io::Error) -> bool {
    use io::ErrorKind::*;
    matches!(e.kind(), Interrupted | WouldBlock | TimedOut | StorageFull | QuotaExceeded | ResourceBusy | OutOfMemory)
}

/// How hard writes try to survive a power cut.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Durability {
    /// `fsync` every file and directory (the default).
    Sync,
    /// Atomic renames only: safe against a killed process, not against a power cut (bulk
    /// simulations, records whose loss costs nothing: the hourly mail counts).
    NoSync,
    /// `fsync` the file now and its directory at the next [`barrier`] (made by the next `Sync`
    /// write at the latest): for the daemon's job files written before its commit point.
    Grouped,
}

impl Durability {
    /// What a job's files written before its commit point take: `Grouped` for `Sync`.
    pub fn grouped(self) -> Durability {
        match self {
            Durability::Sync => Durability::Grouped,
            d => d,
        }
    }
}

thread_local! {
    /// Directories written with [`Durability::Grouped`] and not flushed yet.
    static PENDING: RefCell<BTreeSet<PathBuf>> = const { RefCell::new(BTreeSet::new()) };
}

/// Leaves `dir`'s flush to the next [`barrier`].
pub fn defer_dir_sync(dir: &Path) {
    PENDING.with_borrow_mut(|p| p.insert(dir.to_path_buf()));
}

/// The directories waiting for the next [`barrier`] (tests).
pub fn pending_dirs() -> Vec<PathBuf> {
    PENDING.with_borrow(|p| p.iter().cloned().collect())
}

/// Flushes every directory a [`Durability::Grouped`] write left waiting, once each: after it,
/// every write made so far survives a power cut.
pub fn barrier() -> io::Result<()> {
    let dirs = PENDING.take();
    for d in &dirs {
        match sync_dir(d) {
            Ok(()) => step(),
            // A directory removed since (a game deleted) has nothing left to flush.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                // Still owed: the next barrier tries again.
                PENDING.with_borrow_mut(|p| p.extend(dirs.iter().cloned()));
                return Err(e);
            }
        }
    }
    Ok(())
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
    crash_before_writing(path);
    if durability == Durability::Sync {
        // Everything written before this write is durable before it.
        barrier()?;
    }
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
    write_in_steps(&mut f, bytes)?;
    if durability != Durability::NoSync {
        sync_file(&f)?;
    }
    step();
    drop(f);
    fs::rename(&tmp, path)?;
    step();
    if let Some(dir) = path.parent() {
        match durability {
            Durability::Sync => sync_dir(dir)?,
            Durability::Grouped => defer_dir_sync(dir),
            Durability::NoSync => {}
        }
    }
    step();
    Ok(())
}

/// Cuts off the last line of an append-only log (opened for writing) if a crash left it
/// without its line end: it was never committed, and the next line must not run on from it.
/// Returns the length kept.
pub fn cut_torn_line(log: &File) -> io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let len = log.metadata()?.len();
    let mut end = len;
    let mut buf = [0u8; 4096];
    while end > 0 {
        let n = end.min(buf.len() as u64);
        log.read_exact_at(&mut buf[..n as usize], end - n)?;
        if let Some(i) = buf[..n as usize].iter().rposition(|&b| b == b'\n') {
            end = end - n + i as u64 + 1;
            break;
        }
        end -= n;
    }
    if end < len {
        log.set_len(end)?;
    }
    Ok(end)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("steward-fsio-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(d.join("a")).unwrap();
        fs::create_dir_all(d.join("b")).unwrap();
        d
    }

    #[test]
    fn a_log_s_torn_last_line_is_cut_off_and_a_whole_log_kept() {
        let d = scratch("torn");
        let cases: [(&[u8], &[u8]); 4] =
            [(b"a\nb\n", b"a\nb\n"), (b"a\nb\npartial", b"a\nb\n"), (b"no line end", b""), (b"", b"")];
        for (before, after) in cases {
            let p = d.join("a/log");
            fs::write(&p, before).unwrap();
            let f = OpenOptions::new().read(true).append(true).open(&p).unwrap();
            assert_eq!(cut_torn_line(&f).unwrap(), after.len() as u64);
            assert_eq!(fs::read(&p).unwrap(), after);
        }
        // Longer than one read back: the line end is found blocks before the end.
        let mut long = b"first\n".to_vec();
        long.extend(std::iter::repeat_n(b'x', 10_000));
        let p = d.join("a/long");
        fs::write(&p, &long).unwrap();
        let f = OpenOptions::new().read(true).write(true).open(&p).unwrap();
        assert_eq!(cut_torn_line(&f).unwrap(), 6);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn grouped_writes_leave_one_directory_flush_to_the_next_sync_write() {
        let d = scratch("grouped");
        barrier().unwrap();
        write_atomic(&d.join("a/one"), b"1", Durability::Grouped, false).unwrap();
        write_atomic(&d.join("a/two"), b"2", Durability::Grouped, false).unwrap();
        assert_eq!(pending_dirs(), vec![d.join("a")], "one flush owed for the two files");
        write_atomic(&d.join("b/three"), b"3", Durability::NoSync, false).unwrap();
        assert_eq!(pending_dirs(), vec![d.join("a")], "a write that flushes nothing changes nothing");
        write_atomic(&d.join("b/four"), b"4", Durability::Sync, false).unwrap();
        assert!(pending_dirs().is_empty(), "a Sync write flushes what was owed before it");
        assert_eq!(fs::read(d.join("a/two")).unwrap(), b"2");
        let _ = fs::remove_dir_all(&d);
    }
}
