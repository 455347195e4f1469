//! The Bowtie harness of toolschema.
//!
//! [Bowtie](https://bowtie.report) compares JSON Schema implementations by sending each
//! one test cases over a small JSON protocol: one command per line on the harness's
//! standard input, one response per line on its standard output. This crate speaks
//! version 1 of that protocol for toolschema:
//!
//! - `start` (`{"cmd": "start", "version": 1}`) is answered with the implementation's
//!   metadata: name, language, version (toolschema's own), the dialects it supports (by
//!   their meta-schema URIs), homepage, source and issue URLs, the OS and the Rust version
//!   it was built with. A `start` for any other protocol version ends the harness with a
//!   message on stderr (exit status 2).
//! - `dialect` sets the dialect of schemas without `$schema`
//!   ([`Options::default_dialect`]) and is answered `{"ok": true}`; a URI that names no
//!   dialect toolschema supports is answered `{"ok": false}` and changes nothing.
//! - `run` compiles the case's schema, with every document of the case's `registry`
//!   registered under its URI ([`Options::with_document`]; toolschema never fetches
//!   anything), and answers one result per test: `{"valid": bool}` for the `flag` output,
//!   `{"valid": bool, "annotations": [...]}` for `annotations` (from
//!   [`Schema::evaluate`]: each annotation's `keyword`, `instanceLocation`,
//!   `keywordLocation` — the keyword's location in the document that holds it, as a URI
//!   fragment — and value; an invalid instance has none).
//! - `stop` ends the harness (exit status 0), as does the end of its input.
//!
//! A schema toolschema refuses by design is answered `skipped` with the reason: a
//! reference cycle that never consumes the instance, a reference to a document the case
//! did not register, a `$schema` naming a meta-schema that is neither a known dialect nor
//! registered, a meta-schema requiring a vocabulary toolschema does not know. Any other
//! compile error, and any panic while compiling (the whole case) or validating (that
//! test), is answered `errored` with a message: the harness keeps running. A line that is
//! not a command (not JSON, nesting past serde_json's 128 levels, an unknown `cmd`, a
//! `run` without a case) is answered `errored` if it carries a `seq` the harness can read;
//! otherwise it is reported on stderr and ignored.
//!
//! Formats are annotations unless the dialect's vocabularies say otherwise (toolschema's
//! default, and what 2020-12 and 2019-09 specify), as other harnesses do: Bowtie reports
//! what a user of the library gets.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use toolschema::{Draft, Options, Schema, SchemaError, SchemaErrorKind};

/// The only version of Bowtie's protocol this harness speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// The implementation's name in Bowtie's reports.
pub const NAME: &str = "toolschema";

/// The project's homepage. toolschema has no public repository address yet; these URLs
/// follow `documentation` in the root `Cargo.toml` (docs.rs, crates.io) and can be set at
/// build time (`TOOLSCHEMA_BOWTIE_HOMEPAGE`, `TOOLSCHEMA_BOWTIE_SOURCE`,
/// `TOOLSCHEMA_BOWTIE_ISSUES`, empty meaning unset; the Dockerfile takes build arguments
/// of those names).
pub const HOMEPAGE: &str = match option_env!("TOOLSCHEMA_BOWTIE_HOMEPAGE") {
    Some(url) if !url.is_empty() => url,
    _ => "https://docs.rs/toolschema",
};

/// Where the source is published (see [`HOMEPAGE`]).
pub const SOURCE: &str = match option_env!("TOOLSCHEMA_BOWTIE_SOURCE") {
    Some(url) if !url.is_empty() => url,
    _ => "https://docs.rs/crate/toolschema/latest/source/",
};

/// Where problems are reported (see [`HOMEPAGE`]).
pub const ISSUES: &str = match option_env!("TOOLSCHEMA_BOWTIE_ISSUES") {
    Some(url) if !url.is_empty() => url,
    _ => "https://crates.io/crates/toolschema",
};

/// The API documentation.
pub const DOCUMENTATION: &str = "https://docs.rs/toolschema";

