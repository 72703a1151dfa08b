//! Reads the text of a `.dat` track graph into plain records, with the line of each.
//!
//! The format (docs/import.md has the details): a header line, then four parts separated by
//! blank lines: nodes `id x y type [F]`, arrows `from to`, attributes `id value`, grid slots
//! `id angle`. Lines end in CRLF or LF. Every malformed line is reported, with its line number,
//! before anything is inferred.

use std::collections::HashMap;

use super::super::problem::{Diagnostic, TrackProblem};

/// What a node is, from its type number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Type 1: a straight space.
    Straight,
    /// Types 3, 2, 6: a corner space needing 1, 2 or 3 stops.
    Curve(u8),
    /// Type 4: a blocked space no car may enter.
    Blocked,
    /// Type 5: a finish-line space (a straight space on the line).
    Finish,
    /// Type 7: a pit-lane space.
    Pit,
}

impl NodeKind {
    /// The kind for a type number, if the format defines it.
    pub fn from_type(t: i64) -> Option<NodeKind> {
        Some(match t {
            1 => NodeKind::Straight,
            2 => NodeKind::Curve(2),
            3 => NodeKind::Curve(1),
            4 => NodeKind::Blocked,
            5 => NodeKind::Finish,
            6 => NodeKind::Curve(3),
            7 => NodeKind::Pit,
            _ => return None,
        })
    }

    /// True for spaces of the racing track (straight, curve, finish line).
    pub fn is_racing(self) -> bool {
        matches!(self, NodeKind::Straight | NodeKind::Curve(_) | NodeKind::Finish)
    }
}

/// One node line.
#[derive(Clone, Debug)]
pub struct Node {
    /// The id used by arrows, attributes and grid lines.
    pub id: u32,
    /// Pixel column on the board image.
    pub x: i32,
    /// Pixel row on the board image (grows downwards).
    pub y: i32,
    /// The type.
    pub kind: NodeKind,
    /// Marked as a finish-line node by a trailing `F` (newer files).
    pub finish_flag: bool,
    /// Line in the file.
    pub line: u32,
}

/// The parsed file. Node references are resolved to positions in `nodes`.
#[derive(Clone, Debug, Default)]
pub struct Dat {
    /// Background image named by the header.
    pub image: String,
    /// Info-box corner of the header (0..3 = NE, SE, SW, NW in the Java game).
    pub info_corner: i64,
    /// Optional `rain probability, shortest period` of the header (Java game weather model).
    pub weather_params: Option<(i64, i64)>,
    /// Nodes in file order.
    pub nodes: Vec<Node>,
    /// Arrows as (from, to, line), node positions.
    pub arrows: Vec<(usize, usize, u32)>,
    /// Attributes as (node, value, line).
    pub attributes: Vec<(usize, f64, u32)>,
    /// Grid slots as (node, angle, line) in file order.
    pub grid: Vec<(usize, f64, u32)>,
    /// Whether the lines ended in CRLF.
    pub crlf: bool,
}

const PARTS: [&str; 4] = ["node list", "arrow list", "attribute list", "grid list"];

