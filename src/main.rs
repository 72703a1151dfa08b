//! The `steward` command: a thin shell over the library (see `steward::cli`).

/// The allocator: faster than the system's for the engine's many small vectors (the options'
/// paths), which a race and the daemon allocate and drop by the thousand (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    steward::cli::main()
}
