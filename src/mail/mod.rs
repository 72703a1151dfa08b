//! Mail and nothing else: the transports (Maildir, IMAP, SMTP), an incoming message reduced to
//! what its sender wrote, a reply composed as MIME from the templates, signed reply addresses,
//! the secrets a reply must not echo, the size limits, and the dice checked from a player's own
//! mails. What a mail means and what steward does with it is `orders` and `judge`.

pub mod compose;
pub mod limits;
pub mod message;
pub mod secrets;
pub mod tag;
pub mod transport;
pub mod verify;
