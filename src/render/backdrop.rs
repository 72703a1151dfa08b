//! The ground of the mails' picture — the track's spaces, its finish line and its corners'
//! flags, the same for every turn — drawn in tiles of the whole track's ground at each zoom and
//! kept, each picture cut out of the tiles it covers and drawing only the cars, stickers and
//! lettered destinations on them.
//!
//! Why: the ground was nine tenths of a picture's drawing (resvg's anti-aliased outlines and
//! fills of about a hundred spaces), and the daemon draws a picture for most reports (issue 17,
//! docs/performance.md). Tiles rather than the whole track at once: a pass of `serve --once`
//! that draws one picture draws the few tiles it covers, not every space of the track. The
//! picture is *defined* as the cut-out of the whole ground; a tile is drawn from the same
//! coordinates moved by whole pixels, so the tiles side by side are the whole ground drawn at
//! once, and a tile drawn again after the cache let it go is the same pixels: the cache changes
//! the time, never a byte.
//!
//! The tiles are kept per track ([`Track::uid`](crate::track::Track::uid)), zoom and place, the
//! least recently used let go first beyond [`KEPT_BYTES`].

use std::sync::{Arc, Mutex};

use resvg::tiny_skia::Pixmap;

/// A tile's side, in pixels.
pub const TILE: u32 = 256;

/// The most the kept tiles hold, in bytes of pixels: 384 tiles, all five zooms of a few
/// tracks (Monaco's tiles that hold some of the track: about 50 at the largest zoom, 230 at all
/// five).
pub const KEPT_BYTES: usize = 96 << 20;

/// A tile's key: a track's uid, a zoom, and the tile's place (column, row) in the ground.
pub type Key = (u64, usize, (i64, i64));

struct Kept {
    key: Key,
    tile: Arc<Pixmap>,
    used: u64,
}

#[derive(Default)]
struct Cache {
    kept: Vec<Kept>,
    bytes: usize,
    clock: u64,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache { kept: Vec::new(), bytes: 0, clock: 0 });

/// The tile kept under `key`, drawn by `draw` when none is.
pub fn get(key: Key, draw: impl FnOnce() -> Pixmap) -> Arc<Pixmap> {
    get_in(&CACHE, KEPT_BYTES, key, draw)
}

fn get_in(cache: &Mutex<Cache>, limit: usize, key: Key, draw: impl FnOnce() -> Pixmap) -> Arc<Pixmap> {
    {
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        c.clock += 1;
        let now = c.clock;
        if let Some(k) = c.kept.iter_mut().find(|k| k.key == key) {
            k.used = now;
            return Arc::clone(&k.tile);
        }
    }
    // Drawn without the lock: another thread's picture need not wait. Two threads drawing the
    // same tile draw the same pixels; the second keeps its own.
    let tile = Arc::new(draw());
    let bytes = tile.data().len();
    if bytes <= limit {
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = c.kept.iter().position(|k| k.key == key) {
            let gone = c.kept.swap_remove(i);
            c.bytes -= gone.tile.data().len();
        }
        while c.bytes + bytes > limit {
            let Some(i) = c.kept.iter().enumerate().min_by_key(|(_, k)| k.used).map(|(i, _)| i) else { break };
            let gone = c.kept.swap_remove(i);
            c.bytes -= gone.tile.data().len();
        }
        let used = c.clock;
        c.bytes += bytes;
        c.kept.push(Kept { key, tile: Arc::clone(&tile), used });
    }
    tile
}

/// Lets go of every kept tile.
pub fn forget() {
    let mut c = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    c.kept.clear();
    c.bytes = 0;
}

