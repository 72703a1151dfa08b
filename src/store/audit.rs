//! `steward audit`: are the dice of these games fair? Per die, the results logged in the turn
//! files are counted against the real face distribution (a chi-square test), the longest run of
//! one value is weighed, a plain-text histogram is drawn, and anything improbable is flagged.
//!
//! It counts the rolls of each game's current line (not those of turns a rollback undid).
//! This reads the logged rolls only; `verify` is what proves each roll was derived from the
//! committed seed. The statistics are in `docs/store.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::engine::Die;

use super::error::StoreError;
use super::files::RollRecord;

/// Below this probability a result is flagged.
pub const FLAG_BELOW: f64 = 0.001;

/// The rolls of one die across the games audited, in order.
#[derive(Clone, Debug, Default)]
pub struct DieRolls {
    /// Values, in game then turn order.
    pub values: Vec<u8>,
    /// Rolls whose value is not the value of their face (should never happen).
    pub impossible: Vec<String>,
}

/// What the audit found for one die.
#[derive(Clone, Debug)]
pub struct DieReport {
    /// The die's name.
    pub die: String,
    /// Rolls.
    pub n: usize,
    /// Value, observed count, expected count.
    pub counts: Vec<(u8, usize, f64)>,
    /// Chi-square statistic.
    pub chi2: f64,
    /// Degrees of freedom.
    pub dof: usize,
    /// P-value of the chi-square test.
    pub p: f64,
    /// Longest run: value and length.
    pub run: (u8, usize),
    /// Probability of a run at least that long.
    pub run_p: f64,
    /// Flags raised.
    pub flags: Vec<String>,
}

#[derive(Deserialize)]
struct RollsOnly {
    #[serde(default)]
    roll: Vec<RollRecord>,
    #[serde(default)]
    rollback: Option<RollbackTo>,
}

#[derive(Deserialize)]
struct RollbackTo {
    to: u32,
}

/// The die a name in the files stands for.
pub fn die_named(name: &str) -> Option<Die> {
    (1..=6).map(Die::Gear).chain([Die::Black]).find(|d| d.name() == name)
}

/// Collects every roll of the games in `dirs`.
pub fn collect(dirs: &[PathBuf]) -> Result<BTreeMap<String, DieRolls>, StoreError> {
    let mut by_die: BTreeMap<String, DieRolls> = BTreeMap::new();
    for dir in dirs {
        let raw = super::verify::read(dir)?;
        // The current line only: the rolls of turns a rollback undid are not the dice the race
        // was played with (a moderator who rolled back until a roll suited them would otherwise
        // hide among them), and are listed apart by `steward verify` (docs/dice.md, 3a).
        let mut live: Vec<(u32, RollsOnly)> = Vec::new();
        for (n, bytes) in &raw.turns {
            let text = std::str::from_utf8(bytes).map_err(|_| bad(dir, *n, "not UTF-8"))?;
            let t: RollsOnly = toml::from_str(text).map_err(|e| bad(dir, *n, &e.to_string()))?;
            if let Some(r) = &t.rollback {
                live.retain(|(m, _)| *m <= r.to);
            }
            live.push((*n, t));
        }
        for (n, t) in live {
            let n = &n;
            for r in t.roll {
                let entry = by_die.entry(r.die.to_string()).or_default();
                let ok = die_named(&r.die).is_some_and(|d| d.faces().get(r.face as usize) == Some(&r.value));
                if !ok {
                    entry.impossible.push(format!(
                        "{} turn {n}: `{}` {} face {} = {}",
                        dir.display(),
                        r.label,
                        r.die,
                        r.face,
                        r.value
                    ));
                }
                entry.values.push(r.value);
            }
        }
    }
    Ok(by_die)
}

fn bad(dir: &Path, n: u32, why: &str) -> StoreError {
    StoreError::Parse { path: dir.join(super::verify::turn_path(n)), message: why.to_string() }
}

/// The statistics of one die.
pub fn analyse(name: &str, rolls: &DieRolls) -> DieReport {
    let mut flags: Vec<String> = rolls.impossible.iter().map(|s| format!("impossible roll: {s}")).collect();
    let Some(die) = die_named(name) else {
        flags.push(format!("unknown die `{name}`"));
        return DieReport {
            die: name.into(),
            n: rolls.values.len(),
            counts: Vec::new(),
            chi2: 0.0,
            dof: 0,
            p: 1.0,
            run: (0, 0),
            run_p: 1.0,
            flags,
        };
    };
    let faces = die.faces();
    let mut mult: BTreeMap<u8, usize> = BTreeMap::new();
    for &f in faces {
        *mult.entry(f).or_default() += 1;
    }
    let n = rolls.values.len();
    let mut observed: BTreeMap<u8, usize> = mult.keys().map(|&v| (v, 0)).collect();
    for v in &rolls.values {
        *observed.entry(*v).or_default() += 1;
    }
    let mut counts = Vec::new();
    let mut chi2 = 0.0;
    for (&v, &o) in &observed {
        let e = n as f64 * mult.get(&v).copied().unwrap_or(0) as f64 / faces.len() as f64;
        if e > 0.0 {
            chi2 += (o as f64 - e).powi(2) / e;
        }
        counts.push((v, o, e));
    }
    let dof = mult.len().saturating_sub(1);
    let p = if n == 0 || dof == 0 { 1.0 } else { chi_square_p(chi2, dof) };
    let mut run = (0u8, 0usize);
    let mut cur = (0u8, 0usize);
    for &v in &rolls.values {
        cur = if cur.1 > 0 && cur.0 == v { (v, cur.1 + 1) } else { (v, 1) };
        if cur.1 > run.1 {
            run = cur;
        }
    }
    let probs: Vec<f64> = mult.values().map(|&m| m as f64 / faces.len() as f64).collect();
    let run_p = run_probability(&probs, n, run.1);
    if p < FLAG_BELOW {
        flags.push(format!("the counts are improbable under the real faces (chi-square p = {p:.2e})"));
    }
    if run_p < FLAG_BELOW {
        flags.push(format!("a run of {} x {} is improbable in {n} rolls (p = {run_p:.2e})", run.1, run.0));
    }
    DieReport { die: name.into(), n, counts, chi2, dof, p, run, run_p, flags }
}

