//! Tidy checks that keep the architecture invariants of docs/ARCHITECTURE.md true.

use std::path::Path;

use crate::support::root;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_engine_is_pure() {
    let mut files = Vec::new();
    rust_files(&root().join("src/engine"), &mut files);
    assert!(files.len() >= 8, "engine files found: {files:?}");
    let forbidden =
        ["std::fs", "std::net", "SystemTime", "Instant::now", "thread_rng", "rand::random", "OsRng", "std::env"];
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for bad in forbidden {
                if line.contains(bad) {
                    hits.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(hits.is_empty(), "the engine must not do I/O, read clocks or draw randomness:\n{}", hits.join("\n"));
}

#[test]
fn the_engine_depends_only_on_the_track_model() {
    let mut files = Vec::new();
    rust_files(&root().join("src/engine"), &mut files);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for bad in ["crate::render", "crate::sim", "crate::scenario", "crate::cli", "crate::dice::"] {
            assert!(!text.contains(bad), "{} uses {bad}", f.display());
        }
    }
}

#[test]
fn every_module_says_why_it_exists() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.starts_with("//!"), "{} has no module doc (a `//!` first line)", f.display());
    }
}

/// The top-level modules from the bottom up: a module may use only modules of lower layers (and
/// its own). Those of one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    &["words", "track"],
    &["engine"],
    &["render", "dice"],
    &["store"],
    &["league", "sim", "scenario"],
    &["site", "orders"],
    &["mail"],
    &["judge"],
    &["demo"],
    &["cli"],
];

/// Circles between the modules of one folder that are known and kept, with why: the folder and
/// the modules of the circle, sorted.
const KNOWN_CIRCLES: &[(&str, &[&str], &str)] = &[(
    "engine",
    &[
        "backmarkers",
        "dice",
        "events",
        "finish",
        "gearbox",
        "inertia",
        "options",
        "order",
        "pits",
        "slipstream",
        "state",
        "tyres",
        "weather",
    ],
    "the race's state holds each phase's own types (a car's tyres, its pit stage, the weather, \
     the pending slipstream) and each phase reads and advances that state: splitting them would \
     put the phases' types away from their rules",
)];

/// A source file's module path (`src/a/b.rs` and `src/a/b/mod.rs` are `a::b`).
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root().join("src")).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// A file's text without its comments and without the items under `#[cfg(test)]` (a one-line
/// item, or a block up to its closing brace).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        if t.starts_with("#[cfg(test)]") {
            let mut depth = 0i32;
            for next in lines.by_ref() {
                if next.trim_start().starts_with("//") {
                    continue;
                }
                depth += next.matches('{').count() as i32 - next.matches('}').count() as i32;
                if depth <= 0 && (next.trim_end().ends_with(';') || next.trim_end().ends_with('}')) {
                    break;
                }
            }
            continue;
        }
        let code = match t.find(" //") {
            Some(_) if line.contains('"') => line,
            Some(_) => &line[..line.find(" //").unwrap()],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Every path a file's code names from `crate::`, `super::` or `self::`, resolved to a path from
/// the crate root; `use` groups (`a::{b, c::d}`) are expanded.
fn paths_named(module: &[String], code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let ident_at = |i: usize| -> Option<(String, usize)> {
        let mut j = i;
        while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
            j += 1;
        }
        (j > i).then(|| (chars[i..j].iter().collect(), j))
    };
    // Reads `::x::y` or `::{..}` after a prefix; pushes every full path.
    fn tail(
        chars: &[char],
        mut i: usize,
        mut prefix: Vec<String>,
        ident_at: &dyn Fn(usize) -> Option<(String, usize)>,
        found: &mut Vec<Vec<String>>,
    ) -> usize {
        loop {
            if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
                i += 2;
                if chars.get(i) == Some(&'{') {
                    i += 1;
                    loop {
                        while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                            i += 1;
                        }
                        match chars.get(i) {
                            Some('}') | None => return i + 1,
                            _ => {}
                        }
                        match ident_at(i) {
                            Some((id, j)) => {
                                let mut p = prefix.clone();
                                if id != "self" {
                                    p.push(id);
                                }
                                i = tail(chars, j, p, ident_at, found);
                            }
                            None => i += 1,
                        }
                    }
                }
                match ident_at(i) {
                    Some((id, j)) => {
                        prefix.push(id);
                        i = j;
                    }
                    None => break,
                }
            } else {
                break;
            }
        }
        found.push(prefix);
        i
    }
    // `super` of module `a::b` (`a/b.rs` or `a/b/mod.rs`) is `a`.
    let parent = |n: usize| -> Vec<String> { module[..module.len().saturating_sub(n)].to_vec() };
    let mut i = 0;
    while i < chars.len() {
        let boundary = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_' || chars[i - 1] == ':');
        if !boundary {
            i += 1;
            continue;
        }
        let Some((word, mut j)) = ident_at(i) else {
            i += 1;
            continue;
        };
        let start = match word.as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => {
                let mut n = 1;
                while chars.get(j) == Some(&':') && chars[j..].iter().collect::<String>().starts_with("::super") {
                    n += 1;
                    j += 7;
                }
                parent(n)
            }
            _ => {
                i = j;
                continue;
            }
        };
        i = tail(&chars, j, start, &ident_at, &mut found);
    }
    found
}

