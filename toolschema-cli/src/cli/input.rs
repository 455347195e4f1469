//! Reading inputs: JSON or YAML documents by file name, JSON Lines line by line, stdin.
//!
//! Error texts say what is wrong and where, never quote the input: the same rule as
//! validation errors, since an instance may hold secrets.

use serde_json::{Map, Value};
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use toolschema::flat::{Array as FlatArray, Instance, Kind, Node, Object as FlatObject};

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

/// JSON nested past serde_json's recursion limit: read by the flat parser without a depth
/// bound (a loop with its own stack, linear in the text whatever it holds: serde_json's
/// deserializer, recursing through `serde_stacker`, recomputed the error's line at every
/// level it unwound, so refusing unclosed nesting took time quadratic in its depth), then
/// built into a `Value` by a loop as well. The flat parser reads what serde_json reads, to
/// the same values.
fn parse_deep(bytes: &[u8]) -> Result<Document, String> {
    let mut flat = toolschema::flat::Document::new().max_depth(u32::MAX);
    let tree = flat.parse(bytes).map_err(|e| malformed_json(&e))?;
    Ok(Document {
        value: to_value(tree.root()),
        deep: true,
    })
}

/// The `Value` of a flat node, built without recursion.
fn to_value(root: Node<'_>) -> Value {
    let mut open: Vec<(Option<String>, Open<'_>)> = Vec::new();
    let mut next = Some((None, root));
    loop {
        if let Some((key, node)) = next.take() {
            match Open::of(node) {
                Ok(value) => match open.last_mut() {
                    Some((_, parent)) => parent.push(key, value),
                    None => return value,
                },
                Err(frame) => open.push((key, frame)),
            }
        }
        let Some((_, top)) = open.last_mut() else {
            return Value::Null;
        };
        match top.next_child() {
            Some(child) => next = Some(child),
            None => {
                let Some((key, frame)) = open.pop() else {
                    return Value::Null;
                };
                let value = frame.finish();
                match open.last_mut() {
                    Some((_, parent)) => parent.push(key, value),
                    None => return value,
                }
            }
        }
    }
}

type Items<'t> = <<Node<'t> as Instance<'t>>::Array as FlatArray<'t>>::Iter;
type Entries<'t> = <<Node<'t> as Instance<'t>>::Object as FlatObject<'t>>::Entries;

/// A container of `to_value` being filled: what it holds so far and its children to come.
enum Open<'t> {
    Array(Vec<Value>, Items<'t>),
    Object(Map<String, Value>, Entries<'t>),
}

impl<'t> Open<'t> {
    /// A scalar's value, or a container to fill.
    fn of(node: Node<'t>) -> Result<Value, Open<'t>> {
        Ok(match node.kind() {
            Kind::Null => Value::Null,
            Kind::Bool => Value::Bool(node.as_bool().unwrap_or_default()),
            Kind::Number => node.as_number().map_or(Value::Null, Value::Number),
            Kind::String => Value::String(node.as_str().unwrap_or_default().to_string()),
            Kind::Array => match node.as_array() {
                Some(items) => {
                    return Err(Open::Array(Vec::with_capacity(items.len()), items.iter()));
                }
                None => Value::Null,
            },
            Kind::Object => match node.as_object() {
                Some(o) => return Err(Open::Object(Map::new(), o.entries())),
                None => Value::Null,
            },
        })
    }

    fn next_child(&mut self) -> Option<(Option<String>, Node<'t>)> {
        match self {
            Open::Array(_, items) => items.next().map(|item| (None, item)),
            Open::Object(_, entries) => entries.next().map(|(k, _, v)| (Some(k.to_string()), v)),
        }
    }

    fn push(&mut self, key: Option<String>, value: Value) {
        match self {
            Open::Array(items, _) => items.push(value),
            Open::Object(map, _) => {
                map.insert(key.unwrap_or_default(), value);
            }
        }
    }

    fn finish(self) -> Value {
        match self {
            Open::Array(items, _) => Value::Array(items),
            Open::Object(map, _) => Value::Object(map),
        }
    }
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

/// The most bytes of one JSON or YAML document read (files, stdin, FIFOs, devices alike),
/// and of one JSON Lines line skipped before the rest of its input is given up: reading
/// stops one byte past it (`validate --max-file-bytes`).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 256 << 20;

/// Reads the whole of a file, or stdin for `-`, up to [`DEFAULT_MAX_FILE_BYTES`].
pub fn read_all(name: &str) -> io::Result<Vec<u8>> {
    read_capped(name, DEFAULT_MAX_FILE_BYTES)
}

/// Reads the whole of a file, or stdin for `-`: an error past `cap` bytes, found by reading
/// one byte more (a regular file's size is not trusted: `/dev/zero`, a FIFO or a growing
/// file have none that holds).
pub fn read_capped(name: &str, cap: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let limit = cap.saturating_add(1);
    if name == "-" {
        io::stdin().lock().take(limit).read_to_end(&mut bytes)?;
    } else {
        open(name)?.take(limit).read_to_end(&mut bytes)?;
    }
    if bytes.len() as u64 > cap {
        return Err(io::Error::other(format!(
            "larger than {cap} bytes, the cap on one document (--max-file-bytes)"
        )));
    }
    Ok(bytes)
}

/// Opens an input for reading. A FIFO is opened without waiting for a writer (a FIFO that
/// has none reads as empty instead of blocking for ever), then read blocking; a socket is
/// refused by name.
pub fn open(name: &str) -> io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let kind = std::fs::metadata(name)?.file_type();
        if kind.is_socket() {
            return Err(io::Error::other("a socket, not a file"));
        }
        if kind.is_fifo() {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(name)?;
            // Back to blocking reads, with the standard library only (no `unsafe`): the
            // flag is cleared by `FIONBIO`, which the kernel takes on any descriptor.
            let fd = std::os::fd::OwnedFd::from(file);
            let handle = std::os::unix::net::UnixStream::from(fd);
            handle.set_nonblocking(false)?;
            return Ok(std::fs::File::from(std::os::fd::OwnedFd::from(handle)));
        }
    }
    std::fs::File::open(name)
}

/// One line of a JSON Lines input, as the reader found it.
#[derive(Debug, Clone, Copy)]
pub enum Slot {
    /// The line's bytes, at this range of the chunk's buffer (no newline, no `\r`).
    Text(usize, usize),
    /// A line longer than the cap, skipped: its length in bytes.
    TooLong(u64),
    /// A line longer than the cap that went on past the skip cap (bytes read of it) without
    /// a newline: the input ends there, unread (`/dev/zero` has no end to skip to).
    Endless(u64),
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
/// chunk and one line in memory; a longer line is skipped and reported, not kept, and one
/// that runs past `skip_cap` bytes ends the input.
pub struct LineReader<R> {
    inner: R,
    cap: usize,
    skip_cap: u64,
    line: u64,
    done: bool,
}

/// A chunk ends once it holds this many bytes or lines.
const CHUNK_BYTES: usize = 1 << 20;
const CHUNK_LINES: usize = 4096;

impl<R: BufRead> LineReader<R> {
    /// Lines of at most `cap` bytes; the reading ends inside a line longer than `skip_cap`
    /// (or `cap`, when larger).
    pub fn new(inner: R, cap: usize, skip_cap: u64) -> LineReader<R> {
        LineReader {
            inner,
            cap,
            skip_cap: skip_cap.max(cap as u64),
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
                        if let Slot::Endless(_) = slot {
                            self.done = true;
                            chunk.last = true;
                            break;
                        }
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
            if too_long && !end && total > self.skip_cap {
                self.inner.consume(used);
                self.line += 1;
                return Ok(Some(Some(Slot::Endless(total))));
            }
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
/// YAML by extension. Only regular files are taken: a FIFO, socket or device of such a
/// name is skipped with a warning on stderr (a FIFO would block the walk, a device never
/// end). Each directory is walked once, however many symbolic links lead to it, so that
/// links back up the tree cannot make the walk endless.
pub fn instance_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        if !first_visit(&d, &mut seen) {
            continue;
        }
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            // (Through symbolic links; one that leads nowhere is listed, to be reported.)
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => pending.push(path),
                _ if !is_document_name(&path) => {}
                Ok(meta) if !meta.is_file() => eprintln!(
                    "toolschema: {}: skipped: {}, not a regular file",
                    path.display(),
                    file_kind(&meta)
                ),
                _ => files.push(path),
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Whether directory `d` is walked for the first time (by device and inode).
fn first_visit(d: &Path, seen: &mut std::collections::HashSet<(u64, u64)>) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(meta) = std::fs::metadata(d) {
            return seen.insert((meta.dev(), meta.ino()));
        }
    }
    let _ = (d, seen);
    true
}

/// What a file that is not a regular one is.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
    }
    let _ = meta;
    "a special file"
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
        let mut reader = LineReader::new(input, cap, u64::MAX);
        let mut out = Vec::new();
        while let Some(chunk) = reader.next_chunk() {
            for (n, slot) in &chunk.slots {
                out.push((
                    *n,
                    match slot {
                        Slot::Text(a, b) => {
                            Ok(String::from_utf8_lossy(&chunk.data[*a..*b]).into_owned())
                        }
                        Slot::TooLong(len) | Slot::Endless(len) => Err(*len),
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
    fn an_endless_line_ends_the_input_past_the_skip_cap() {
        // Line 2 runs past the skip cap (12) in reads of 4 bytes that find no newline:
        // reported, and nothing after it is read.
        let input = io::BufReader::with_capacity(4, &b"1\n22222222222222222222\n3\n"[..]);
        let mut reader = LineReader::new(input, 5, 12);
        let chunk = reader.next_chunk().expect("a chunk");
        assert!(chunk.last);
        assert!(matches!(
            chunk.slots[..],
            [(1, Slot::Text(..)), (2, Slot::Endless(_))]
        ));
        assert!(reader.next_chunk().is_none());
        // Within the skip cap, the long line is skipped and the input goes on.
        assert_eq!(
            lines(b"1\n22222222\n3", 5),
            [(1, Ok("1".into())), (2, Err(8)), (3, Ok("3".into()))]
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
