//! A small stroke font for the picture of the mails: digits, capital letters and a few signs
//! drawn as SVG paths, so that the rasterised picture depends on no font installed anywhere
//! (same picture, same bytes, on every machine).
//!
//! Each glyph is polylines on a grid 4 units wide and 6 high (y down), separated by `|`.

use std::fmt::Write as _;

/// Units from one glyph's left edge to the next one's.
const ADVANCE: f64 = 5.6;

fn glyph(c: char) -> &'static str {
    match c {
        '0' => "1 0,3 0,4 1,4 5,3 6,1 6,0 5,0 1,1 0|0.6 5,3.4 1",
        '1' => "0.8 1.2,2 0,2 6|0.8 6,3.2 6",
        '2' => "0 1,1 0,3 0,4 1,4 2.2,0 6,4 6",
        '3' => "0 0.6,1 0,3 0,4 1,4 2,3 3,1.5 3|3 3,4 4,4 5,3 6,1 6,0 5.4",
        '4' => "3 6,3 0,0 4.2,4 4.2",
        '5' => "4 0,0.3 0,0 2.8,3 2.6,4 3.6,4 5,3 6,1 6,0 5.4",
        '6' => "3.6 0.3,2.6 0,1 0,0 1.2,0 5,1 6,3 6,4 5,4 3.8,3 2.8,1 2.8,0 3.8",
        '7' => "0 0,4 0,1.5 6",
        '8' => "1 3,0 2,0 1,1 0,3 0,4 1,4 2,3 3,1 3,0 4,0 5,1 6,3 6,4 5,4 4,3 3",
        '9' => "4 2.2,3 3.2,1 3.2,0 2.2,0 1,1 0,3 0,4 1,4 5,3 6,1 6,0.4 5.7",
        'A' => "0 6,0 2,2 0,4 2,4 6|0 3.6,4 3.6",
        'B' => "0 3,3 3,4 4,4 5,3 6,0 6,0 0,3 0,4 1,4 2,3 3",
        'C' => "4 1,3 0,1 0,0 1,0 5,1 6,3 6,4 5",
        'D' => "0 0,0 6,2.4 6,4 4.4,4 1.6,2.4 0,0 0",
        'E' => "4 0,0 0,0 6,4 6|0 3,3 3",
        'F' => "4 0,0 0,0 6|0 3,3 3",
        'G' => "4 1,3 0,1 0,0 1,0 5,1 6,3 6,4 5,4 3.4,2.4 3.4",
        'H' => "0 0,0 6|4 0,4 6|0 3,4 3",
        'I' => "1 0,3 0|2 0,2 6|1 6,3 6",
        'J' => "1.5 0,4 0,4 5,3 6,1 6,0 5",
        'K' => "0 0,0 6|4 0,0 4|1.4 2.8,4 6",
        'L' => "0 0,0 6,4 6",
        'M' => "0 6,0 0,2 3.4,4 0,4 6",
        'N' => "0 6,0 0,4 6,4 0",
        'O' => "1 0,3 0,4 1,4 5,3 6,1 6,0 5,0 1,1 0",
        'P' => "0 6,0 0,3 0,4 1,4 2.2,3 3.2,0 3.2",
        'Q' => "1 0,3 0,4 1,4 5,3 6,1 6,0 5,0 1,1 0|2.4 4.4,4 6.2",
        'R' => "0 6,0 0,3 0,4 1,4 2.2,3 3.2,0 3.2|2 3.2,4 6",
        'S' => "4 1,3 0,1 0,0 1,0 2,1 3,3 3,4 4,4 5,3 6,1 6,0 5",
        'T' => "0 0,4 0|2 0,2 6",
        'U' => "0 0,0 5,1 6,3 6,4 5,4 0",
        'V' => "0 0,2 6,4 0",
        'W' => "0 0,1 6,2 2.6,3 6,4 0",
        'X' => "0 0,4 6|4 0,0 6",
        'Y' => "0 0,2 3,4 0|2 3,2 6",
        'Z' => "0 0,4 0,0 6,4 6",
        '/' => "3.4 0,0.6 6",
        '-' => "0.6 3,3.4 3",
        _ => "0 0,4 0,4 6,0 6,0 0",
    }
}

/// Width of `text` in grid units (6 units high).
fn width(text: &str) -> f64 {
    let n = text.chars().count() as f64;
    (n * ADVANCE - (ADVANCE - 4.0)).max(0.0)
}

fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// `text` as one SVG `<path>`, its letters `height` high and centred on `(x, y)`, stroked in
/// `ink`. Lower-case letters are drawn as capitals.
pub fn text(text: &str, x: f64, y: f64, height: f64, ink: &str) -> String {
    let k = height / 6.0;
    let left = x - width(text) * k / 2.0;
    let top = y - height / 2.0;
    let mut d = String::new();
    for (i, c) in text.chars().enumerate() {
        let gx = left + i as f64 * ADVANCE * k;
        for line in glyph(c.to_ascii_uppercase()).split('|') {
            for (j, point) in line.split(',').enumerate() {
                let mut xy = point.split(' ').map(|v| v.parse::<f64>().unwrap_or(0.0));
                let (px, py) = (xy.next().unwrap_or(0.0), xy.next().unwrap_or(0.0));
                let _ = write!(d, "{}{} {}", if j == 0 { "M" } else { "L" }, r2(gx + px * k), r2(top + py * k));
            }
        }
    }
    format!(
        r#"<path d="{d}" fill="none" stroke="{ink}" stroke-width="{}" stroke-linecap="round" stroke-linejoin="round"/>"#,
        r2((height / 6.5).max(1.0))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_digit_and_capital_has_its_own_glyph() {
        let fallback = glyph('\u{1}');
        let all: Vec<char> = ('0'..='9').chain('A'..='Z').chain(['/', '-']).collect();
        for &c in &all {
            assert_ne!(glyph(c), fallback, "{c}");
            for line in glyph(c).split('|') {
                for p in line.split(',') {
                    let v: Vec<f64> = p.split(' ').map(|v| v.parse().expect("a number")).collect();
                    assert!(v.len() == 2 && (0.0..=4.0).contains(&v[0]) && (0.0..=6.5).contains(&v[1]), "{c}: {p}");
                }
            }
        }
        let mut seen: Vec<&str> = all.iter().map(|&c| glyph(c)).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), all.len());
    }
}
