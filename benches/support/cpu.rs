//! The CPU time of the benchmark's own process, for the rows of issue 17 that are CPU time
//! (the daemon's per message, `verify` against reading and parsing).

/// User + system CPU time of this process so far (all its threads), in seconds, from
/// `/proc/self/stat` (clock ticks of 10 ms).
#[allow(dead_code)] // not every benchmark adds them
pub fn cpu_seconds() -> f64 {
    let (user, system) = cpu_split();
    user + system
}

/// User and system CPU time of this process so far, in seconds (see [`cpu_seconds`]).
#[allow(dead_code)] // not every benchmark splits them
pub fn cpu_split() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line: 12 and 13 after the command.
    (ticks(11) / 100.0, ticks(12) / 100.0)
}

/// CPU time of the calling thread so far, in seconds, to the nanosecond
/// (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`): for timing one thread's short work, where the
/// process ticks of [`cpu_seconds`] are too coarse.
#[allow(dead_code)] // not every benchmark times one thread
pub fn thread_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec, and the clock id is a constant Linux knows.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    assert!(ok, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}