/// The dialects toolschema supports, by the meta-schema URIs Bowtie names them with.
pub const DIALECTS: [(&str, Draft); 5] = [
    (
        "https://json-schema.org/draft/2020-12/schema",
        Draft::Draft202012,
    ),
    (
        "https://json-schema.org/draft/2019-09/schema",
        Draft::Draft201909,
    ),
    ("http://json-schema.org/draft-07/schema#", Draft::Draft7),
    ("http://json-schema.org/draft-06/schema#", Draft::Draft6),
    ("http://json-schema.org/draft-04/schema#", Draft::Draft4),
];

/// The dialect a URI names: the meta-schema URI, with or without its empty fragment.
pub fn dialect_of(uri: &str) -> Option<Draft> {
    let bare = uri.strip_suffix('#').unwrap_or(uri);
    DIALECTS
        .iter()
        .find(|(known, _)| known.strip_suffix('#').unwrap_or(known) == bare)
        .map(|&(_, draft)| draft)
}

/// What the harness makes of one input line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A response: one line of JSON (without its newline).
    Respond(String),
    /// No response; the note is for stderr.
    Note(String),
    /// A blank line: nothing at all.
    Nothing,
    /// `stop`: end with status 0.
    Stop,
    /// The harness cannot go on (a protocol version it does not speak): the message is for
    /// stderr, the number is the exit status.
    Exit(i32, String),
}

/// The protocol's state: whether `start` came, and the dialect of schemas without
/// `$schema`.
#[derive(Debug, Clone)]
pub struct Harness {
    started: bool,
    dialect: Draft,
    before_instance: Option<fn(&Value)>,
}

impl Default for Harness {
    fn default() -> Harness {
        Harness::new()
    }
}

/// The fields of any command; which ones a command needs is checked by its handler.
#[derive(Deserialize)]
struct Command<'a> {
    #[serde(default)]
    cmd: Option<String>,
    #[serde(default, borrow, deserialize_with = "present")]
    seq: Option<&'a RawValue>,
    #[serde(default)]
    version: Option<Value>,
    #[serde(default)]
    dialect: Option<Value>,
    #[serde(default)]
    case: Option<Value>,
    #[serde(default)]
    output: Option<Value>,
}

/// A field that is present, whatever its value (`null` included): `seq` is echoed as sent.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The two result forms Bowtie asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Flag,
    Annotations,
}

impl Harness {
    /// A harness before `start`; schemas without `$schema` are 2020-12 until a `dialect`
    /// command says otherwise.
    pub fn new() -> Harness {
        Harness {
            started: false,
            dialect: Draft::Draft202012,
            before_instance: None,
        }
    }

    /// A function called before each instance is validated, inside the harness's guard
    /// (the tests make it panic, to check that a panic is answered `errored` and the
    /// harness goes on).
    #[doc(hidden)]
    pub fn before_instance(mut self, hook: fn(&Value)) -> Harness {
        self.before_instance = Some(hook);
        self
    }

