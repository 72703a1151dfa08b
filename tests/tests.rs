//! The project's single integration-test binary: each module is one area.

mod import;
