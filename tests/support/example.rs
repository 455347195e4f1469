//! The package's examples that tests run as processes. `cargo test` builds every example
//! beside the tests, but `cargo test --test NAME` builds none, so a test whose example is
//! missing asks cargo for it, in the profile the test was built in (and the package
//! selection `cargo test` makes from the repository root, so that the features match; the
//! examples are the root crate's, run by its companions' tests too).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Example `name` of the package under test: as `cargo test` built it, else built now.
#[track_caller]
pub fn built(name: &str) -> PathBuf {
    // The test runs from target/<profile>/deps/; the examples are in target/<profile>/examples/.
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    let profile = profile_dir
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a profile folder");
    let example = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if example.is_file() {
        return example;
    }
    // The repository root (holding Cargo.lock), whichever member's test runs.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(manifest);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace)
        .args(["build", "--example", name]);
    match profile {
        "debug" => {}
        "release" => {
            command.arg("--release");
        }
        other => {
            command.args(["--profile", other]);
        }
    }
    let status = command.status().expect("cannot run cargo");
    assert!(status.success(), "`cargo build --example {name}` failed");
    assert!(
        example.is_file(),
        "{} is missing after `cargo build --example {name}`",
        example.display()
    );
    example
}
