//! The ground of the mails' picture — the track's spaces, its finish line and its corners' flags,
//! the same for every turn — drawn once for the whole track at each zoom and cut out for each
//! picture, which then draws only the cars, stickers and lettered destinations on it.
//!
//! Why: the ground was nine tenths of a picture's drawing (resvg's anti-aliased outlines and
//! fills of about a hundred spaces), and the daemon draws a picture for most reports (issue 17,
//! docs/performance.md). The picture is *defined* as the cut-out: a ground drawn again after the
//! cache let it go is the same pixels, so the cache changes the time and never a byte.
//!
//! The grounds are kept per track ([`Track::uid`](crate::track::Track::uid)) and zoom, the
//! least recently used let go first beyond [`KEPT_BYTES`]. A ground larger than that is drawn
//! for each picture and not kept: the same pixels, slowly (no shipped or reference track comes
//! near it).

use std::sync::{Arc, Mutex};

use resvg::tiny_skia::{Color, Pixmap};

/// The most the kept grounds hold, in bytes of pixels: all five zooms of several tracks (the
/// largest of the 39 reference tracks, Mexico, is about 14 MB at the largest zoom and 38 MB at
/// all five; Monaco 12 and 33).
pub const KEPT_BYTES: usize = 96 << 20;

/// A track's ground at one zoom: `pixmap` shows layout point `p` (in the layout's units, scaled
/// by the zoom) at pixel `p + shift`.
pub struct Ground {
    /// The pixels.
    pub pixmap: Pixmap,
    /// Where the layout's origin falls, in whole pixels.
    pub shift: (i64, i64),
}

struct Kept {
    key: (u64, usize),
    ground: Arc<Ground>,
    used: u64,
}

#[derive(Default)]
struct Cache {
    kept: Vec<Kept>,
    clock: u64,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache { kept: Vec::new(), clock: 0 });

/// The ground kept under `key` (a track's uid and a zoom), drawn by `draw` when none is.
pub fn get(key: (u64, usize), draw: impl FnOnce() -> Ground) -> Arc<Ground> {
    get_in(&CACHE, KEPT_BYTES, key, draw)
}

fn get_in(cache: &Mutex<Cache>, limit: usize, key: (u64, usize), draw: impl FnOnce() -> Ground) -> Arc<Ground> {
    {
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        c.clock += 1;
        let now = c.clock;
        if let Some(k) = c.kept.iter_mut().find(|k| k.key == key) {
            k.used = now;
            return Arc::clone(&k.ground);
        }
    }
    // Drawn without the lock: another thread's picture of another track need not wait. Two
    // threads drawing the same ground draw the same pixels; the second keeps its own.
    let ground = Arc::new(draw());
    let bytes = ground.pixmap.data().len();
    if bytes <= limit {
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        c.kept.retain(|k| k.key != key);
        while c.kept.iter().map(|k| k.ground.pixmap.data().len()).sum::<usize>() + bytes > limit {
            let oldest = c.kept.iter().enumerate().min_by_key(|(_, k)| k.used).map(|(i, _)| i);
            match oldest {
                Some(i) => drop(c.kept.swap_remove(i)),
                None => break,
            }
        }
        let used = c.clock;
        c.kept.push(Kept { key, ground: Arc::clone(&ground), used });
    }
    ground
}

