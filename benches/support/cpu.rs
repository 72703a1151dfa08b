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
