fn main() -> std::process::ExitCode {
    tidings::os::settle_allocator();
    tidings::cli::main()
}
