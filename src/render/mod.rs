//! Rendering: the ASCII board for plain-text mail, and the board as a picture: SVG for the web
//! pages, rasterised to PNG for the mails.

mod backdrop;
pub mod board;
mod glyphs;
pub mod layout;
pub mod picture;
mod raster;
