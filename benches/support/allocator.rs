//! The `steward` binary's allocator (src/main.rs), set for the benchmarks that measure what the
//! binary runs (`engine`, `daemon_cpu`, `store`): one place, so they stay alike.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
