//! The switches that decide how a schema compiles, shared by `check` and `validate`, and
//! the rule that lets local schema files refer to each other.
//!
//! Relative `$ref`s between local files: nothing is read that is not named on the command
//! line, and nothing is ever fetched from a network. A file given with `--resource FILE`
//! (or every JSON/YAML file under `--resource DIR`) is registered under the URI that its
//! path, relative to the schema file's directory, resolves to against the schema's base
//! URI (its `$id`, else `json-schema:///`). That is the URI a relative `$ref` in the schema
//! gives it, so `{"$ref": "defs/point.json"}` finds `--resource defs/point.json`, and
//! references between resources resolve the same way. `--resource URI=FILE` registers a
//! file under a URI of your choice; a resource's own `$id` registers it as well.

use super::input::{self, Syntax};
use fluent_uri::{Uri, UriRef};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};
use toolschema::{Draft, Limits, Options, Schema};

/// How schemas compile.
#[derive(clap::Args, Debug, Clone)]
pub struct SchemaArgs {
    /// Make `format` an assertion (by default it is only an annotation)
    #[arg(long)]
    pub assert_format: bool,
    /// Refuse a schema that uses a `format` this validator does not know
    #[arg(long)]
    pub unknown_format_error: bool,
    /// Make `contentEncoding` (base64) and `contentMediaType` (application/json) assert
    #[arg(long)]
    pub assert_content: bool,
    /// The dialect of a schema that declares no `$schema`
    #[arg(long, value_enum, value_name = "DRAFT", default_value = "2020-12")]
    pub draft: DraftArg,
    /// Register a schema document for `$ref`s: FILE, DIR (its .json/.yaml/.yml files) or
    /// URI=FILE; repeatable. Paths are named relative to the schema's directory
    #[arg(long, short = 'r', value_name = "[URI=]FILE")]
    pub resource: Vec<String>,
    /// Lift the caps on schema depth and size: for trusted schemas only
    #[arg(long)]
    pub no_limits: bool,
}

/// `--draft` values.
#[derive(clap::ValueEnum, Debug, Clone, Copy)]
pub enum DraftArg {
    #[value(name = "4")]
    Draft4,
    #[value(name = "6")]
    Draft6,
    #[value(name = "7")]
    Draft7,
    #[value(name = "2019-09")]
    Draft201909,
    #[value(name = "2020-12")]
    Draft202012,
}

impl From<DraftArg> for Draft {
    fn from(d: DraftArg) -> Draft {
        match d {
            DraftArg::Draft4 => Draft::Draft4,
            DraftArg::Draft6 => Draft::Draft6,
            DraftArg::Draft7 => Draft::Draft7,
            DraftArg::Draft201909 => Draft::Draft201909,
            DraftArg::Draft202012 => Draft::Draft202012,
        }
    }
}

/// Reads, parses and compiles the schema at `path` (`-` for stdin), with its resources.
/// The error names the file and what is wrong.
pub fn load(path: &str, args: &SchemaArgs) -> Result<Schema, String> {
    load_checked(path, args, false)
}

