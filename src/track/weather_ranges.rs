//! A track file's weather ranges (which faces of the black die mean sun, changeable or rain, 3)
//! parsed into the model's table: shared by the track files, the graph files and the
//! importer.

use super::model::{Weather, WeatherTable};
use super::problem::TrackProblem;

/// Parses the weather ranges of a track file into a table.
pub fn weather_table(sun: &str, changeable: &str, rain: &str) -> Result<WeatherTable, Vec<TrackProblem>> {
    let mut faces: [Option<Weather>; 20] = [None; 20];
    let mut problems = Vec::new();
    for (field, w, spec) in
        [("sun", Weather::Sun, sun), ("changeable", Weather::Changeable, changeable), ("rain", Weather::Rain, rain)]
    {
        match parse_ranges(spec) {
            Ok(ranges) => {
                for (lo, hi) in ranges {
                    for face in lo..=hi {
                        let slot = &mut faces[(face - 1) as usize];
                        if slot.is_some() {
                            problems.push(TrackProblem::WeatherOverlap(face));
                        }
                        *slot = Some(w);
                    }
                }
            }
            Err(message) => problems.push(TrackProblem::BadValue { field: format!("weather.{field}"), message }),
        }
    }
    for (i, f) in faces.iter().enumerate() {
        if f.is_none() && problems.is_empty() {
            problems.push(TrackProblem::WeatherGap(i as u8 + 1));
        }
    }
    if problems.is_empty() { Ok(WeatherTable::new(faces.map(|f| f.unwrap_or(Weather::Sun)))) } else { Err(problems) }
}

/// Parses `"1-12"`, `"13"`, `"1-3, 19-20"` or `""` (no face) into inclusive ranges of 1..=20.
fn parse_ranges(spec: &str) -> Result<Vec<(u8, u8)>, String> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let parse = |s: &str| s.parse::<u8>().ok().filter(|v| (1..=20).contains(v));
        match (parse(lo), parse(hi)) {
            (Some(a), Some(b)) if a <= b => out.push((a, b)),
            _ => return Err(format!("`{part}` is not a range of black-die faces like `1-12` (faces are 1..20)")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_and_reject() {
        assert_eq!(parse_ranges("1-3, 19-20").unwrap(), vec![(1, 3), (19, 20)]);
        assert_eq!(parse_ranges("7").unwrap(), vec![(7, 7)]);
        assert!(parse_ranges("").unwrap().is_empty());
        assert!(parse_ranges("0-3").is_err());
        assert!(parse_ranges("5-2").is_err());
        assert!(parse_ranges("x").is_err());
    }

    #[test]
    fn weather_table_reports_gaps_and_overlaps() {
        let t = weather_table("1-12", "13-16", "17-20").unwrap();
        assert_eq!(t.weather(12), Weather::Sun);
        assert_eq!(t.weather(13), Weather::Changeable);
        assert_eq!(t.weather(20), Weather::Rain);
        assert_eq!(weather_table("1-12", "13-15", "17-20").unwrap_err(), vec![TrackProblem::WeatherGap(16)]);
        assert_eq!(weather_table("1-13", "13-16", "17-20").unwrap_err(), vec![TrackProblem::WeatherOverlap(13)]);
    }
}
