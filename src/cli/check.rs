//! `toolschema check`: compile schemas and say whether they are valid.

use super::schema::{self, SchemaArgs};
use super::{ERROR, VALID};

/// Compile each schema and report whether it is valid.
///
/// Exit status: 0 every schema compiles, 2 usage error, 3 a schema cannot be read or
/// parsed or is invalid (the error names the keyword's location).
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Schema files: JSON, or YAML for .yaml/.yml; `-` reads one from stdin
    #[arg(value_name = "SCHEMA", required = true)]
    schemas: Vec<String>,
    #[command(flatten)]
    options: SchemaArgs,
}

pub fn run(args: Args) -> u8 {
    let mut code = VALID;
    for path in &args.schemas {
        match schema::load(path, &args.options) {
            Ok(_) => println!("{path}: ok"),
            Err(e) => {
                eprintln!("{e}");
                code = ERROR;
            }
        }
    }
    code
}