    /// Answers one input line.
    pub fn handle(&mut self, line: &str) -> Reply {
        let text = line.trim();
        if text.is_empty() {
            return Reply::Nothing;
        }
        if !text.starts_with('{') {
            return Reply::Note("ignored a line that is not a JSON object".to_string());
        }
        let command: Command<'_> = match serde_json::from_str(text) {
            Ok(command) => command,
            Err(e) => {
                let why = format!("the command could not be read: {}", describe(&e));
                return match top_level_seq(text) {
                    Some(seq) => Reply::Respond(errored(seq, &why)),
                    None => Reply::Note(format!("ignored a line without a readable seq: {why}")),
                };
            }
        };
        match command.cmd.as_deref() {
            Some("start") => self.start(&command),
            Some("dialect") => self.dialect(&command),
            Some("run") => self.run(&command),
            Some("stop") => Reply::Stop,
            other => {
                let why = match other {
                    Some(_) => "unknown command (known: start, dialect, run, stop)",
                    None => "the command has no \"cmd\"",
                };
                match command.seq {
                    Some(seq) => Reply::Respond(errored(seq, why)),
                    None => Reply::Note(format!("ignored a line: {why}")),
                }
            }
        }
    }

    fn start(&mut self, command: &Command<'_>) -> Reply {
        let version = command.version.as_ref().and_then(Value::as_u64);
        if version != Some(PROTOCOL_VERSION) {
            return Reply::Exit(
                2,
                format!(
                    "start asks for protocol version {}; this harness speaks only version {PROTOCOL_VERSION}",
                    command
                        .version
                        .as_ref()
                        .map_or_else(|| "(none)".to_string(), Value::to_string)
                ),
            );
        }
        self.started = true;
        let mut implementation = json!({
            "name": NAME,
            "language": "rust",
            "version": toolschema::VERSION,
            "homepage": HOMEPAGE,
            "documentation": DOCUMENTATION,
            "source": SOURCE,
            "issues": ISSUES,
            "dialects": DIALECTS.iter().map(|(uri, _)| *uri).collect::<Vec<_>>(),
            "os": std::env::consts::OS,
            "language_version": env!("TOOLSCHEMA_BOWTIE_RUSTC_VERSION"),
        });
        if let Some(release) = os_version() {
            implementation["os_version"] = Value::String(release);
        }
        Reply::Respond(
            json!({"version": PROTOCOL_VERSION, "implementation": implementation}).to_string(),
        )
    }

    fn dialect(&mut self, command: &Command<'_>) -> Reply {
        match command
            .dialect
            .as_ref()
            .and_then(Value::as_str)
            .and_then(dialect_of)
        {
            Some(draft) => {
                self.dialect = draft;
                Reply::Respond(json!({"ok": true}).to_string())
            }
            // Bowtie sends only dialects the start response listed; anything else leaves
            // the current one in place.
            None => Reply::Respond(json!({"ok": false}).to_string()),
        }
    }

    fn run(&self, command: &Command<'_>) -> Reply {
        let Some(seq) = command.seq else {
            return Reply::Note("ignored a run command without a seq".to_string());
        };
        if !self.started {
            return Reply::Respond(errored(seq, "run before start"));
        }
        let output = match command.output.as_ref() {
            None => Output::Flag,
            Some(Value::String(s)) if s == "flag" => Output::Flag,
            Some(Value::String(s)) if s == "annotations" => Output::Annotations,
            Some(_) => {
                return Reply::Respond(errored(
                    seq,
                    "unknown output format (known: flag, annotations)",
                ));
            }
        };
        let Some(case) = command.case.as_ref().and_then(Value::as_object) else {
            return Reply::Respond(errored(seq, "the run command has no case object"));
        };
        let Some(schema) = case.get("schema") else {
            return Reply::Respond(errored(seq, "the case has no schema"));
        };
        let Some(tests) = case.get("tests").and_then(Value::as_array) else {
            return Reply::Respond(errored(seq, "the case has no tests array"));
        };
        let mut options = Options::new().default_dialect(self.dialect);
        match case.get("registry") {
            None | Some(Value::Null) => {}
            Some(Value::Object(registry)) => {
                for (uri, document) in registry {
                    options = options.with_document(uri, document.clone());
                }
            }
            Some(_) => return Reply::Respond(errored(seq, "the case's registry is not an object")),
        }
        let compiled = match catch_unwind(AssertUnwindSafe(|| options.compile(schema))) {
            Ok(Ok(compiled)) => compiled,
            Ok(Err(e)) => {
                return Reply::Respond(match refusal(&e) {
                    Some(reason) => respond(
                        seq,
                        json!({"skipped": true, "message": format!("{reason}: {e}")}),
                    ),
                    None => errored(seq, &format!("the schema does not compile: {e}")),
                });
            }
            Err(panic) => {
                return Reply::Respond(errored(
                    seq,
                    &format!("panic while compiling: {}", panic_message(&*panic)),
                ));
            }
        };
        let results: Vec<Value> = tests
            .iter()
            .map(|test| self.test(&compiled, test, output))
            .collect();
        Reply::Respond(respond(seq, json!({"results": results})))
    }

    /// One test's result, or `errored` for it alone.
    fn test(&self, schema: &Schema, test: &Value, output: Output) -> Value {
        let Some(instance) = test.get("instance") else {
            return json!({"errored": true, "context": {"message": "the test has no instance"}});
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if let Some(hook) = self.before_instance {
                hook(instance);
            }
            match output {
                Output::Flag => json!({"valid": schema.is_valid(instance)}),
                Output::Annotations => {
                    let evaluation = schema.evaluate(instance);
                    let annotations: Vec<Value> = evaluation
                        .annotations()
                        .iter()
                        .map(|a| {
                            json!({
                                "keyword": a.keyword(),
                                "instanceLocation": a.instance_location(),
                                "keywordLocation": keyword_location(a.schema_location(), a.keyword()),
                                "annotation": a.value(),
                            })
                        })
                        .collect();
                    json!({"valid": evaluation.is_valid(), "annotations": annotations})
                }
            }
        }));
        outcome.unwrap_or_else(|panic| {
            json!({"errored": true, "context": {
                "message": format!("panic while validating: {}", panic_message(&*panic))
            }})
        })
    }
}