/// The `size` pixels of `ground` whose top left corner shows what a picture with its layout's
/// origin at `shift` shows there; `outside` where the ground does not reach.
pub fn cut(ground: &Ground, shift: (i64, i64), size: (u32, u32), outside: Color) -> Pixmap {
    let mut out = Pixmap::new(size.0.max(1), size.1.max(1)).expect("a non-empty picture");
    // Picture pixel q shows ground pixel q + (ground.shift - shift).
    let (dx, dy) = (ground.shift.0 - shift.0, ground.shift.1 - shift.1);
    let (gw, gh) = (i64::from(ground.pixmap.width()), i64::from(ground.pixmap.height()));
    let (w, h) = (i64::from(out.width()), i64::from(out.height()));
    let inside = dx >= 0 && dy >= 0 && dx + w <= gw && dy + h <= gh;
    if !inside {
        out.fill(outside);
    }
    // The part of the ground the picture covers, copied as it lies (no blending: it is opaque,
    // and a copy is what a cut-out is).
    let (x0, y0, x1, y1) = (dx.max(0), dy.max(0), (dx + w).min(gw), (dy + h).min(gh));
    if x0 < x1 && y0 < y1 {
        let src = ground.pixmap.data();
        let row = (x1 - x0) as usize * 4;
        let data = out.data_mut();
        for y in y0..y1 {
            let from = ((y * gw + x0) * 4) as usize;
            let to = (((y - dy) * w + (x0 - dx)) * 4) as usize;
            data[to..to + row].copy_from_slice(&src[from..from + row]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ground(w: u32, h: u32, shift: (i64, i64)) -> Ground {
        let mut pixmap = Pixmap::new(w, h).unwrap();
        // Every pixel its own colour: a cut from the wrong place shows.
        for (i, p) in pixmap.data_mut().chunks_exact_mut(4).enumerate() {
            p.copy_from_slice(&[(i % 251) as u8, (i / 251 % 251) as u8, (i % 7) as u8, 255]);
        }
        Ground { pixmap, shift }
    }

    fn at(p: &Pixmap, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * p.width() + x) * 4) as usize;
        p.data()[i..i + 4].try_into().unwrap()
    }

    #[test]
    fn a_cut_shows_the_ground_where_the_picture_puts_it_and_the_outside_colour_beyond() {
        let g = ground(50, 40, (10, 5));
        let green = Color::from_rgba8(74, 124, 58, 255);
        // The picture puts the layout's origin at (3, 2): its pixel (x, y) is the ground's
        // (x + 7, y + 3).
        let c = cut(&g, (3, 2), (20, 10), green);
        for (x, y) in [(0, 0), (19, 9), (5, 7)] {
            assert_eq!(at(&c, x, y), at(&g.pixmap, x + 7, y + 3));
        }
        // Past the ground's right and bottom edges, then before its left and top ones.
        let c = cut(&g, (-25, -30), (20, 10), green);
        assert_eq!(at(&c, 0, 0), at(&g.pixmap, 35, 35));
        assert_eq!(at(&c, 14, 4), at(&g.pixmap, 49, 39));
        assert_eq!(at(&c, 15, 4), [74, 124, 58, 255]);
        assert_eq!(at(&c, 0, 5), [74, 124, 58, 255]);
        let c = cut(&g, (20, 10), (20, 10), green);
        assert_eq!(at(&c, 9, 4), [74, 124, 58, 255]);
        assert_eq!(at(&c, 10, 5), at(&g.pixmap, 0, 0));
        // Wholly outside.
        let c = cut(&g, (500, 500), (4, 4), green);
        assert!(c.data().chunks_exact(4).all(|p| p == [74, 124, 58, 255]));
    }

    #[test]
    fn a_kept_ground_is_drawn_once_and_the_least_recently_used_goes_first() {
        let cache = Mutex::new(Cache::default());
        let drawn = std::cell::Cell::new(0);
        // Grounds of 1, 2 and 3 KiB in a cache that keeps 5 KiB.
        let get = |key: u64, kib: u32| {
            get_in(&cache, 5 << 10, (key, 0), || {
                drawn.set(drawn.get() + 1);
                ground(kib * 16, 16, (0, 0))
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
        // A ground larger than the cache is drawn each time and not kept.
        get(9, 6);
        get(9, 6);
        assert_eq!(drawn.get(), 6);
        let kept: usize = cache.lock().unwrap().kept.iter().map(|k| k.ground.pixmap.data().len()).sum();
        assert!(kept <= 5 << 10, "{kept} bytes kept");
    }
}
