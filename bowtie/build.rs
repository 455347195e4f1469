//! Records the version of the Rust compiler that builds the harness, which `start`
//! reports as the implementation's `language_version`.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    // `rustc 1.95.0 (59807616e 2026-04-14)`: the version is the second word.
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=TOOLSCHEMA_BOWTIE_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rerun-if-env-changed=TOOLSCHEMA_BOWTIE_HOMEPAGE");
    println!("cargo:rerun-if-env-changed=TOOLSCHEMA_BOWTIE_SOURCE");
    println!("cargo:rerun-if-env-changed=TOOLSCHEMA_BOWTIE_ISSUES");
}
