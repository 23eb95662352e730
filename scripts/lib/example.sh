# Builds and runs one of the project's examples (examples/<name>.rs) with
# the given arguments: the release build by default, the debug build with
# PROFILE=debug (CI, where `cargo test` has already built it).
#   . scripts/lib/example.sh; run_example calibrate-compare "$@"
run_example() {
  local name=$1
  shift
  case "${PROFILE:-release}" in
  release)
    cargo build --release --locked --quiet --example "$name"
    exec "target/release/examples/$name" "$@"
    ;;
  debug)
    cargo build --locked --quiet --example "$name"
    exec "target/debug/examples/$name" "$@"
    ;;
  *)
    echo "$name: PROFILE is release or debug, not '$PROFILE'" >&2
    exit 2
    ;;
  esac
}