/// The modules each module (a folder's child) uses among its siblings, for every folder of
/// `src`: `(folder, from, to)`.
fn module_edges() -> Vec<(Vec<String>, String, String)> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let modules: std::collections::BTreeSet<Vec<String>> = files.iter().map(|f| module_path(f)).collect();
    let mut edges = std::collections::BTreeSet::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name == "lib.rs" || name == "main.rs" || name == "tests.rs" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let module = module_path(f);
        for to in paths_named(&module, &code_of(&text)) {
            let common = module.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common >= module.len() || common >= to.len() {
                continue;
            }
            let folder = module[..common].to_vec();
            let mut child = folder.clone();
            child.push(to[common].clone());
            if modules.contains(&child) {
                edges.insert((folder, module[common].clone(), to[common].clone()));
            }
        }
    }
    edges.into_iter().collect()
}

#[test]
fn the_top_modules_use_only_lower_layers() {
    let layer_of = |m: &str| LAYERS.iter().position(|l| l.contains(&m));
    let edges = module_edges();
    let top: Vec<_> = edges.iter().filter(|(f, _, _)| f.is_empty()).collect();
    assert!(top.len() >= 20, "the top modules' uses found: {top:?}");
    let mut wrong = Vec::new();
    for (_, from, to) in top {
        match (layer_of(from), layer_of(to)) {
            (Some(a), Some(b)) if b < a => {}
            (None, _) => wrong.push(format!("{from} is in no layer of tests/tidy.rs")),
            (_, None) => wrong.push(format!("{to} is in no layer of tests/tidy.rs")),
            _ => wrong.push(format!("{from} uses {to}, which is not below it")),
        }
    }
    assert!(wrong.is_empty(), "docs/ARCHITECTURE.md's layers:\n{}", wrong.join("\n"));
}

/// Strongly connected parts of a graph of more than one node (Tarjan's algorithm).
fn circles(nodes: &[String], edges: &[(usize, usize)]) -> Vec<Vec<String>> {
    struct T<'a> {
        adj: Vec<Vec<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<String>>,
        nodes: &'a [String],
    }
    fn visit(t: &mut T<'_>, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for w in t.adj[v].clone() {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut part = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                part.push(t.nodes[w].clone());
                if w == v {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                t.out.push(part);
            }
        }
    }
    let mut adj = vec![Vec::new(); nodes.len()];
    for &(a, b) in edges {
        adj[a].push(b);
    }
    let n = nodes.len();
    let mut t = T {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: vec![],
        next: 0,
        out: vec![],
        nodes,
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn the_modules_of_a_folder_make_no_circle() {
    let edges = module_edges();
    let folders: std::collections::BTreeSet<&Vec<String>> = edges.iter().map(|(f, _, _)| f).collect();
    assert!(folders.len() >= 8, "folders with uses between their modules: {folders:?}");
    let mut found = Vec::new();
    for folder in folders {
        let mine: Vec<_> = edges.iter().filter(|(f, _, _)| f == folder).collect();
        let mut nodes: Vec<String> = mine.iter().flat_map(|(_, a, b)| [a.clone(), b.clone()]).collect();
        nodes.sort();
        nodes.dedup();
        let at = |m: &str| nodes.iter().position(|n| n == m).unwrap();
        let pairs: Vec<(usize, usize)> = mine.iter().map(|(_, a, b)| (at(a), at(b))).collect();
        for part in circles(&nodes, &pairs) {
            let name = folder.join("::");
            let known = KNOWN_CIRCLES.iter().any(|(f, ms, _)| *f == name && ms.iter().eq(part.iter()));
            if !known {
                found.push(format!("{}: {}", if name.is_empty() { "src" } else { &name }, part.join(" ⇄ ")));
            }
        }
    }
    assert!(found.is_empty(), "modules that use each other in a circle (see tests/tidy.rs):\n{}", found.join("\n"));
}

#[test]
fn the_circle_check_sees_a_circle() {
    let nodes = ["a", "b", "c", "d"].map(String::from);
    assert_eq!(circles(&nodes, &[(0, 1), (1, 2), (2, 0), (2, 3)]), vec![vec!["a", "b", "c"]]);
    assert!(circles(&nodes, &[(0, 1), (1, 2), (0, 2)]).is_empty());
    let m = vec!["store".to_string(), "replay".to_string(), "apply".to_string()];
    let code = "use super::super::{game::Game, hash::{self, x}};\nuse crate::engine::{Rulebook, state::CarId};\n";
    let named = paths_named(&m, &code_of(code));
    for want in [vec!["store", "game", "Game"], vec!["store", "hash"], vec!["engine", "state", "CarId"]] {
        assert!(named.iter().any(|p| p.iter().eq(want.iter())), "{want:?} not in {named:?}");
    }
}

/// Lines a source file may have unless its module doc says why it is longer (a line starting
/// `//! Long because`).
const MOST_LINES: usize = 800;

#[test]
fn no_source_file_is_too_long_to_read() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut long = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let n = text.lines().count();
        let says_why = text.lines().take_while(|l| l.starts_with("//!")).any(|l| l.starts_with("//! Long because"));
        if n > MOST_LINES && !says_why {
            long.push(format!("{}: {n} lines", f.display()));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MOST_LINES} lines (split them, or say why in the module doc):\n{}",
        long.join("\n")
    );
}
