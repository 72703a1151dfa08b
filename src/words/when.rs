//! Deadlines as people read them (issue 46): the weekday, the day and the time in the reader's
//! time zone, with the UTC time beside it (`Thursday 10 December 2026, 21:00 Europe/Paris (20:00
//! UTC)`; `jeudi 10 décembre 2026, 21 h 00 Europe/Paris (20 h 00 UTC)`). The time zone database
//! is built into the program (the `jiff` crate's bundled copy), so the same deadline reads the
//! same on every machine.

use jiff::Timestamp;
use jiff::civil::Weekday;
use jiff::tz::TimeZone;

use super::Lang;

/// Whether `name` is a time zone steward knows (`Europe/Paris`, `America/New_York`, `UTC`).
pub fn known_zone(name: &str) -> bool {
    jiff::tz::db().get(name).is_ok()
}

/// The zone's canonical spelling (`europe/paris` → `Europe/Paris`), if known.
pub fn zone_name(name: &str) -> Option<String> {
    let tz = jiff::tz::db().get(name).ok()?;
    tz.iana_name().map(str::to_string).or_else(|| Some(name.to_string()))
}

fn weekday(w: Weekday, lang: Lang) -> &'static str {
    let i = w.to_monday_zero_offset() as usize;
    match lang {
        Lang::En => ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][i],
        Lang::Fr => ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"][i],
    }
}

fn month(m: i8, lang: Lang) -> &'static str {
    let i = (m.clamp(1, 12) - 1) as usize;
    match lang {
        Lang::En => [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ][i],
        Lang::Fr => [
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ][i],
    }
}

fn clock(h: i8, m: i8, lang: Lang) -> String {
    match lang {
        Lang::En => format!("{h:02}:{m:02}"),
        Lang::Fr => format!("{h} h {m:02}"),
    }
}

/// Second `at` (UTC, seconds since 1970) in words for a reader in `zone` (none, unknown, or
/// UTC: UTC alone).
pub fn deadline(at: i64, zone: Option<&str>, lang: Lang) -> String {
    let Ok(ts) = Timestamp::from_second(at) else { return at.to_string() };
    let utc = ts.to_zoned_datetime(TimeZone::UTC);
    let tz = zone.filter(|z| !z.eq_ignore_ascii_case("utc")).and_then(|z| jiff::tz::db().get(z).ok().map(|t| (z, t)));
    let (shown, name) = match &tz {
        Some((z, t)) => (ts.to_zoned_datetime(t.clone()), Some(zone_name(z).unwrap_or_else(|| z.to_string()))),
        None => (utc.clone(), None),
    };
    let day =
        format!("{} {} {} {}", weekday(shown.weekday(), lang), shown.day(), month(shown.month(), lang), shown.year());
    let time = clock(shown.hour(), shown.minute(), lang);
    match name {
        Some(n) => format!("{day}, {time} {n} ({} UTC)", clock(utc.hour(), utc.minute(), lang)),
        None => format!("{day}, {time} UTC"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_read_with_their_weekday_and_zone() {
        // 2026-12-10T20:00:00Z, a Thursday; Paris is UTC+1 in winter.
        let at = 1_796_932_800;
        assert_eq!(deadline(at, None, Lang::En), "Thursday 10 December 2026, 20:00 UTC");
        assert_eq!(
            deadline(at, Some("Europe/Paris"), Lang::En),
            "Thursday 10 December 2026, 21:00 Europe/Paris (20:00 UTC)"
        );
        assert_eq!(
            deadline(at, Some("Europe/Paris"), Lang::Fr),
            "jeudi 10 décembre 2026, 21 h 00 Europe/Paris (20 h 00 UTC)"
        );
        assert_eq!(deadline(at, Some("Nowhere/Atlantis"), Lang::En), "Thursday 10 December 2026, 20:00 UTC");
        // Across the change to summer time (Paris, 29 March 2026, 02:00 → 03:00): 07:00 UTC is
        // 08:00 on the Saturday before and 09:00 on the Sunday.
        let saturday = 1_774_681_200; // 2026-03-28T07:00:00Z
        assert_eq!(
            deadline(saturday, Some("Europe/Paris"), Lang::En),
            "Saturday 28 March 2026, 08:00 Europe/Paris (07:00 UTC)"
        );
        assert_eq!(
            deadline(saturday + 86_400, Some("Europe/Paris"), Lang::En),
            "Sunday 29 March 2026, 09:00 Europe/Paris (07:00 UTC)"
        );
        assert!(known_zone("America/New_York") && !known_zone("Mars/Olympus"));
    }
}
