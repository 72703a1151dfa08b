//! The mails' picture: the stretch of track around the mover and the destinations offered, at
//! one of a few fixed zooms, rasterised to a PNG on the track's ground drawn once in tiles
//! ([`backdrop`]). Same input, same bytes.

use super::super::layout::Layout;
use super::super::{backdrop, raster};
use super::{Ink, MAIL_SIZE, Marks, Placement, View, ground, marks_on};
use crate::track::{SpaceIdx, Track};

/// The mails' picture's zooms: pixels between neighbouring spaces, largest first. A few fixed
/// zooms, so that a track's ground drawn at one serves every picture drawn at it.
pub const ZOOMS: [f64; 5] = [28.0, 24.0, 20.0, 16.0, 12.0];

/// The view of a mail's picture: the stretch of track around `focus` (the mover) and the
/// destinations offered, [`MAIL_SIZE`].
fn mail_view(l: &Layout, marks: &Marks, focus: SpaceIdx) -> (View, usize, (i64, i64)) {
    let (w, h) = (f64::from(MAIL_SIZE.0), f64::from(MAIL_SIZE.1));
    let mut spaces = vec![focus];
    spaces.extend(marks.options.iter().map(|(_, s)| *s));
    View::around(l, &spaces, w, h)
}

fn svg_open(width: f64, height: f64) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}">"#
    )
}

/// Where the mails' picture puts its option labels and cars (the overlap test's geometry).
pub fn mail_placement(t: &Track, marks: &Marks, focus: SpaceIdx) -> (Placement, Vec<(f64, f64)>) {
    let l = Layout::kept(t);
    let (v, _, _) = mail_view(&l, marks, focus);
    let at = (0..t.spaces.len()).map(|i| v.position(SpaceIdx(i as u16))).collect();
    (super::labels::place(&v, marks, &super::flag_boxes(t, &v)), at)
}

/// The mails' picture as SVG: what [`mail_png`] draws, as one document (the ground drawn for
/// the view alone), every letter as strokes (no font).
pub fn mail_svg(t: &Track, marks: &Marks, focus: SpaceIdx) -> String {
    let l = Layout::kept(t);
    let (v, _, _) = mail_view(&l, marks, focus);
    let mut o = svg_open(v.width, v.height);
    o.push_str(&ground(t, &v, Ink::Strokes));
    o.push_str(&marks_on(t, &v, marks, Some(focus), Ink::Strokes));
    o.push_str("</svg>");
    o
}

/// The mails' picture as PNG bytes: the cut-out of the track's ground at the picture's zoom
/// ([`backdrop`]) with the cars, stickers and lettered destinations drawn on it. Same input,
/// same bytes.
pub fn mail_png(t: &Track, marks: &Marks, focus: SpaceIdx) -> Vec<u8> {
    let l = Layout::kept(t);
    mail_png_on(t, &l, marks, focus, |zoom, tile| {
        backdrop::get((t.uid(), zoom, tile), || ground_tile(t, &l, zoom, tile))
    })
}

/// [`mail_png`] on the ground tiles `tile` gives for a zoom and a place (the kept ones, or in a
/// test fresh ones).
fn mail_png_on(
    t: &Track,
    l: &Layout,
    marks: &Marks,
    focus: SpaceIdx,
    tile: impl Fn(usize, (i64, i64)) -> std::sync::Arc<resvg::tiny_skia::Pixmap>,
) -> Vec<u8> {
    let (v, zoom, shift) = mail_view(l, marks, focus);
    let at = ground_shift(t, l, zoom);
    let mut pixmap = backdrop::cut((at.0 - shift.0, at.1 - shift.1), MAIL_SIZE, |place| tile(zoom, place));
    let mut o = svg_open(v.width, v.height);
    o.push_str(&marks_on(t, &v, marks, Some(focus), Ink::Strokes));
    o.push_str("</svg>");
    raster::draw(&o, &mut pixmap, (0, 0));
    raster::encode(pixmap)
}

/// The whole track as a PNG of `width` × `height` pixels, every letter as strokes: what
/// `steward track picture` writes, to look at a track (docs/tracks.md).
pub fn whole_png(t: &Track, width: u32, height: u32) -> Vec<u8> {
    let v = View::whole(t, f64::from(width), f64::from(height));
    let mut o = svg_open(v.width, v.height);
    o.push_str(&ground(t, &v, Ink::Strokes));
    o.push_str("</svg>");
    let Some(mut pixmap) = resvg::tiny_skia::Pixmap::new(width.max(1), height.max(1)) else { return Vec::new() };
    raster::draw(&o, &mut pixmap, (0, 0));
    raster::encode(pixmap)
}

/// Lets go of the ground tiles kept for the mails' pictures ([`backdrop`]): the next picture
/// draws the tiles it covers. Nothing else changes; the benchmarks time such a picture.
pub fn forget_grounds() {
    backdrop::forget();
}