/// The `size` pixels of a ground whose top left corner is the ground's pixel `at`, copied from
/// the [`TILE`]-pixel tiles `tile` gives by their place (column, row; tile (0, 0) starts at the
/// ground's pixel (0, 0)).
pub fn cut(at: (i64, i64), size: (u32, u32), mut tile: impl FnMut((i64, i64)) -> Arc<Pixmap>) -> Pixmap {
    let mut out = Pixmap::new(size.0.max(1), size.1.max(1)).expect("a non-empty picture");
    let side = i64::from(TILE);
    let (w, h) = (i64::from(out.width()), i64::from(out.height()));
    let data = out.data_mut();
    for row in at.1.div_euclid(side)..=(at.1 + h - 1).div_euclid(side) {
        for col in at.0.div_euclid(side)..=(at.0 + w - 1).div_euclid(side) {
            let t = tile((col, row));
            let (tx, ty) = (col * side, row * side);
            // The part of the picture this tile covers, in the ground's pixels.
            let (x0, y0) = (tx.max(at.0), ty.max(at.1));
            let (x1, y1) = ((tx + side).min(at.0 + w), (ty + side).min(at.1 + h));
            let n = (x1 - x0) as usize * 4;
            for y in y0..y1 {
                let from = (((y - ty) * side + (x0 - tx)) * 4) as usize;
                let to = (((y - at.1) * w + (x0 - at.0)) * 4) as usize;
                data[to..to + n].copy_from_slice(&t.data()[from..from + n]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tile whose every pixel says where it is in the ground: (column, row) of the tile and
    /// the pixel's place in it.
    fn tile((col, row): (i64, i64)) -> Pixmap {
        let mut p = Pixmap::new(TILE, TILE).unwrap();
        for (i, px) in p.data_mut().chunks_exact_mut(4).enumerate() {
            let (x, y) = (i as i64 % 256, i as i64 / 256);
            px.copy_from_slice(&[(col * 256 + x).rem_euclid(251) as u8, (row * 256 + y).rem_euclid(251) as u8, 0, 255]);
        }
        p
    }

    fn at(p: &Pixmap, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * p.width() + x) * 4) as usize;
        p.data()[i..i + 4].try_into().unwrap()
    }

    #[test]
    fn a_cut_copies_each_pixel_from_its_place_in_the_ground_across_tiles() {
        // Starting at the ground's pixel (-300, 200): five columns of tiles (-2 to 2 once 600
        // wide... here 700) and two rows.
        let mut asked = Vec::new();
        let c = cut((-300, 200), (700, 100), |t| {
            asked.push(t);
            Arc::new(tile(t))
        });
        asked.sort();
        assert_eq!(asked, [(-2, 0), (-2, 1), (-1, 0), (-1, 1), (0, 0), (0, 1), (1, 0), (1, 1)]);
        for (x, y) in [(0, 0), (299, 55), (300, 56), (511, 99), (699, 0), (45, 99)] {
            let (gx, gy) = (x as i64 - 300, y as i64 + 200);
            assert_eq!(at(&c, x, y), [gx.rem_euclid(251) as u8, gy.rem_euclid(251) as u8, 0, 255], "({x}, {y})");
        }
    }

    #[test]
    fn a_kept_tile_is_drawn_once_and_the_least_recently_used_goes_first() {
        let cache = Mutex::new(Cache::default());
        let drawn = std::cell::Cell::new(0);
        // Tiles of 1, 2 and 3 KiB in a cache that keeps 5 KiB.
        let get = |n: i64, kib: u32| {
            get_in(&cache, 5 << 10, (7, 0, (n, 0)), || {
                drawn.set(drawn.get() + 1);
                Pixmap::new(kib * 16, 16).unwrap()
            })
        };
        let a = get(1, 1);
        assert!(Arc::ptr_eq(&a, &get(1, 1)), "kept, not drawn again");
        get(2, 2);
        get(1, 1); // 1 is now used more recently than 2
        assert_eq!(drawn.get(), 2);
        get(3, 3); // 6 KiB: 2, the least recently used, goes
        assert_eq!(drawn.get(), 3);
        get(1, 1);
        get(3, 3);
        assert_eq!(drawn.get(), 3, "1 and 3 kept");
        get(2, 2);
        assert_eq!(drawn.get(), 4, "2 was let go and is drawn again");
        // A tile larger than the cache is drawn each time and not kept.
        get(9, 6);
        get(9, 6);
        assert_eq!(drawn.get(), 6);
        let c = cache.lock().unwrap();
        assert_eq!(c.bytes, c.kept.iter().map(|k| k.tile.data().len()).sum::<usize>());
        assert!(c.bytes <= 5 << 10, "{} bytes kept", c.bytes);
    }
}
