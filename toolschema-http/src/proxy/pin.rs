//! Pinned tool definitions: the SHA-256 of each tool's canonical JSON, recorded the first
//! time the proxy sees the tool (or written by `toolschema pin`), so that a server that
//! later changes a tool's description, schemas or annotations under the same name (a
//! "rug pull") has that tool hidden and its calls refused until the pin file is updated.
//!
//! The file is JSON: `{"tools": {"NAME": "sha256:HEX", ...}}`.
//!
//! ```
//! use toolschema_http::proxy::pin::digest;
//! use serde_json::json;
//! // Key order and whitespace do not matter; content does.
//! let a = digest(&json!({"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}}));
//! let b = digest(&serde_json::from_str(r#"{ "inputSchema": {"type":"object"}, "description":"Echo", "name":"echo" }"#).unwrap());
//! assert_eq!(a, b);
//! assert_ne!(a, digest(&json!({"name": "echo", "description": "Echo, and mail the file to me", "inputSchema": {"type": "object"}})));
//! ```

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The canonical text of a JSON value, RFC 8785-style: object members sorted by their
/// names' UTF-16 code units, no whitespace, strings escaped as serde_json escapes them
/// (which is RFC 8785's set: `"`, `\` and control characters), numbers as serde_json
/// writes them.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(k.as_str()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// A tool definition's digest, `sha256:HEX`, over its canonical JSON without `_meta`
/// (which servers may vary per listing): name, title, description, both schemas,
/// annotations, icons and anything else the server lists.
pub fn digest(tool: &Value) -> String {
    let text = match tool.as_object() {
        Some(obj) if obj.contains_key("_meta") => {
            let trimmed: Map<String, Value> = obj
                .iter()
                .filter(|(k, _)| *k != "_meta")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            canonical(&Value::Object(trimmed))
        }
        _ => canonical(tool),
    };
    let hash = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// What [`Pins::check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinCheck {
    /// The definition matches its pin.
    Same,
    /// The tool was not pinned: its digest is now recorded.
    Recorded,
    /// The definition changed since it was pinned.
    Changed {
        /// The pinned digest.
        pinned: String,
        /// The digest of what the server lists now.
        seen: String,
    },
}

/// A pin file, shared by every session of a proxy.
#[derive(Debug)]
pub struct Pins {
    path: PathBuf,
    tools: Mutex<BTreeMap<String, String>>,
}

impl Pins {
    /// Opens a pin file; a missing file is an empty one (created at the first tool seen).
    ///
    /// # Errors
    /// When the file cannot be read, or is not a pin file.
    pub fn open(path: &Path) -> io::Result<Pins> {
        let tools = match std::fs::read(path) {
            Ok(bytes) => parse(&bytes).map_err(|why| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} is not a pin file: {why}", path.display()),
                )
            })?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(e),
        };
        Ok(Pins {
            path: path.to_path_buf(),
            tools: Mutex::new(tools),
        })
    }

    /// The pinned digest of a tool.
    pub fn get(&self, name: &str) -> Option<String> {
        super::stdio::lock(&self.tools).get(name).cloned()
    }

    /// Compares a listed tool (as the server sent it) with its pin; a tool seen for the
    /// first time is pinned and the file rewritten.
    pub fn check(&self, name: &str, tool: &Value) -> PinCheck {
        let seen = digest(tool);
        let mut tools = super::stdio::lock(&self.tools);
        match tools.get(name) {
            Some(pinned) if *pinned == seen => PinCheck::Same,
            Some(pinned) => PinCheck::Changed {
                pinned: pinned.clone(),
                seen,
            },
            None => match self.record(&mut tools, name, &seen) {
                Some(pinned) if pinned != seen => PinCheck::Changed { pinned, seen },
                Some(_) => PinCheck::Same,
                None => PinCheck::Recorded,
            },
        }
    }

    /// Pins `name` in the file, under a lock (`FILE.lock`) and merged with what the file
    /// holds now: other proxies sharing the file (replicas) may have pinned tools since it
    /// was read, this one among them; theirs are kept, never overwritten. `Some(pin)` when
    /// the file already pinned `name` (that pin is now this proxy's too).
    fn record(
        &self,
        tools: &mut BTreeMap<String, String>,
        name: &str,
        seen: &str,
    ) -> Option<String> {
        let warn = |e: &dyn std::fmt::Display| {
            eprintln!(
                "toolschema proxy: cannot write the pin file {}: {e}",
                self.path.display()
            );
        };
        let mut lock_path = self.path.as_os_str().to_owned();
        lock_path.push(".lock");
        let lock = LockFile::acquire(Path::new(&lock_path));
        let on_disk = match std::fs::read(&self.path) {
            Ok(bytes) => parse(&bytes).map_err(|why| format!("it is no longer a pin file: {why}")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(e.to_string()),
        };
        match on_disk {
            Ok(disk) => {
                for (k, v) in disk {
                    tools.entry(k).or_insert(v);
                }
            }
            // A file that no longer reads (being edited by hand) is not written over.
            Err(why) => {
                warn(&why);
                tools.insert(name.to_string(), seen.to_string());
                return None;
            }
        }
        if let Some(pinned) = tools.get(name) {
            return Some(pinned.clone());
        }
        tools.insert(name.to_string(), seen.to_string());
        match lock {
            Ok(_held) => {
                if let Err(e) = write(&self.path, tools) {
                    warn(&e);
                }
            }
            Err(e) => warn(&e),
        }
        None
    }
}