/// Parses `.dat` text; returns every problem found when the text is malformed.
pub fn parse(text: &str) -> Result<Dat, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut dat = Dat { crlf: text.contains("\r\n"), ..Dat::default() };
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let syntax = |part: &'static str, message: String| TrackProblem::DatSyntax { part, message };

    // Header.
    let header = lines.next().unwrap_or("");
    let fields: Vec<&str> = header.split_whitespace().collect();
    match fields.as_slice() {
        [image, corner, rest @ ..] if rest.is_empty() || rest.len() == 2 => {
            dat.image = image.to_string();
            match corner.parse::<i64>() {
                Ok(c) => dat.info_corner = c,
                Err(_) => diags.push(Diagnostic::at(
                    1,
                    syntax("header", format!("the info-box corner `{corner}` is not a whole number")),
                )),
            }
            if let [rain, period] = rest {
                match (rain.parse::<i64>(), period.parse::<i64>()) {
                    (Ok(r), Ok(p)) => dat.weather_params = Some((r, p)),
                    _ => diags.push(Diagnostic::at(
                        1,
                        syntax("header", format!("`{rain} {period}` is not a rain probability and a shortest period")),
                    )),
                }
            }
        }
        _ => diags.push(Diagnostic::at(
            1,
            syntax(
                "header",
                format!(
                    "expected `IMAGE CORNER` or `IMAGE CORNER RAIN PERIOD`, found {} field(s): `{header}`",
                    fields.len()
                ),
            ),
        )),
    }

    // The four parts, separated by blank lines. References are resolved after the node list.
    let mut part = 0usize;
    let mut raw_refs: Vec<(usize, Vec<String>, u32)> = Vec::new();
    for (i, l) in lines.enumerate() {
        let line = i as u32 + 2;
        let fields: Vec<&str> = l.split_whitespace().collect();
        if fields.is_empty() {
            part += 1;
            continue;
        }
        if part >= PARTS.len() {
            diags.push(Diagnostic::at(
                line,
                syntax("file", "text after the grid list (a .dat file has four parts after its header)".into()),
            ));
            continue;
        }
        if part == 0 {
            match parse_node(&fields, line) {
                Ok(n) => dat.nodes.push(n),
                Err(p) => diags.push(Diagnostic::at(line, p)),
            }
        } else {
            raw_refs.push((part, fields.iter().map(|s| s.to_string()).collect(), line));
        }
    }

    let mut index: HashMap<u32, usize> = HashMap::new();
    for (k, n) in dat.nodes.iter().enumerate() {
        if index.insert(n.id, k).is_some() {
            diags.push(Diagnostic::at(n.line, TrackProblem::DuplicateNode(n.id)));
        }
    }
    for (part, fields, line) in raw_refs {
        let name = PARTS[part];
        let [a, b] = fields.as_slice() else {
            let want = ["", "`FROM TO`", "`NODE VALUE`", "`NODE ANGLE`"][part];
            diags.push(Diagnostic::at(
                line,
                syntax(name, format!("expected {want}, found {} field(s): `{}`", fields.len(), fields.join(" "))),
            ));
            continue;
        };
        let node = |s: &str, diags: &mut Vec<Diagnostic>| -> Option<usize> {
            match s.parse::<u32>() {
                Ok(id) => match index.get(&id) {
                    Some(&k) => Some(k),
                    None => {
                        diags.push(Diagnostic::at(line, TrackProblem::UnknownNode { part: name, node: id }));
                        None
                    }
                },
                Err(_) => {
                    diags.push(Diagnostic::at(line, syntax(name, format!("`{s}` is not a node id"))));
                    None
                }
            }
        };
        if part == 1 {
            let (from, to) = (node(a, &mut diags), node(b, &mut diags));
            if let (Some(from), Some(to)) = (from, to) {
                if from == to {
                    diags.push(Diagnostic::at(line, syntax(name, format!("the arrow {a} -> {b} leads to itself"))));
                } else {
                    dat.arrows.push((from, to, line));
                }
            }
        } else {
            let n = node(a, &mut diags);
            let value = match b.parse::<f64>() {
                Ok(v) if v.is_finite() => Some(v),
                _ => {
                    diags.push(Diagnostic::at(line, syntax(name, format!("`{b}` is not a number"))));
                    None
                }
            };
            if let (Some(n), Some(v)) = (n, value) {
                if part == 2 {
                    dat.attributes.push((n, v, line));
                } else {
                    dat.grid.push((n, v, line));
                }
            }
        }
    }
    diags.sort_by_key(|d| d.line.unwrap_or(0));
    if dat.nodes.is_empty()
        && let Some(first) = diags.first()
    {
        // Not one node: the file is no .dat track at all, and one line says so, not one per line.
        let why = first.problem.to_string();
        let why =
            if why.chars().count() > 120 { format!("{}...", why.chars().take(120).collect::<String>()) } else { why };
        return Err(vec![Diagnostic {
            line: None,
            problem: TrackProblem::NotDat { line: first.line.unwrap_or(1), why },
        }]);
    }
    if dat.nodes.is_empty() && diags.is_empty() {
        diags.push(Diagnostic::at(2, syntax("node list", "the file defines no node".into())));
    }
    diags.sort_by_key(|d| d.line.unwrap_or(0));
    if diags.is_empty() { Ok(dat) } else { Err(diags) }
}

