//! `--config FILE`: a subcommand's options from a TOML file whose keys are the flags' long
//! names (`max-sessions = 64`, `allow = ["read_*"]`), so that an `mcpServers` entry stays
//! one line. The options struct is the one clap fills (it derives `Serialize` and
//! `Deserialize` too): a new flag is a new field, and the file takes it with no more code.
//!
//! Flags given on the command line win over the file: a value, a `true` switch or a
//! non-empty list replaces the file's. Unknown keys are an error (a typo is not ignored).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::path::Path;

/// The file's options with the command line's laid over them; `Err` says what is wrong
/// (unreadable file, TOML syntax, an unknown key, a value of the wrong type).
pub fn merge<T: Serialize + DeserializeOwned>(file: &Path, cli: &T) -> Result<T, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read the config {}: {e}", file.display()))?;
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let Value::Object(mut merged) =
        serde_json::to_value(&table).map_err(|e| format!("{}: {e}", file.display()))?
    else {
        return Err(format!("{}: not a table", file.display()));
    };
    let Ok(Value::Object(given)) = serde_json::to_value(cli) else {
        return Err("the command line's options cannot be merged".into());
    };
    overlay(&mut merged, given);
    serde_json::from_value(Value::Object(merged)).map_err(|e| format!("{}: {e}", file.display()))
}

/// Lays what was given on the command line (anything but null, `false` and `[]`) over
/// the file's values.
fn overlay(file: &mut Map<String, Value>, given: Map<String, Value>) {
    for (k, v) in given {
        let unset = match &v {
            Value::Null | Value::Bool(false) => true,
            Value::Array(a) => a.is_empty(),
            _ => false,
        };
        if !unset {
            file.insert(k, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
    #[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
    struct Opts {
        listen: Option<String>,
        max_sessions: Option<usize>,
        allow: Vec<String>,
        hide: bool,
    }

    fn file(text: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!(
            "toolschema-config-{}-{}.toml",
            std::process::id(),
            text.len()
        ));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn the_command_line_wins_and_unset_flags_keep_the_file() {
        let f = file("listen = \"127.0.0.1:1\"\nmax-sessions = 3\nallow = [\"a*\"]\nhide = true\n");
        let cli = Opts {
            max_sessions: Some(9),
            ..Opts::default()
        };
        let m = merge(&f, &cli).unwrap();
        assert_eq!(
            m,
            Opts {
                listen: Some("127.0.0.1:1".into()),
                max_sessions: Some(9),
                allow: vec!["a*".into()],
                hide: true,
            }
        );
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_errors_naming_the_file() {
        let f = file("lisen = \"x\"\n");
        let e = merge(&f, &Opts::default()).unwrap_err();
        assert!(e.contains("lisen") && e.contains(".toml"), "{e}");
        let f = file("max-sessions = \"many\"\n\n");
        assert!(merge(&f, &Opts::default()).is_err());
        let f = file("listen = \n");
        assert!(merge(&f, &Opts::default()).is_err());
    }
}
