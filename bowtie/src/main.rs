//! `toolschema-bowtie`: the harness Bowtie runs in toolschema's container image. It
//! speaks Bowtie's protocol on stdin and stdout (see the crate's `README.md` and
//! [`toolschema_bowtie`]'s documentation) and exits 0 after `stop` or at the end of its
//! input.

use std::io::{self, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut harness = toolschema_bowtie::Harness::new();
    match toolschema_bowtie::serve(&mut harness, stdin.lock(), stdout.lock(), io::stderr()) {
        Ok(status) => ExitCode::from(u8::try_from(status).unwrap_or(1)),
        Err(e) => {
            let _ = writeln!(io::stderr(), "toolschema-bowtie: {e}");
            ExitCode::from(1)
        }
    }
}
