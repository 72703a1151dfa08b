//! The plural of the words the turn files write after a count as `(s)` (`1 brake point(s)`):
//! the record keeps its words (a replay compares them byte for byte), the mails read right.

/// `text` with each `(s)` the store writes after a count made singular or plural by that count:
/// `1 brake point(s)` reads `1 brake point`, `2 stop(s)` reads `2 stops`. The turn files keep
/// their words (a replay compares them byte for byte); the mails read right.
pub fn plurals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("(s)") {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let after_word = head.chars().next_back().is_some_and(|c| c.is_ascii_alphabetic());
        match after_word.then(|| count_before(&out)).flatten() {
            Some(1) => {}
            Some(_) => out.push('s'),
            None => out.push_str("(s)"),
        }
        rest = &tail[3..];
    }
    out.push_str(rest);
    out
}

/// The count a word at the end of `text` goes with: a number among the three words before it,
/// on its line and in its clause.
fn count_before(text: &str) -> Option<u64> {
    let line = text.rsplit('\n').next()?;
    for w in line.split_whitespace().rev().skip(1).take(3) {
        let w = w.trim_start_matches('(');
        if let Ok(n) = w.parse::<u64>() {
            return Some(n);
        }
        if w.ends_with([',', ';', ':', ')']) {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_follow_their_count() {
        assert_eq!(plurals("brake 1 (1 brake point(s))"), "brake 1 (1 brake point)");
        assert_eq!(plurals("brake 2 (2 brake point(s))"), "brake 2 (2 brake points)");
        assert_eq!(plurals("car 3 has 1 of 2 stop(s) in corner 8"), "car 3 has 1 of 2 stops in corner 8");
        assert_eq!(plurals("blocked 1 short (1 brake, 0 tyre point(s))"), "blocked 1 short (1 brake, 0 tyre points)");
        assert_eq!(plurals("moves 1 space(s) to s0.m.1\n(3 option(s))"), "moves 1 space to s0.m.1\n(3 options)");
        assert_eq!(plurals("point(s) left"), "point(s) left");
    }
}