fn parse_node(fields: &[&str], line: u32) -> Result<Node, TrackProblem> {
    let bad = |message: String| TrackProblem::DatSyntax { part: "node list", message };
    let (id, x, y, t, flag) = match fields {
        [id, x, y, t] => (id, x, y, t, None),
        [id, x, y, t, f] => (id, x, y, t, Some(*f)),
        _ => {
            return Err(bad(format!(
                "expected `ID X Y TYPE` (optionally followed by `F`), found {} field(s): `{}`",
                fields.len(),
                fields.join(" ")
            )));
        }
    };
    let id = id.parse::<u32>().map_err(|_| bad(format!("`{id}` is not a node id")))?;
    let x = x.parse::<i32>().map_err(|_| bad(format!("node {id}: `{x}` is not a pixel column")))?;
    let y = y.parse::<i32>().map_err(|_| bad(format!("node {id}: `{y}` is not a pixel row")))?;
    let t = t.parse::<i64>().map_err(|_| bad(format!("node {id}: `{t}` is not a node type")))?;
    let kind = NodeKind::from_type(t).ok_or(TrackProblem::UnknownNodeType { node: id, kind: t })?;
    let finish_flag = match flag {
        None => false,
        Some("F") => true,
        Some(other) => return Err(bad(format!("node {id}: unexpected fifth field `{other}` (only `F` is known)"))),
    };
    Ok(Node { id, x, y, kind, finish_flag, line })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_parts_and_line_numbers() {
        let text =
            "img.png 1\r\n0 10 20 5\r\n1 30 20 1 F\r\n2 50 20 3\r\n\r\n0 1\r\n1 2\r\n\r\n2 0.5\r\n\r\n1 270.0\r\n";
        let d = parse(text).unwrap();
        assert!(d.crlf);
        assert_eq!(d.image, "img.png");
        assert_eq!(d.info_corner, 1);
        assert_eq!(d.nodes.len(), 3);
        assert_eq!(d.nodes[0].kind, NodeKind::Finish);
        assert!(d.nodes[1].finish_flag);
        assert_eq!(d.nodes[2].kind, NodeKind::Curve(1));
        assert_eq!(d.nodes[2].line, 4);
        assert_eq!(d.arrows, vec![(0, 1, 6), (1, 2, 7)]);
        assert_eq!(d.attributes, vec![(2, 0.5, 9)]);
        assert_eq!(d.grid, vec![(1, 270.0, 11)]);
    }

    #[test]
    fn header_weather_fields() {
        let d = parse("a.jpg 3 35 12\n0 0 0 1\n").unwrap();
        assert_eq!(d.weather_params, Some((35, 12)));
        assert!(!d.crlf);
    }

    #[test]
    fn reports_every_problem_with_its_line() {
        let text = "img.png x\n0 1 2 1\n0 1 2 1\n1 a 2 1\n2 1 2 9\n3 1 2 1 G\n\n0 7\n0\n\n0 zz\n";
        let diags = parse(text).unwrap_err();
        let lines: Vec<Option<u32>> = diags.iter().map(|d| d.line).collect();
        assert!(lines.contains(&Some(1)), "header corner: {diags:?}");
        assert!(diags.iter().any(|d| d.line == Some(3) && d.problem == TrackProblem::DuplicateNode(0)));
        assert!(diags.iter().any(|d| d.line == Some(4) && matches!(d.problem, TrackProblem::DatSyntax { .. })));
        assert!(
            diags.iter().any(|d| d.line == Some(5) && d.problem == TrackProblem::UnknownNodeType { node: 2, kind: 9 })
        );
        assert!(diags.iter().any(|d| d.line == Some(6)));
        assert!(
            diags
                .iter()
                .any(|d| d.line == Some(8) && d.problem == TrackProblem::UnknownNode { part: "arrow list", node: 7 })
        );
        assert!(diags.iter().any(|d| d.line == Some(9)));
        assert!(diags.iter().any(|d| d.line == Some(11)));
    }

    /// A file with no node at all is no `.dat` track: one problem says so, naming the first
    /// line found wrong, instead of one per line (issue 48).
    #[test]
    fn a_file_without_a_node_is_refused_in_one_problem() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nbin:x:2:2\n";
        let diags = parse(passwd).unwrap_err();
        assert_eq!(diags.len(), 1, "{diags:?}");
        let TrackProblem::NotDat { line, why } = &diags[0].problem else { panic!("{diags:?}") };
        assert_eq!(*line, 1);
        assert!(why.contains("header") && why.contains("root:x:0:0"), "{why}");
        let e = crate::track::TrackError { file: Some("/etc/passwd".into()), diagnostics: diags };
        assert!(e.to_string().starts_with("/etc/passwd is not a Formula Dé .dat track: line 1: header: "), "{e}");
        assert!(!e.to_string().contains('\n'), "{e}");
        // A good header and no node: the first node line is the one named.
        let diags = parse("img.png 1\nhello world\nmore words here\n").unwrap_err();
        assert!(matches!(diags[..], [Diagnostic { problem: TrackProblem::NotDat { line: 2, .. }, .. }]), "{diags:?}");
    }

    #[test]
    fn rejects_a_fifth_part_and_self_arrows() {
        let diags = parse("i 0\n0 0 0 1\n\n0 0\n\n\n\n5 5\n").unwrap_err();
        assert_eq!(diags.len(), 2, "{diags:?}");
        assert_eq!(diags[0].line, Some(4));
        assert_eq!(diags[1].line, Some(8));
    }
}
