//! The `steward` command: a thin shell over the library (see `steward::cli`).

fn main() -> std::process::ExitCode {
    steward::cli::main()
}
