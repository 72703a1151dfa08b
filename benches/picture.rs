//! The mails' board picture (`render::picture::mail_png`): the daemon draws one for most reports,
//! and it was the largest part of its user CPU a message (issue 17, docs/performance.md,
//! "Twentieth pass"). Monaco around corner 5, four cars, a sticker and six lettered
//! destinations, as in `tests/picture.rs`; the SVG alone, then the PNG (the marks drawn on the
//! ground's kept tiles, and the encoding), then the PNG of a process's first picture (the
//! tiles it covers drawn first).
//! Prints the PNG's size, so that a faster picture that is larger is visible.
//! `cargo bench --features bench --bench picture`.

use criterion::{Criterion, criterion_group, criterion_main};
use steward::render::picture::{CarMark, Marks, forget_grounds, mail_png, mail_svg};
use steward::track::{SpaceIdx, Track};

/// The space `steps` arrows ahead of `from`, always by the arrow `pick` chooses among a space's.
fn walk(t: &Track, from: SpaceIdx, steps: usize, pick: fn(&[SpaceIdx]) -> SpaceIdx) -> SpaceIdx {
    (0..steps).fold(from, |s, _| pick(t.next(s)))
}

/// The mover, two cars near it, a sticker, and destinations 7 to 9 spaces ahead by the innermost
/// and the outermost arrows, lettered A to F.
fn scene(t: &Track, mover: SpaceIdx) -> Marks {
    let first: fn(&[SpaceIdx]) -> SpaceIdx = |n| n[0];
    let last: fn(&[SpaceIdx]) -> SpaceIdx = |n| n[n.len() - 1];
    let ends = (7..=9).flat_map(|k| [walk(t, mover, k, first), walk(t, mover, k, last)]);
    let options = ends.enumerate().map(|(i, s)| (((b'A' + i as u8) as char).to_string(), s)).collect();
    let cars = vec![
        CarMark { number: 7, space: mover, running: true },
        CarMark { number: 3, space: walk(t, mover, 3, first), running: true },
        CarMark { number: 5, space: walk(t, mover, 3, last), running: false },
    ];
    Marks { cars, dangerous: vec![walk(t, mover, 5, first)], options }
}

fn bench(c: &mut Criterion) {
    let t = steward::track::load::resolve("monaco").expect("shipped track");
    let mover = t.find("c5.m.1").expect("monaco has corner 5");
    let marks = scene(&t, mover);
    println!("mail picture: {} bytes of PNG", mail_png(&t, &marks, mover).len());
    let mut g = c.benchmark_group("picture");
    g.bench_function("mail_svg monaco c5", |b| b.iter(|| mail_svg(&t, &marks, mover)));
    g.bench_function("mail_png monaco c5", |b| b.iter(|| mail_png(&t, &marks, mover)));
    // The first picture of a process (`serve --once` from cron): the ground's tiles it covers
    // drawn first.
    g.bench_function("mail_png monaco c5, no tile kept", |b| {
        b.iter(|| {
            forget_grounds();
            mail_png(&t, &marks, mover)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