/// Probability of a run of one value at least `len` long somewhere in `n` rolls with value
/// probabilities `probs` (Poisson approximation of the number of such runs).
pub fn run_probability(probs: &[f64], n: usize, len: usize) -> f64 {
    if len <= 1 || n < len {
        return 1.0;
    }
    // A run starts at the first roll, or at a roll whose value differs from the previous one,
    // and repeats `len` times: expected number of such runs, then P(at least one).
    let later = (n - len) as f64;
    let lambda: f64 = probs.iter().map(|&p| p.powi(len as i32) * (1.0 + later * (1.0 - p))).sum();
    (1.0 - (-lambda).exp()).clamp(0.0, 1.0)
}

/// Upper tail of the chi-square distribution: P(X >= x) with `k` degrees of freedom.
pub fn chi_square_p(x: f64, k: usize) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    gamma_q(k as f64 / 2.0, x / 2.0)
}

fn ln_gamma(x: f64) -> f64 {
    // Lanczos approximation (g = 7, n = 9).
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized upper incomplete gamma function Q(a, x).
fn gamma_q(a: f64, x: f64) -> f64 {
    if x < a + 1.0 {
        // Series for P(a, x).
        let mut sum = 1.0 / a;
        let mut term = sum;
        let mut ap = a;
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        let p = sum * (-x + a * x.ln() - ln_gamma(a)).exp();
        (1.0 - p).clamp(0.0, 1.0)
    } else {
        // Continued fraction for Q(a, x) (modified Lentz).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (h * (-x + a * x.ln() - ln_gamma(a)).exp()).clamp(0.0, 1.0)
    }
}

/// The audit of the games in `dirs`: the text and whether anything was flagged.
pub fn audit(dirs: &[PathBuf]) -> Result<(String, bool), StoreError> {
    let by_die = collect(dirs)?;
    let total: usize = by_die.values().map(|r| r.values.len()).sum();
    let mut out = String::new();
    let _ = writeln!(out, "Audit of {} game(s): {total} rolls", dirs.len());
    let mut flagged = Vec::new();
    let mut names: Vec<&String> = by_die.keys().collect();
    names.sort_by_key(|n| {
        die_named(n).map_or((2, 0), |d| match d {
            Die::Gear(g) => (0, g),
            Die::Black => (1, 0),
        })
    });
    for name in names {
        let r = analyse(name, &by_die[name]);
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}: {} rolls; chi-square {:.2} on {} degree(s) of freedom, p = {:.3}; longest run {} x {} (p = {:.3})",
            r.die, r.n, r.chi2, r.dof, r.p, r.run.1, r.run.0, r.run_p
        );
        let most = r.counts.iter().map(|c| c.1 as f64).fold(0.0f64, f64::max).max(1.0);
        for (v, o, e) in &r.counts {
            let bar = "#".repeat(((*o as f64 / most) * 40.0).round() as usize);
            let _ = writeln!(out, "  {v:>2} | {bar:<40} {o:>7}  expected {e:>9.1}");
        }
        for f in &r.flags {
            let _ = writeln!(out, "  FLAG: {f}");
            flagged.push(format!("{}: {f}", r.die));
        }
    }
    let _ = writeln!(out);
    if flagged.is_empty() {
        let _ = writeln!(out, "Nothing improbable (each test flags below p = {FLAG_BELOW}).");
    } else {
        let _ = writeln!(out, "{} flag(s):", flagged.len());
        for f in &flagged {
            let _ = writeln!(out, "  {f}");
        }
    }
    Ok((out, !flagged.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi_square_tail_matches_tables() {
        // Tables: P(X >= 3.841 | 1) = 0.05, P(X >= 11.070 | 5) = 0.05, P(X >= 30.144 | 19) = 0.05.
        assert!((chi_square_p(3.841, 1) - 0.05).abs() < 1e-3);
        assert!((chi_square_p(11.070, 5) - 0.05).abs() < 1e-3);
        assert!((chi_square_p(30.144, 19) - 0.05).abs() < 1e-3);
        assert!((chi_square_p(2.0, 2) - (-1.0f64).exp()).abs() < 1e-9);
        assert!(chi_square_p(200.0, 5) < 1e-30);
    }

    #[test]
    fn long_runs_are_improbable_and_short_ones_are_not() {
        let d20 = vec![0.05; 20];
        assert!(run_probability(&d20, 1000, 3) > 0.5);
        assert!(run_probability(&d20, 1000, 8) < 1e-6);
    }
}
