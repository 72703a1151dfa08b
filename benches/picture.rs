//! The mails' board picture (`render::picture::mail_png`): the daemon draws one for most reports,
//! and it was the largest part of its user CPU a message (issue 17, docs/performance.md,
//! "Twentieth pass"). Monaco around corner 5, four cars, a sticker and six lettered
//! destinations, as in `tests/picture.rs`; the SVG alone, then the PNG (SVG, raster, encoding).
//! Prints the PNG's size, so that a faster picture that is larger is visible.
//! `cargo bench --features bench --bench picture`.

use criterion::{Criterion, criterion_group, criterion_main};
use steward::render::picture::{CarMark, Marks, mail_png, mail_svg};
use steward::track::{SpaceIdx, Track};

/// The spaces `steps` arrows ahead of `from`.
fn ahead(t: &Track, from: SpaceIdx, steps: usize) -> Vec<SpaceIdx> {
    let mut now = vec![from];
    for _ in 0..steps {
        let mut next: Vec<SpaceIdx> = now.iter().flat_map(|&s| t.next(s).iter().copied()).collect();
        next.sort();
        next.dedup();
        now = next;
    }
    now
}

fn scene(t: &Track, mover: SpaceIdx) -> Marks {
    let ends: Vec<SpaceIdx> = (7..=9).flat_map(|k| ahead(t, mover, k).into_iter().take(2)).collect();
    let options = ends.iter().enumerate().map(|(i, &s)| (((b'A' + i as u8) as char).to_string(), s)).collect();
    let near = ahead(t, mover, 3);
    let cars = vec![
        CarMark { number: 7, space: mover, running: true },
        CarMark { number: 3, space: near[0], running: true },
        CarMark { number: 5, space: *near.last().expect("a space ahead"), running: false },
    ];
    Marks { cars, dangerous: vec![ahead(t, mover, 5)[0]], options }
}

fn bench(c: &mut Criterion) {
    let t = steward::track::load::resolve("monaco").expect("shipped track");
    let mover = t.find("c5.m.1").expect("monaco has corner 5");
    let marks = scene(&t, mover);
    println!("mail picture: {} bytes of PNG", mail_png(&t, &marks, mover).len());
    let mut g = c.benchmark_group("picture");
    g.bench_function("mail_svg monaco c5", |b| b.iter(|| mail_svg(&t, &marks, mover)));
    g.bench_function("mail_png monaco c5", |b| b.iter(|| mail_png(&t, &marks, mover)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
