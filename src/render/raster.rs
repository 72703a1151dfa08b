//! SVG to PNG for the mails' picture, with `resvg` (no fonts: the picture writes with
//! [`super::glyphs`]). Same SVG, same bytes.

use resvg::{tiny_skia, usvg};

/// `svg` rasterised at `size` pixels as a PNG. The SVG is the program's own: one that does not
/// parse is a bug, and gives an empty picture of that size rather than no mail.
pub fn png(svg: &str, size: (u32, u32)) -> Vec<u8> {
    let mut pixmap = tiny_skia::Pixmap::new(size.0.max(1), size.1.max(1)).expect("a non-empty picture");
    if let Ok(tree) = usvg::Tree::from_str(svg, &usvg::Options::default()) {
        resvg::render(&tree, tiny_skia::Transform::identity(), &mut pixmap.as_mut());
    } else {
        debug_assert!(false, "the picture's SVG does not parse");
    }
    pixmap.encode_png().unwrap_or_default()
}
