//! SVG to PNG for the mails' picture, with `resvg` (no fonts: the picture writes with
//! [`super::glyphs`]), encoded by the `png` crate as RGB (the picture is opaque) at deflate
//! level 2: the daemon renders a picture for most reports, and tiny-skia's RGBA at the default
//! level was a quarter of the daemon's CPU per message (issue 17), for larger files. The deflate
//! is zlib-rs's (flate2's `zlib-rs` backend, chosen in `Cargo.toml`): the same pixels as
//! miniz_oxide's at a tenth of its time, in files 1-2 % larger. Same SVG, same bytes.

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
    encode(pixmap).unwrap_or_default()
}

/// The pixmap as a PNG at deflate level 2, adaptive filters (deterministic); RGB when every
/// pixel is opaque (the picture has a background), a quarter less to compress.
fn encode(pixmap: tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let (w, h) = (pixmap.width(), pixmap.height());
    let rgba = pixmap.take_demultiplied();
    let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
    let (color, data) = if opaque {
        (png::ColorType::Rgb, rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect())
    } else {
        (png::ColorType::Rgba, rgba)
    };
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_filter(png::Filter::Adaptive);
    encoder.set_deflate_compression(png::DeflateCompression::Level(2));
    encoder.write_header()?.write_image_data(&data)?;
    Ok(out)
}