/// Why toolschema refuses a schema by design, if it does: these are answered `skipped`.
/// (toolschema's error kinds are coarser than these reasons; the messages tell them apart,
/// and `tests/protocol.rs` pins each one.)
pub fn refusal(e: &SchemaError) -> Option<&'static str> {
    match e.kind() {
        SchemaErrorKind::ReferenceCycle => {
            Some("toolschema refuses, by design, reference cycles that never consume the instance")
        }
        SchemaErrorKind::UnresolvedReference if e.message().contains("no document or $id") => Some(
            "toolschema never fetches: the reference names a document the case did not register",
        ),
        SchemaErrorKind::UnknownDialect if e.message().contains("nor a registered meta-schema") => {
            Some(
                "toolschema never fetches: $schema names a meta-schema that is neither a known \
                 dialect nor registered by the case",
            )
        }
        SchemaErrorKind::UnknownDialect if e.message().contains("unknown vocabulary") => Some(
            "toolschema refuses a schema whose meta-schema requires a vocabulary it does not know, \
             as the specification says",
        ),
        _ => None,
    }
}

/// `{"seq": <seq as sent>, ...body}`.
fn respond(seq: &RawValue, body: Value) -> String {
    let mut out = String::from("{\"seq\":");
    out.push_str(seq.get());
    if let Value::Object(fields) = body {
        for (key, value) in fields {
            out.push(',');
            out.push_str(&Value::String(key).to_string());
            out.push(':');
            out.push_str(&value.to_string());
        }
    }
    out.push('}');
    out
}

/// A case answered `errored`, with `message` as its context.
fn errored(seq: &RawValue, message: &str) -> String {
    respond(
        seq,
        json!({"errored": true, "context": {"message": message}}),
    )
}

/// A serde_json error without the text it read (a command carries instances, and no
/// message of this crate quotes one).
fn describe(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match e.classify() {
        Category::Eof => "the line ends inside a value",
        Category::Data => "a field has the wrong type",
        Category::Syntax if e.to_string().starts_with("recursion limit exceeded") => {
            "it nests deeper than 128 levels"
        }
        Category::Syntax => "it is not valid JSON",
        Category::Io => "it could not be read",
    };
    format!("{what} (line {}, column {})", e.line(), e.column())
}

/// The message a panic carried.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// `schema_location` (`#` and the subschema's pointer, already a URI fragment) with the
/// keyword appended as one more pointer token, escaped for a pointer and for a fragment.
fn keyword_location(schema_location: &str, keyword: &str) -> String {
    let mut out = String::with_capacity(schema_location.len() + keyword.len() + 1);
    out.push_str(schema_location);
    out.push('/');
    for c in keyword.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c if c.is_ascii_alphanumeric() || "-._!$&'()*+,;=:@?".contains(c) => out.push(c),
            c => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
    out
}

/// The kernel release, where the OS says it (Linux).
fn os_version() -> Option<String> {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
    let release = release.trim();
    (!release.is_empty()).then(|| release.to_string())
}

/// The value of the first `"seq"` member of the top-level object in `line`, found without
/// parsing the rest (which may be malformed or nest too deeply): a byte scan that skips
/// strings and counts brackets. `None` if there is none or it is not JSON itself.
pub fn top_level_seq(line: &str) -> Option<&RawValue> {
    let bytes = line.as_bytes();
    let mut depth = 0usize;
    let mut expect_key = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i)?;
                if depth == 1 && expect_key {
                    let mut j = skip_space(bytes, end);
                    if bytes.get(j) != Some(&b':') {
                        return None;
                    }
                    j = skip_space(bytes, j + 1);
                    if &line[i..end] == "\"seq\"" {
                        let value_end = value_end(bytes, j)?;
                        return serde_json::from_str::<&RawValue>(&line[j..value_end]).ok();
                    }
                    expect_key = false;
                    i = j;
                    continue;
                }
                i = end;
                continue;
            }
            b'{' => {
                depth += 1;
                expect_key = depth == 1;
            }
            b'[' => {
                if depth == 0 {
                    return None;
                }
                depth += 1;
            }
            b'}' | b']' => depth = depth.checked_sub(1)?,
            b',' if depth == 1 => expect_key = true,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index after the string that starts at `start` (a `"`).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// The index after the value that starts at `start`, trailing space excluded: the next
