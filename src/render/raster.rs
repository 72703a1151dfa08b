//! SVG to PNG for the mails' picture, with `resvg` (no fonts: the picture writes with
//! [`super::glyphs`]), encoded by the `png` crate as RGB (the picture is opaque) at deflate
//! level 2: the daemon renders a picture for most reports, and tiny-skia's RGBA at the default
//! level was a quarter of the daemon's CPU per message (issue 17), for larger files. The deflate
//! is zlib-rs's (flate2's `zlib-rs` backend, chosen in `Cargo.toml`): the same pixels as
//! miniz_oxide's at a tenth of its time, in files 1-2 % larger. Same pixels, same bytes.

use resvg::{tiny_skia, usvg};

/// `svg` drawn onto `pixmap` (over what it holds), its point `origin` at the pixmap's top left
/// corner. The SVG is the program's own: one that does not parse is a bug, and leaves the
/// pixmap as it was rather than no mail.
pub fn draw(svg: &str, pixmap: &mut tiny_skia::Pixmap, origin: (i64, i64)) {
    if let Ok(tree) = usvg::Tree::from_str(svg, &usvg::Options::default()) {
        // Moved by whole pixels, the coordinates stay exact in `f32`: a shape is drawn as it
        // would be in place, but for single edge pixels where the pixmap's edge cuts it.
        let moved = tiny_skia::Transform::from_translate(-origin.0 as f32, -origin.1 as f32);
        resvg::render(&tree, moved, &mut pixmap.as_mut());
    } else {
        debug_assert!(false, "the picture's SVG does not parse");
    }
}

/// `pixmap` as PNG bytes ([`encode_png`]); none if the encoder fails (it writes to memory).
pub fn encode(pixmap: tiny_skia::Pixmap) -> Vec<u8> {
    encode_png(pixmap).unwrap_or_default()
}

/// The pixmap as a PNG at deflate level 2, rows filtered by `Sub` (deterministic); RGB when
/// every pixel is opaque (the picture has a background), a quarter less to compress.
fn encode_png(pixmap: tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let (w, h) = (pixmap.width(), pixmap.height());
    // An opaque pixel's premultiplied colour is its colour: the pixels are taken as they lie,
    // and only a picture with some transparency pays for demultiplying.
    let px = pixmap.data();
    let opaque = px.chunks_exact(4).fold(u8::MAX, |a, p| a & p[3]) == u8::MAX;
    let (color, data) = if opaque {
        // Written into place, a pixel at a time (growing the vector three bytes at a time cost
        // as much as the deflate's hashing).
        let mut rgb = vec![0u8; px.len() / 4 * 3];
        for (d, s) in rgb.chunks_exact_mut(3).zip(px.chunks_exact(4)) {
            d.copy_from_slice(&s[..3]);
        }
        (png::ColorType::Rgb, rgb)
    } else {
        (png::ColorType::Rgba, pixmap.take_demultiplied())
    };
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    // Every row filtered by `Sub` (the left neighbour): this picture's flat colours and
    // anti-aliased edges gave files of the same size as adaptive filtering (which tries all
    // five filters on every row) in three quarters of the encoding time (issue 17).
    encoder.set_filter(png::Filter::Sub);
    encoder.set_deflate_compression(png::DeflateCompression::Level(2));
    encoder.write_header()?.write_image_data(&data)?;
    Ok(out)
}