/// Where the ground of `t` at zoom `zoom` (an index in [`ZOOMS`]) puts the layout's origin, in
/// whole pixels: the ground's pixels are counted from a corner beyond the track's top left
/// space by the room its flags take (they stand beside the track), so that its tiles number
/// from (0, 0) about there. Any origin would do (tiles of negative places are drawn alike);
/// this one keeps the places small and lets a test draw the whole ground from tile (0, 0).
fn ground_shift(t: &Track, l: &Layout, zoom: usize) -> (i64, i64) {
    let scale = ZOOMS[zoom] / l.spacing;
    let margin = (f64::from(t.lanes) * 0.5 + 4.5) * ZOOMS[zoom];
    let (x0, y0, _, _) = l.bounds();
    ((margin - x0 * scale).floor() as i64, (margin - y0 * scale).floor() as i64)
}

/// Tile `tile` of the ground of `t` at zoom `zoom`: the [`backdrop::TILE`]-pixel square at
/// `tile` × TILE of the ground, drawn from the same SVG coordinates as the whole ground would
/// be (only what reaches the tile is written, and the drawing is moved by whole pixels), so
/// that the tiles side by side are the whole ground drawn at once (`tiles_are_the_whole_ground`).
fn ground_tile(t: &Track, l: &Layout, zoom: usize, tile: (i64, i64)) -> resvg::tiny_skia::Pixmap {
    let side = f64::from(backdrop::TILE);
    let mut v = View::shifted(l, ZOOMS[zoom] / l.spacing, ground_shift(t, l, zoom), side, side);
    v.origin = (tile.0 as f64 * side, tile.1 as f64 * side);
    // A flag stands up to about 2 units from where it is placed, the finish line 2.5 from its
    // ends; 3 units let every part of them that reaches the tile be drawn there (a space is
    // drawn within a unit of it, as in any picture).
    v.reach = 3.0;
    let mut o = svg_open(side, side);
    o.push_str(&ground(t, &v, Ink::Strokes));
    o.push_str("</svg>");
    let mut pixmap = resvg::tiny_skia::Pixmap::new(backdrop::TILE, backdrop::TILE).expect("a non-empty tile");
    raster::draw(&o, &mut pixmap, (tile.0 * i64::from(backdrop::TILE), tile.1 * i64::from(backdrop::TILE)));
    pixmap
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::render::picture::{CarMark, GRASS};

    fn tracks() -> Vec<Track> {
        let egg = crate::track::synthetic::Synthetic { egg: true, mark_line: true, ..Default::default() }.dat(60);
        let mut v: Vec<Track> = ["monaco", "sprint", "oval"]
            .iter()
            .map(|n| crate::track::load::resolve(n).expect("shipped track"))
            .collect();
        v.push(crate::track::import::import_str(&egg, "egg").expect("the synthetic track imports").track);
        v
    }

    /// A mover on `at` and destinations from 4 to `reach` spaces ahead, every third space (the
    /// farther, the smaller the zoom).
    fn scene(t: &Track, at: SpaceIdx, reach: usize) -> Marks {
        let mut ends = vec![at];
        for _ in 0..reach {
            let s = *ends.last().unwrap();
            ends.push(*t.next(s).last().unwrap());
        }
        let options = ends[4..]
            .iter()
            .step_by(3)
            .enumerate()
            .map(|(i, &s)| (((b'A' + i as u8) as char).to_string(), s))
            .collect();
        Marks { cars: vec![CarMark { number: 4, space: at, running: true }], dangerous: vec![ends[2]], options }
    }

    fn rgb(png: &[u8]) -> Vec<u8> {
        let mut r = png::Decoder::new(std::io::Cursor::new(png)).read_info().expect("a PNG");
        let mut buf = vec![0; r.output_buffer_size().expect("a size")];
        let info = r.next_frame(&mut buf).expect("a frame");
        assert_eq!(info.color_type, png::ColorType::Rgb, "the picture is opaque");
        buf.truncate(info.buffer_size());
        buf
    }

    /// The whole ground of `t` at `zoom` drawn at once, every space and flag written: what the
    /// tiles side by side must be. `cols` × `rows` tiles from tile (0, 0).
    fn whole_ground(t: &Track, l: &Layout, zoom: usize, cols: u32, rows: u32) -> resvg::tiny_skia::Pixmap {
        let (w, h) = (cols * backdrop::TILE, rows * backdrop::TILE);
        let mut v = View::shifted(l, ZOOMS[zoom] / l.spacing, ground_shift(t, l, zoom), f64::from(w), f64::from(h));
        v.reach = f64::INFINITY;
        let svg = format!("{}{}</svg>", svg_open(v.width, v.height), ground(t, &v, Ink::Strokes));
        let mut p = resvg::tiny_skia::Pixmap::new(w, h).unwrap();
        raster::draw(&svg, &mut p, (0, 0));
        p
    }

    /// Issue 17: the tiles of a ground, drawn each with only what reaches it and moved by whole
    /// pixels, are the whole ground drawn at once but for a few anti-aliased edges, at every
    /// zoom; and the ground holds the whole track (nothing drawn on its edge: tile (0, 0)
    /// starts before it).
    #[test]
    fn tiles_are_the_whole_ground() {
        for t in tracks() {
            let l = Layout::of(&t);
            for (zoom, unit) in ZOOMS.iter().enumerate() {
                let shift = ground_shift(&t, &l, zoom);
                let (_, _, x1, y1) = l.bounds();
                let scale = unit / l.spacing;
                let side = f64::from(backdrop::TILE);
                let far = |v: f64, s: i64| ((v * scale + s as f64 + 5.0 * unit) / side).ceil() as u32;
                let (cols, rows) = (far(x1, shift.0), far(y1, shift.1));
                let whole = whole_ground(&t, &l, zoom, cols, rows);
                let (w, h) = (whole.width(), whole.height());
                let tiled = backdrop::cut((0, 0), (w, h), |tile| Arc::new(ground_tile(&t, &l, zoom, tile)));
                let differ =
                    whole.data().chunks_exact(4).zip(tiled.data().chunks_exact(4)).filter(|(a, b)| a != b).count();
                // Single edge pixels anti-aliased otherwise where a tile cuts an outline, and a
                // few more (measured: at most 0.12 % of the pixels, half on a tile's edge).
                assert!(
                    differ * 300 < (w * h) as usize,
                    "{} at zoom {unit}: {differ} pixels of {w}x{h} differ",
                    t.name
                );
                let grass = |x: u32, y: u32| {
                    let p = whole.pixel(x, y).expect("inside");
                    (p.red(), p.green(), p.blue()) == GRASS
                };
                let edge = (0..w).flat_map(|x| [(x, 0), (x, h - 1)]).chain((0..h).flat_map(|y| [(0, y), (w - 1, y)]));
                for (x, y) in edge {
                    assert!(
                        grass(x, y),
                        "{} at zoom {unit}: something is drawn at ({x}, {y}) on the edge of the ground",
                        t.name
                    );
                }
            }
        }
    }

    /// Issue 17: the mails' picture is its track's ground cut out, with the marks drawn on it.
    /// The ground kept from an earlier picture gives the same bytes as one drawn afresh, and
    /// the picture shows what the same view drawn as one SVG shows (the same pixels but for a
    /// few anti-aliased edges, and flags cut by the view's edge that the one SVG leaves out).
    #[test]
    fn a_picture_is_its_ground_cut_out_with_the_marks_on_it() {
        let mut zooms = std::collections::BTreeSet::new();
        for t in tracks() {
            let l = Layout::of(&t);
            for (i, reach) in [(0, 6), (t.spaces.len() / 3, 24), (t.spaces.len() / 2, 40)] {
                let at = SpaceIdx(i as u16);
                let marks = scene(&t, at, reach);
                let png = mail_png(&t, &marks, at);
                assert_eq!(png, mail_png(&t, &marks, at), "{}: same input, same bytes", t.name);
                // Afresh: the ground drawn again, not taken from the cache.
                let (v, zoom, shift) = mail_view(&l, &marks, at);
                zooms.insert(zoom);
                let g = ground_shift(&t, &l, zoom);
                let mut pixmap = backdrop::cut((g.0 - shift.0, g.1 - shift.1), MAIL_SIZE, |tile| {
                    Arc::new(ground_tile(&t, &l, zoom, tile))
                });
                let overlay = format!(
                    "{}{}</svg>",
                    svg_open(v.width, v.height),
                    marks_on(&t, &v, &marks, Some(at), Ink::Strokes)
                );
                raster::draw(&overlay, &mut pixmap, (0, 0));
                assert_eq!(png, raster::encode(pixmap), "{}: a kept ground gives the bytes of a fresh one", t.name);
                // The view drawn as one document.
                let mut one = resvg::tiny_skia::Pixmap::new(MAIL_SIZE.0, MAIL_SIZE.1).unwrap();
                raster::draw(&mail_svg(&t, &marks, at), &mut one, (0, 0));
                let (a, b) = (rgb(&png), rgb(&raster::encode(one)));
                let differ = |by: u8| {
                    let far = |(p, q): &(&[u8], &[u8])| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > by);
                    a.chunks_exact(3).zip(b.chunks_exact(3)).filter(far).count()
                };
                let all = a.len() / 3;
                // Edges a shade apart (measured: up to 2.2 % of the pixels), a few more.
                assert!(
                    differ(0) * 25 < all,
                    "{} at {i}: {} of {all} pixels differ from the view drawn alone",
                    t.name,
                    differ(0)
                );
                assert!(
                    differ(24) * 1000 < all,
                    "{} at {i}: {} of {all} pixels differ by more than a shade",
                    t.name,
                    differ(24)
                );
            }
        }
        assert!(zooms.len() >= 3, "the scenes use several zooms: {zooms:?}");
    }
}
