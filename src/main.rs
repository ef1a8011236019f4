fn main() -> std::process::ExitCode {
    tidings::cli::main()
}
