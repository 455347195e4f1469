//! Reading inputs: JSON or YAML documents by file name, JSON Lines line by line, stdin.
//!
//! Error texts say what is wrong and where, never quote the input: the same rule as
//! validation errors, since an instance may hold secrets.

use serde::Deserialize;
use serde_json::Value;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

/// A UTF-8 byte-order mark, accepted (and skipped) at the start of any input.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How one input is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// One JSON document.
    Json,
    /// One YAML document.
    Yaml,
    /// One JSON document per line.
    Lines,
}

impl Syntax {
    /// The syntax a file name implies: `.jsonl`/`.ndjson` are JSON Lines, `.yaml`/`.yml`
    /// YAML, anything else (stdin included) one JSON document.
    pub fn of(name: &str) -> Syntax {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
            Syntax::Lines
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Syntax::Yaml
        } else {
            Syntax::Json
        }
    }
}

/// A parsed document. Values nested deeper than serde_json's own limit are dropped
/// iteratively, since dropping them recursively could overflow the stack.
pub struct Document {
    pub value: Value,
    deep: bool,
}

impl Drop for Document {
    fn drop(&mut self) {
        if self.deep {
            let mut stack = vec![self.value.take()];
            while let Some(v) = stack.pop() {
                match v {
                    Value::Array(items) => stack.extend(items),
                    Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
                    _ => {}
                }
            }
        }
    }
}

/// `bytes` without a leading UTF-8 byte-order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Parses one whole document (a file or stdin) of the given syntax (`Json` or `Yaml`).
pub fn parse_document(bytes: &[u8], syntax: Syntax) -> Result<Document, String> {
    let bytes = strip_bom(bytes);
    match syntax {
        Syntax::Yaml => parse_yaml(bytes),
        _ => parse_json(bytes),
    }
}

/// Parses JSON of any depth: the common case with serde_json's recursion limit (the
/// fastest path), the rest again without it, on a stack that grows as needed.
pub fn parse_json(bytes: &[u8]) -> Result<Document, String> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => Ok(Document { value, deep: false }),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => parse_deep(bytes),
        Err(e) => Err(malformed(bytes, &e)),
    }
}

/// The message for malformed JSON text: what is wrong, its line and column and byte
/// offset (within the line's text for JSON Lines), never the text itself.
pub fn malformed_json(e: &toolschema::JsonError) -> String {
    format!("malformed JSON: {e}")
}

/// The flat parser's account of text serde_json refused, so that every path words the
/// same fault the same way; serde_json's own when the flat parser stops at its depth bound
/// first (or, never expected, finds nothing wrong).
fn malformed(bytes: &[u8], e: &serde_json::Error) -> String {
    match toolschema::flat::Document::new().parse(bytes) {
        Err(flat) if flat.kind != toolschema::JsonErrorKind::TooDeep => malformed_json(&flat),
        _ => format!("malformed JSON: {e}"),
    }
}

fn parse_deep(bytes: &[u8]) -> Result<Document, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let stacked = serde_stacker::Deserializer::new(&mut de);
    let value = Value::deserialize(stacked).map_err(|e| format!("malformed JSON: {e}"))?;
    let document = Document { value, deep: true };
    de.end().map_err(|e| format!("malformed JSON: {e}"))?;
    Ok(document)
}

fn parse_yaml(bytes: &[u8]) -> Result<Document, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "malformed YAML: invalid UTF-8 after byte {}",
            e.valid_up_to()
        )
    })?;
    // YAML 1.2 core booleans only (`n` and `no` stay strings), and errors without a
    // snippet of the input.
    let options = serde_saphyr::options! {
        strict_booleans: true,
        with_snippet: false,
    };
    match serde_saphyr::from_str_with_options::<Value>(text, options) {
        Ok(value) => Ok(Document { value, deep: true }),
        Err(e) => Err(format!("malformed YAML: {}", yaml_reason(&e))),
    }
}

/// The parser's reason and position, without the snippet of input it would quote.
fn yaml_reason(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("cannot parse");
    let mut reason = first.to_string();
    if let Some(at) = e.location() {
        reason = format!("{reason} (line {}, column {})", at.line(), at.column());
    }
    reason
}