/// As [`load`]; with `meta`, the schema is first checked against its dialect's
/// meta-schema and every violation is listed, one a line.
pub fn load_checked(path: &str, args: &SchemaArgs, meta: bool) -> Result<Schema, String> {
    let root = read_value(path)?;
    let base = root_base(&root.value);
    let schema_dir = if path == "-" {
        PathBuf::from(".")
    } else {
        Path::new(path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let mut options = Options::new()
        .assert_formats(args.assert_format)
        .assert_content(args.assert_content)
        .default_dialect(args.draft.into())
        .validate_schema(meta);
    if args.no_limits {
        options = options.limits(Limits::none());
    }
    let mut documents = Vec::new();
    for spec in &args.resource {
        for (uri, file) in resource_files(spec, &schema_dir, &base)? {
            let doc = read_value(&file.to_string_lossy())?;
            documents.push((uri, file, doc));
        }
    }
    if args.unknown_format_error {
        unknown_format(&root.value).map_err(|e| format!("{path}: invalid schema: {e}"))?;
        for (_, file, doc) in &documents {
            unknown_format(&doc.value)
                .map_err(|e| format!("{}: invalid schema: {e}", file.display()))?;
        }
    }
    for (uri, _, doc) in &documents {
        options = options.with_document(uri, doc.value.clone());
    }
    options.compile(&root.value).map_err(|e| {
        let hint = if e.kind() == toolschema::SchemaErrorKind::UnresolvedReference {
            " (local files are read only when given with --resource; nothing is fetched)"
        } else {
            ""
        };
        let mut text = format!("{path}: invalid schema: {e}{hint}");
        // The first of several compile errors is the header already.
        for v in e
            .violations()
            .iter()
            .filter(|v| v.to_string() != e.to_string())
        {
            text.push_str(&format!("\n{path}: {v}"));
        }
        text
    })
}

fn read_value(path: &str) -> Result<input::Document, String> {
    let bytes = input::read_all(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    let syntax = match Syntax::of(path) {
        Syntax::Yaml => Syntax::Yaml,
        _ => Syntax::Json,
    };
    input::parse_document(&bytes, syntax).map_err(|e| format!("{path}: {e}"))
}

/// The schema's base URI: its absolute `$id` (or draft-04 `id`), else the library's
/// default base.
fn root_base(root: &Value) -> String {
    ["$id", "id"]
        .iter()
        .filter_map(|k| root.get(*k).and_then(Value::as_str))
        .find_map(|id| Uri::parse(id).ok().map(|u| u.to_string()))
        .map(|id| id.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_else(|| "json-schema:///".to_string())
}

/// The (URI, file) pairs one `--resource` names.
fn resource_files(
    spec: &str,
    schema_dir: &Path,
    base: &str,
) -> Result<Vec<(String, PathBuf)>, String> {
    if let Some((uri, file)) = spec.split_once('=')
        && uri.contains(':')
    {
        Uri::parse(uri).map_err(|e| format!("--resource {spec}: {uri:?} is not a URI: {e}"))?;
        return Ok(vec![(uri.to_string(), PathBuf::from(file))]);
    }
    let path = Path::new(spec);
    let files = if path.is_dir() {
        input::instance_files(path).map_err(|e| format!("{spec}: cannot read: {e}"))?
    } else {
        vec![path.to_path_buf()]
    };
    files
        .into_iter()
        .map(|file| {
            let relative = relative_uri(&file, schema_dir).ok_or_else(|| {
                format!("{}: cannot name it relative to the schema", file.display())
            })?;
            let uri = UriRef::parse(relative.as_str())
                .ok()
                .zip(Uri::parse(base).ok())
                .and_then(|(r, b)| r.resolve_against(&b).ok())
                .map(|u| u.normalize().to_string())
                .ok_or_else(|| {
                    format!(
                        "{}: cannot resolve {relative:?} against {base:?}",
                        file.display()
                    )
                })?;
            Ok((uri, file))
        })
        .collect()
}

/// `file`'s path relative to `dir`, as a percent-encoded relative URI reference.
fn relative_uri(file: &Path, dir: &Path) -> Option<String> {
    let file = std::path::absolute(file).ok()?;
    let dir = std::path::absolute(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    })
    .ok()?;
    let parts = |p: &Path| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::Normal(s) => out.push(s.to_string_lossy().into_owned()),
                Component::ParentDir => {
                    out.pop();
                }
                _ => {}
            }
        }
        out
    };
    let (f, d) = (parts(&file), parts(&dir));
    let common = f.iter().zip(&d).take_while(|(a, b)| a == b).count();
    let mut segments: Vec<String> = vec!["..".to_string(); d.len() - common];
    segments.extend(f[common..].iter().map(|s| encode_segment(s)));
    Some(segments.join("/"))
}

fn encode_segment(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The first `format` the validator does not know, as an error naming its location.
/// Values of `const`, `enum`, `default` and `examples` are data, not schemas, and are
/// not looked into.
fn unknown_format(schema: &Value) -> Result<(), String> {
    let mut stack = vec![(String::new(), schema)];
    while let Some((at, v)) = stack.pop() {
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    if matches!(k.as_str(), "const" | "enum" | "default" | "examples") {
                        continue;
                    }
                    if k == "format"
                        && let Value::String(name) = child
                        && !toolschema::is_known_format(name)
                    {
                        return Err(format!("{at}/format: unknown format {name:?}"));
                    }
                    stack.push((format!("{at}/{}", escape(k)), child));
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    stack.push((format!("{at}/{i}"), child));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