/// `,` or `}` outside strings and brackets.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i = string_end(bytes, i)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => depth -= 1,
            b',' | b'}' if depth == 0 => {
                let mut end = i;
                while end > start && matches!(bytes[end - 1], b' ' | b'\t' | b'\r' | b'\n') {
                    end -= 1;
                }
                return Some(end);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Serves the protocol: reads commands from `input` until `stop` or its end, writes each
/// response on its own line of `output` and flushes it, and notes ignored lines on
/// `diagnostics`. Returns the exit status (0 after `stop` or at the end of input).
///
/// # Errors
/// Reading the input or writing the output failed.
pub fn serve(
    harness: &mut Harness,
    mut input: impl BufRead,
    mut output: impl Write,
    mut diagnostics: impl Write,
) -> io::Result<i32> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(0);
        }
        let text = String::from_utf8_lossy(&line);
        match harness.handle(&text) {
            Reply::Respond(response) => {
                output.write_all(response.as_bytes())?;
                output.write_all(b"\n")?;
                output.flush()?;
            }
            Reply::Note(note) => {
                // A lost diagnostic must not stop the harness.
                let _ = writeln!(diagnostics, "toolschema-bowtie: {note}");
            }
            Reply::Nothing => {}
            Reply::Stop => return Ok(0),
            Reply::Exit(status, message) => {
                let _ = writeln!(diagnostics, "toolschema-bowtie: {message}");
                return Ok(status);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Option<String> {
        top_level_seq(text).map(|r| r.get().to_string())
    }

    #[test]
    fn seq_is_found_in_lines_that_do_not_parse() {
        assert_eq!(
            raw(r#"{"cmd": "run", "seq": 7, "case": {"#).as_deref(),
            Some("7")
        );
        assert_eq!(
            raw(r#"{"case": {"seq": 1}, "seq" : {"a": [1, "}"]} }"#).as_deref(),
            Some(r#"{"a": [1, "}"]}"#)
        );
        assert_eq!(
            raw(r#"{"x": "\"seq\"", "seq": "s"}"#).as_deref(),
            Some(r#""s""#)
        );
        assert_eq!(
            raw(r#"{"x": ["seq", 1], "seq": null}"#).as_deref(),
            Some("null")
        );
        let deep = format!(
            r#"{{"seq": 3, "case": {}{}}}"#,
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        assert_eq!(raw(&deep).as_deref(), Some("3"));
        // No top-level seq, or one that is not JSON.
        assert_eq!(raw(r#"{"case": {"seq": 1}}"#), None);
        assert_eq!(raw(r#"["seq", 1]"#), None);
        assert_eq!(raw(r#"{"seq": tru, "cmd": "run"}"#), None);
        assert_eq!(raw(r#"{"seq": "#), None);
    }

    #[test]
    fn keyword_locations_are_fragments() {
        assert_eq!(keyword_location("#", "title"), "#/title");
        assert_eq!(
            keyword_location("#/properties/a", "x-y"),
            "#/properties/a/x-y"
        );
        assert_eq!(keyword_location("#", "a/b~c d"), "#/a~1b~0c%20d");
        assert_eq!(keyword_location("#", "é"), "#/%C3%A9");
    }

    #[test]
    fn dialect_uris_with_or_without_the_empty_fragment() {
        assert_eq!(
            dialect_of("http://json-schema.org/draft-07/schema"),
            Some(Draft::Draft7)
        );
        assert_eq!(
            dialect_of("http://json-schema.org/draft-04/schema#"),
            Some(Draft::Draft4)
        );
        assert_eq!(
            dialect_of("https://json-schema.org/draft/2020-12/schema#"),
            Some(Draft::Draft202012)
        );
        assert_eq!(dialect_of("http://json-schema.org/draft-03/schema#"), None);
    }
}
