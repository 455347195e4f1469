//! `toolschema check`: compile schemas and say whether they are valid.

use super::schema::{self, SchemaArgs};
use super::{ERROR, VALID};

/// Compile each schema and report whether it is valid.
///
/// Each schema is first checked against its dialect's official meta-schema (draft-04 to
/// 2020-12, embedded), and every violation is listed with its location.
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
    /// Skip the check against the dialect's meta-schema
    #[arg(long)]
    no_meta_schema: bool,
}

pub fn run(args: Args) -> u8 {
    let mut code = VALID;
    for path in &args.schemas {
        match schema::load_checked(path, &args.options, !args.no_meta_schema) {
            Ok(_) => println!("{path}: ok"),
            Err(e) => {
                eprintln!("{e}");
                code = ERROR;
            }
        }
    }
    code
}
