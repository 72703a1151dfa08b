//! Hand-written inline SVG charts: the counts of a die's results as bars, with the count each
//! value is expected to reach under the real faces as a line. No script, no stylesheet.

use std::fmt::Write as _;

use crate::render::picture::escape;
use crate::store::audit::DieReport;

const W: f64 = 560.0;
const H: f64 = 160.0;
const LEFT: f64 = 40.0;
const BOTTOM: f64 = 24.0;

/// The bar chart of one die's report: one bar per value (observed), a dark tick across each
/// bar at its expected count, the axis with the largest count.
pub fn die_bars(r: &DieReport) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img"><title>{} die: observed counts against expected</title>"#,
        escape(&r.die)
    );
    let top = r.counts.iter().map(|c| (c.1 as f64).max(c.2)).fold(1.0f64, f64::max);
    let plot_h = H - BOTTOM - 10.0;
    let n = r.counts.len().max(1) as f64;
    let slot = (W - LEFT - 5.0) / n;
    let y = |v: f64| 10.0 + plot_h * (1.0 - v / top);
    let _ = write!(
        o,
        r##"<line x1="{LEFT}" y1="{}" x2="{W}" y2="{}" stroke="#000"/><text x="{}" y="14" font-size="11" text-anchor="end">{}</text>"##,
        H - BOTTOM,
        H - BOTTOM,
        LEFT - 4.0,
        top.round()
    );
    for (i, (v, obs, exp)) in r.counts.iter().enumerate() {
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let w = slot * 0.7;
        let yo = y(*obs as f64);
        let _ = write!(
            o,
            r##"<rect class="bar" x="{x:.1}" y="{yo:.1}" width="{w:.1}" height="{:.1}" fill="#5b8fd6"><title>{v}: {obs} rolled, {exp:.1} expected</title></rect>"##,
            (H - BOTTOM - yo).max(0.0)
        );
        let ye = y(*exp);
        let _ = write!(
            o,
            r##"<line class="expected" x1="{:.1}" y1="{ye:.1}" x2="{:.1}" y2="{ye:.1}" stroke="#c00" stroke-width="2"/>"##,
            x - slot * 0.1,
            x + w + slot * 0.1
        );
        let _ = write!(
            o,
            r#"<text x="{:.1}" y="{}" font-size="10" text-anchor="middle">{v}</text>"#,
            x + w / 2.0,
            H - BOTTOM + 14.0
        );
    }
    o.push_str("</svg>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_and_one_expected_line_per_value() {
        let r = DieReport {
            die: "gear-1".into(),
            n: 6,
            counts: vec![(1, 4, 3.0), (2, 2, 3.0)],
            chi2: 0.67,
            dof: 1,
            p: 0.41,
            run: (1, 2),
            run_p: 0.5,
            flags: vec![],
        };
        let s = die_bars(&r);
        assert_eq!(s.matches(r#"class="bar""#).count(), 2);
        assert_eq!(s.matches(r#"class="expected""#).count(), 2);
        // The tallest bar (4 of a top of 4) reaches the top of the plot.
        assert!(s.contains(r#"y="10.0" width"#), "{s}");
    }
}
