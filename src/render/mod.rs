//! Rendering: the ASCII board for plain-text mail, and the board as an SVG picture for the web
//! pages (and, rasterised, the mails).

pub mod board;
pub mod picture;
