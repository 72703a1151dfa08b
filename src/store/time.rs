//! Timestamps in game files: UTC, whole seconds, `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339). The store
//! reads the clock only to stamp a new turn; a replay takes every time from the files.

use std::time::{SystemTime, UNIX_EPOCH};

/// A moment, in seconds since 1970-01-01T00:00:00Z.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stamp(pub i64);

impl Stamp {
    /// Now, from the system clock.
    pub fn now() -> Self {
        let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        Stamp(secs)
    }

    /// `hours` later.
    pub fn plus_hours(self, hours: u32) -> Self {
        Stamp(self.0 + hours as i64 * 3600)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
            return None;
        }
        if b[19] != b'Z' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let t = s.get(r)?;
            if t.bytes().all(|c| c.is_ascii_digit()) { t.parse().ok() } else { None }
        };
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 59 {
            return None;
        }
        Some(Stamp(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se))
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let (h, mi, se) = (secs / 3600, secs / 60 % 60, secs % 60);
        if !(0..=9999).contains(&y) {
            return write!(f, "{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{se:02}Z");
        }
        // Every replayed turn writes its deadline: the digits are put in place, without the
        // formatting machinery (the same text as the `write!` above).
        let mut b = *b"0000-00-00T00:00:00Z";
        for (at, v, width) in [(0, y, 4), (5, m, 2), (8, d, 2), (11, h, 2), (14, mi, 2), (17, se, 2)] {
            let mut v = v;
            for i in (at..at + width).rev() {
                b[i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        }
        f.write_str(std::str::from_utf8(&b).map_err(|_| std::fmt::Error)?)
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_round_trip() {
        assert_eq!(Stamp(0).to_string(), "1970-01-01T00:00:00Z");
        assert_eq!(Stamp(951_782_400).to_string(), "2000-02-29T00:00:00Z");
        for s in [0i64, 59, 86_399, 951_782_400, 1_780_000_000, 4_102_444_800] {
            assert_eq!(Stamp::parse(&Stamp(s).to_string()), Some(Stamp(s)));
        }
        assert_eq!(Stamp::parse("2026-02-29T00:00:00Z"), None);
        assert_eq!(Stamp::parse("2026-01-01 00:00:00Z"), None);
        assert_eq!(Stamp::parse("2026-01-01T00:00:00+01:00"), None);
    }

    /// The digits put in place say what the formatting machinery says, for every time of day
    /// and across the years a stamp can name (outside 0-9999, the machinery writes it).
    #[test]
    fn stamps_read_as_the_formatting_machinery_writes_them() {
        let machinery = |st: Stamp| {
            let (days, secs) = (st.0.div_euclid(86_400), st.0.rem_euclid(86_400));
            let (y, m, d) = civil_from_days(days);
            format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)
        };
        let mut x: i64 = 12_345;
        for second in 0..86_400i64 {
            // Every second of a day, each on a day drawn from year -1 to 10000.
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let day = (x >> 20).rem_euclid(3_700_000) - 720_000;
            let st = Stamp(day * 86_400 + second);
            assert_eq!(st.to_string(), machinery(st), "{}", st.0);
        }
        for st in [Stamp(-62_167_219_200), Stamp(-62_167_219_201), Stamp(253_402_300_799), Stamp(253_402_300_800)] {
            assert_eq!(st.to_string(), machinery(st), "{}", st.0);
        }
    }
}
