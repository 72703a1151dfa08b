//! A game's round schedule (issue 46): the deadline of every round at a fixed time of day in the
//! game's time zone (`AT 20:00 ZONE Europe/Paris`), weekends skipped if the game says so, with
//! at least some notice after the round begins and a grace period before the default move.
//!
//! Pure: the round's start goes in, its deadline comes out. The time zone database is the one
//! built into the program (the `jiff` crate's bundled copy), so a replay on any machine writes
//! the same deadlines, across daylight-saving changes too.

use jiff::civil::{Time, Weekday};
use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};

use super::Stamp;

/// The least notice a round gets by default: its deadline is the first scheduled time at least
/// this long after the round begins (docs/rulings.md, ruling 54).
pub const DEFAULT_NOTICE_HOURS: u32 = 12;

/// When a round is due.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// The time of day of every deadline, `HH:MM` in `zone`.
    pub at: String,
    /// The game's time zone (`Europe/Paris`; `UTC`).
    pub zone: String,
    /// Saturdays and Sundays carry no deadline.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_weekends: bool,
    /// The least notice, in hours, between a round's start and its deadline.
    pub notice_hours: u32,
    /// Minutes after the deadline in which an order is still taken; the default move comes then.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub grace_minutes: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Reads `HH:MM` (or `HHhMM`, `20h`, as a French mail writes it): hours and minutes.
pub fn time_of_day(text: &str) -> Option<(i8, i8)> {
    let t = text.trim().to_ascii_lowercase();
    let (h, m) = t.split_once([':', 'h']).unwrap_or((&t, "0"));
    let m = if m.is_empty() { "0" } else { m };
    let ok = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    if !ok(h) || !ok(m) {
        return None;
    }
    let (h, m): (i8, i8) = (h.parse().ok()?, m.parse().ok()?);
    ((0..24).contains(&h) && (0..60).contains(&m)).then_some((h, m))
}

/// A time of day as a schedule keeps it (`20h` → `20:00`), if it reads as one.
pub fn canonical_time(text: &str) -> Option<String> {
    time_of_day(text).map(|(h, m)| format!("{h:02}:{m:02}"))
}

impl Schedule {
    /// The first scheduled time at least `notice_hours` after `start`: the round's deadline
    /// (before its grace). `None` if the zone or the time is not one steward knows.
    pub fn deadline(&self, start: Stamp) -> Option<Stamp> {
        let tz: TimeZone = jiff::tz::db().get(&self.zone).ok()?;
        let (h, m) = time_of_day(&self.at)?;
        let earliest = start.0 + i64::from(self.notice_hours) * 3600;
        let from = jiff::Timestamp::from_second(earliest).ok()?.to_zoned_datetime(tz.clone());
        let mut day = from.date();
        // A week and a day always hold an allowed day; a gap in the clock (a spring-forward
        // hour) moves the time later, as `jiff` resolves it.
        for _ in 0..9 {
            let weekend = matches!(day.weekday(), Weekday::Saturday | Weekday::Sunday);
            if !(self.skip_weekends && weekend) {
                let at = day.to_datetime(Time::new(h, m, 0, 0).ok()?).to_zoned_datetime(tz.clone()).ok()?;
                let s = at.timestamp().as_second();
                if s >= earliest {
                    return Some(Stamp(s));
                }
            }
            day = day.tomorrow().ok()?;
        }
        None
    }

    /// When the default move comes: the deadline and its grace.
    pub fn default_at(&self, deadline: Stamp) -> Stamp {
        Stamp(deadline.0 + i64::from(self.grace_minutes) * 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paris(skip_weekends: bool) -> Schedule {
        Schedule {
            at: "20:00".into(),
            zone: "Europe/Paris".into(),
            skip_weekends,
            notice_hours: DEFAULT_NOTICE_HOURS,
            grace_minutes: 30,
        }
    }

    #[test]
    fn times_of_day_are_read_as_mail_writes_them() {
        assert_eq!(time_of_day("20:00"), Some((20, 0)));
        assert_eq!(time_of_day("20h30"), Some((20, 30)));
        assert_eq!(time_of_day("8h"), Some((8, 0)));
        assert_eq!(time_of_day("24:00"), None);
        assert_eq!(time_of_day("20:60"), None);
        assert_eq!(time_of_day("noon"), None);
        assert_eq!(canonical_time("8h5").as_deref(), Some("08:05"));
    }

    #[test]
    fn a_round_gets_the_first_slot_after_its_notice_in_the_games_zone() {
        // Monday 7 December 2026, 09:00 UTC (10:00 in Paris): 12 hours on is 22:00 in Paris,
        // past 20:00, so Tuesday 20:00 Paris = 19:00 UTC.
        let s = paris(false);
        let d = s.deadline(Stamp::parse("2026-12-07T09:00:00Z").unwrap()).unwrap();
        assert_eq!(d.to_string(), "2026-12-08T19:00:00Z");
        // Starting at 05:00 UTC: 17:00 UTC = 18:00 Paris, so the same day's 20:00.
        let d = s.deadline(Stamp::parse("2026-12-07T05:00:00Z").unwrap()).unwrap();
        assert_eq!(d.to_string(), "2026-12-07T19:00:00Z");
        assert_eq!(s.default_at(d).to_string(), "2026-12-07T19:30:00Z");
    }

    #[test]
    fn weekends_are_skipped_across_the_spring_daylight_saving_change() {
        // Europe/Paris goes from UTC+1 to UTC+2 on Sunday 28 March 2027. A round that begins
        // on Friday 26 March after 08:00 UTC misses Friday's 20:00 (19:00 UTC) and, weekends
        // skipped, is due on Monday 29 March at 20:00 summer time: 18:00 UTC.
        let d = paris(true).deadline(Stamp::parse("2027-03-26T09:00:00Z").unwrap()).unwrap();
        assert_eq!(d.to_string(), "2027-03-29T18:00:00Z");
        // Without the weekend skipped it is Saturday's, still in winter time: 19:00 UTC.
        let d = paris(false).deadline(Stamp::parse("2027-03-26T09:00:00Z").unwrap()).unwrap();
        assert_eq!(d.to_string(), "2027-03-27T19:00:00Z");
        // In the autumn (31 October 2027) back to UTC+1.
        let d = paris(true).deadline(Stamp::parse("2027-10-29T09:00:00Z").unwrap()).unwrap();
        assert_eq!(d.to_string(), "2027-11-01T19:00:00Z");
    }

    #[test]
    fn an_unknown_zone_gives_no_deadline() {
        let s = Schedule { zone: "Mars/Olympus".into(), ..paris(false) };
        assert_eq!(s.deadline(Stamp(0)), None);
    }
}