/// An exclusive hold on a lock file beside the pin file: created (never opened if it
/// exists) and removed when dropped, so it works wherever the file system does. Waited
/// for up to 2 s; one older than 10 s was left by a process that died, and is taken over.
struct LockFile(PathBuf);

impl LockFile {
    fn acquire(path: &Path) -> io::Result<LockFile> {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(_) => return Ok(LockFile(path.to_path_buf())),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let stale = std::fs::metadata(path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age > Duration::from_secs(10));
                    if stale {
                        let _ = std::fs::remove_file(path);
                    } else if Instant::now() >= deadline {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!("{} is held by another process", path.display()),
                        ));
                    } else {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn parse(bytes: &[u8]) -> Result<BTreeMap<String, String>, String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let tools = v
        .get("tools")
        .and_then(Value::as_object)
        .ok_or("no \"tools\" object")?;
    let mut out = BTreeMap::new();
    for (name, d) in tools {
        let d = d
            .as_str()
            .filter(|d| {
                d.strip_prefix("sha256:").is_some_and(|h| {
                    h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                })
            })
            .ok_or_else(|| format!("tool {name:?}: not a \"sha256:HEX\" digest"))?;
        out.insert(name.clone(), d.to_string());
    }
    Ok(out)
}

/// Writes a pin file (through a temporary file renamed over it, so a reader never sees
/// half of one).
pub fn write(path: &Path, tools: &BTreeMap<String, String>) -> io::Result<()> {
    let map: Map<String, Value> = tools
        .iter()
        .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
        .collect();
    let mut doc = Map::new();
    doc.insert("tools".into(), Value::Object(map));
    let text = serde_json::to_string_pretty(&Value::Object(doc)).map_err(io::Error::other)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, format!("{text}\n"))?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_sorts_members_by_utf16_and_drops_whitespace() {
        let v: Value = serde_json::from_str(
            r#"{ "b": [1, {"z":1,"a":"\u0001"}], "a": null, "\ue000": 1, "😀": 2 }"#,
        )
        .unwrap();
        // U+1F600 is a surrogate pair (0xD83D...), before U+E000 in UTF-16 order.
        assert_eq!(
            canonical(&v),
            "{\"a\":null,\"b\":[1,{\"a\":\"\\u0001\",\"z\":1}],\"😀\":2,\"\u{e000}\":1}"
        );
    }

    #[test]
    fn digests_ignore_meta_but_not_annotations() {
        let t = json!({"name": "x", "inputSchema": {"type": "object"}});
        let mut with_meta = t.clone();
        with_meta["_meta"] = json!({"k": 1});
        assert_eq!(digest(&t), digest(&with_meta));
        let mut annotated = t.clone();
        annotated["annotations"] = json!({"destructiveHint": true});
        assert_ne!(digest(&t), digest(&annotated));
        assert_eq!(digest(&t).len(), 71);
    }

    #[test]
    fn the_first_sight_is_recorded_and_a_change_is_caught() {
        let dir = std::env::temp_dir().join(format!("toolschema-pin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pins.json");
        let _ = std::fs::remove_file(&path);
        let pins = Pins::open(&path).unwrap();
        let t = json!({"name": "x", "description": "one"});
        assert_eq!(pins.check("x", &t), PinCheck::Recorded);
        assert_eq!(pins.check("x", &t), PinCheck::Same);
        let again = Pins::open(&path).unwrap();
        let changed = json!({"name": "x", "description": "two"});
        assert!(matches!(
            again.check("x", &changed),
            PinCheck::Changed { .. }
        ));
        // A second proxy on the same file (a replica), opened before the first pinned
        // anything new: neither loses the other's pins, and a tool the other pinned
        // first is held to that pin.
        let replica = Pins::open(&path).unwrap();
        assert_eq!(pins.check("y", &json!({"name": "y"})), PinCheck::Recorded);
        assert_eq!(
            replica.check("z", &json!({"name": "z"})),
            PinCheck::Recorded
        );
        assert!(matches!(
            replica.check("y", &json!({"name": "y", "description": "rug"})),
            PinCheck::Changed { .. }
        ));
        assert_eq!(replica.check("y", &json!({"name": "y"})), PinCheck::Same);
        let after = Pins::open(&path).unwrap();
        for n in ["x", "y", "z"] {
            assert!(after.get(n).is_some(), "{n} lost");
        }
        // Many replicas at once, each pinning tools of its own.
        let threads: Vec<_> = (0..8)
            .map(|r| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let p = Pins::open(&path).unwrap();
                    for i in 0..10 {
                        let n = format!("t{r}-{i}");
                        p.check(&n, &json!({"name": n}));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(!dir.join("pins.json.lock").exists(), "the lock was left");
        let all = Pins::open(&path).unwrap();
        for r in 0..8 {
            for i in 0..10 {
                assert!(all.get(&format!("t{r}-{i}")).is_some(), "t{r}-{i} lost");
            }
        }
        // A file broken by hand meanwhile is not written over.
        std::fs::write(&path, "{\"tools\": {").unwrap();
        assert_eq!(all.check("w", &json!({"name": "w"})), PinCheck::Recorded);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"tools\": {");
        std::fs::write(&path, "{\"tools\": {\"x\": \"md5:00\"}}").unwrap();
        assert!(Pins::open(&path).is_err());
        // A digest of the right length that is no digest (a hand edit) is refused at
        // start, rather than hiding that tool for ever as "changed".
        let z = format!("{{\"tools\": {{\"x\": \"sha256:{}\"}}}}", "z".repeat(64));
        std::fs::write(&path, z).unwrap();
        assert!(Pins::open(&path).is_err());
    }
}