/// Reads the whole of a file, or stdin for `-`.
pub fn read_all(name: &str) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if name == "-" {
        io::stdin().lock().read_to_end(&mut bytes)?;
    } else {
        std::fs::File::open(name)?.read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// One line of a JSON Lines input, as the reader found it.
#[derive(Debug, Clone, Copy)]
pub enum Slot {
    /// The line's bytes, at this range of the chunk's buffer (no newline, no `\r`).
    Text(usize, usize),
    /// A line longer than the cap, skipped: its length in bytes.
    TooLong(u64),
}

/// A run of consecutive lines, handed to a worker as one piece of work.
pub struct Chunk {
    /// The line number (from 1) of `slots[0]`.
    pub first_line: u64,
    pub data: Vec<u8>,
    /// Blank lines are left out, so each slot carries its own line number.
    pub slots: Vec<(u64, Slot)>,
    /// A read error that ended the input after these lines.
    pub error: Option<io::Error>,
    /// Whether the input ended after this chunk.
    pub last: bool,
}

/// Splits a stream into lines of at most `cap` bytes, never holding more than one
/// chunk and one line in memory; a longer line is skipped and reported, not kept.
pub struct LineReader<R> {
    inner: R,
    cap: usize,
    line: u64,
    done: bool,
}

/// A chunk ends once it holds this many bytes or lines.
const CHUNK_BYTES: usize = 1 << 20;
const CHUNK_LINES: usize = 4096;

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, cap: usize) -> LineReader<R> {
        LineReader {
            inner,
            cap,
            line: 0,
            done: false,
        }
    }

    /// The next chunk, or `None` once the input has ended.
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        if self.done {
            return None;
        }
        let mut chunk = Chunk {
            first_line: self.line + 1,
            data: Vec::new(),
            slots: Vec::new(),
            error: None,
            last: false,
        };
        while chunk.data.len() < CHUNK_BYTES && chunk.slots.len() < CHUNK_LINES {
            match self.read_line(&mut chunk.data) {
                Ok(Some(slot)) => {
                    if let Some(slot) = slot {
                        chunk.slots.push((self.line, slot));
                    }
                }
                Ok(None) => {
                    self.done = true;
                    chunk.last = true;
                    break;
                }
                Err(e) => {
                    self.done = true;
                    chunk.last = true;
                    chunk.error = Some(e);
                    break;
                }
            }
        }
        Some(chunk)
    }

    /// Appends the next line to `data`: `None` at the end of input, `Some(None)` for a
    /// blank line (dropped from `data`).
    fn read_line(&mut self, data: &mut Vec<u8>) -> io::Result<Option<Option<Slot>>> {
        let start = data.len();
        let mut total: u64 = 0;
        let mut too_long = false;
        let mut seen = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    data.truncate(start);
                    return Err(e);
                }
            };
            if available.is_empty() {
                if !seen {
                    return Ok(None);
                }
                break;
            }
            seen = true;
            let (piece, used, end) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            total += piece.len() as u64;
            if !too_long {
                if total > self.cap as u64 {
                    too_long = true;
                    data.truncate(start);
                } else {
                    data.extend_from_slice(piece);
                }
            }
            self.inner.consume(used);
            if end {
                break;
            }
        }
        self.line += 1;
        if too_long {
            return Ok(Some(Some(Slot::TooLong(total))));
        }
        if data.last() == Some(&b'\r') {
            data.pop();
        }
        if self.line == 1 && data[start..].starts_with(BOM) {
            data.drain(start..start + BOM.len());
        }
        if data[start..].iter().all(|b| b.is_ascii_whitespace()) {
            data.truncate(start);
            return Ok(Some(None));
        }
        Ok(Some(Some(Slot::Text(start, data.len()))))
    }
}

/// The instance files of a directory, recursively, in path order: JSON, JSON Lines and
/// YAML by extension.
pub fn instance_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if is_document_name(&path) {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

fn is_document_name(path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    matches!(
        ext.as_deref(),
        Some("json" | "jsonl" | "ndjson" | "yaml" | "yml")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<(u64, Result<String, u64>)> {
        let mut reader = LineReader::new(input, cap);
        let mut out = Vec::new();
        while let Some(chunk) = reader.next_chunk() {
            for (n, slot) in &chunk.slots {
                out.push((
                    *n,
                    match slot {
                        Slot::Text(a, b) => {
                            Ok(String::from_utf8_lossy(&chunk.data[*a..*b]).into_owned())
                        }
                        Slot::TooLong(len) => Err(*len),
                    },
                ));
            }
        }
        out
    }

    #[test]
    fn lines_skip_blanks_bom_and_cr_and_cap_length() {
        // The cap counts the raw bytes: the BOM and `\r` of line 1 make 5.
        let got = lines(b"\xEF\xBB\xBF1\r\n\n  \n22\n666666\n5", 5);
        assert_eq!(
            got,
            [
                (1, Ok("1".into())),
                (4, Ok("22".into())),
                (5, Err(6)),
                (6, Ok("5".into()))
            ]
        );
    }

    #[test]
    fn deep_json_parses_and_drops() {
        let depth = 100_000;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let doc = parse_json(text.as_bytes()).expect("deep JSON parses");
        assert!(doc.value.is_array());
        assert!(parse_json(b"[[1]] x").is_err());
    }
}
