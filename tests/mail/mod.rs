//! Mail: incoming-message normalisation on real-world fixtures, the order language, receipts,
//! standing orders, and a property test that no mail makes them panic.

mod fuzz;
mod message;
mod orders;
mod policy;
