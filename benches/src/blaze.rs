//! Blaze, the validator of the Sourcemeta `jsonschema` CLI (C++), run on its own benchmark
//! protocol: `jsonschema validate SCHEMA INSTANCES.jsonl --fast --continue --benchmark
//! --loop N` validates each instance `N` times in a row (in cache), timing every call with the
//! clock and subtracting the clock's own cost, and prints one line per instance:
//!
//! ```text
//! /tmp/…/instances.jsonl[3]: PASS 0.236 +- 2.049 us (0.023)
//! ```
//!
//! (the index counts lines from 1; then the verdict, the mean and standard deviation in
//! microseconds, and the clock overhead subtracted). Formats are annotations unless
//! `--format-assertion` is given, which it is not. `benches/blaze.sh` installs the pinned
//! npm package [`PACKAGE`]@[`VERSION`] and points `bench-report` at it. toolschema runs
//! the same protocol ([`in_cache`]) in a fresh process of its own reading the same files
//! ([`run_toolschema`]), so that both sides are timed in the same conditions: once on a
//! `serde_json::Value` per instance, once on its own flat layout (each instance parsed once,
//! as Blaze parses each once into its own, then validated in the loop: [`Layout`]).

use serde_json::Value;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The npm package of the Sourcemeta CLI.
pub const PACKAGE: &str = "@sourcemeta/jsonschema";
/// The version `benches/blaze.sh` installs.
pub const VERSION: &str = "16.11.0";
/// The environment variable naming the CLI (else `--blaze PATH`, else where
/// `benches/blaze.sh` installs it).
pub const ENV: &str = "TOOLSCHEMA_BENCH_BLAZE";
/// The dialect for schemas without `$schema`, as for the other engines.
const DEFAULT_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A runnable Sourcemeta CLI.
#[derive(Debug, Clone)]
pub struct Blaze {
    bin: PathBuf,
    /// What `jsonschema version` printed.
    pub version: String,
}

/// One instance's line of `--benchmark` output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// PASS (true) or FAIL.
    pub valid: bool,
    /// Mean time of one validation, clock overhead subtracted, in nanoseconds.
    pub mean_ns: f64,
}

/// Where `benches/blaze.sh` installs the CLI.
pub fn installed_path() -> PathBuf {
    crate::workspace_root().join("target/bench-tools/npm/node_modules/.bin/jsonschema")
}

impl Blaze {
    /// The CLI at `explicit`, else at `$TOOLSCHEMA_BENCH_BLAZE`, else at
    /// [`installed_path`], if it runs and reports a version.
    ///
    /// # Errors
    /// Why there is no usable CLI, for the report's note.
    pub fn locate(explicit: Option<&Path>) -> Result<Blaze, String> {
        let bin = explicit
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os(ENV).map(PathBuf::from))
            .unwrap_or_else(installed_path);
        if !bin.exists() {
            return Err(format!(
                "no Sourcemeta CLI at {} (install it with `bash benches/blaze.sh`, or name it with --blaze PATH or ${ENV})",
                bin.display()
            ));
        }
        let out = Command::new(&bin)
            .arg("version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || version.is_empty() {
            return Err(format!(
                "{} version failed: {}",
                bin.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Blaze { bin, version })
    }

    /// Validates each of `texts` (one JSON text each, on one line) against `schema`
    /// `iterations` times in a row, in Blaze's benchmark mode, and all of them `rounds`
    /// times over, in one run of the CLI (so that a large schema is compiled once); for
    /// each round, one [`Timing`] per text, in order.
    ///
    /// # Errors
    /// A text spanning lines, a file that cannot be written, a CLI that fails, or output
    /// that is not one line per text.
    pub fn run(
        &self,
        schema: &Value,
        texts: &[&[u8]],
        iterations: u64,
        rounds: usize,
    ) -> Result<Vec<Vec<Timing>>, String> {
        run_protocol(schema, texts, rounds, |schema_path, instances_path| {
            let mut command = Command::new(&self.bin);
            command
                .arg("validate")
                .arg(schema_path)
                .arg(instances_path)
                .args(["--fast", "--continue", "--benchmark", "--loop"])
                .arg(iterations.max(1).to_string())
                .args(["--default-dialect", DEFAULT_DIALECT]);
            command
        })
    }
}

/// How the toolschema side holds each instance while it validates it in a loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A `serde_json::Value`, validated with `Schema::is_valid`.
    Value,
    /// Its own flat layout, as Blaze holds its own: each instance parsed once into a
    /// `toolschema::flat::Document`, then validated with `Schema::is_valid_tree`.
    Flat,
}

impl Layout {
    fn arg(self) -> &'static str {
        match self {
            Layout::Value => "value",
            Layout::Flat => "flat",
        }
    }
}

/// The flag that makes `bench-report` the toolschema side of the protocol (see
/// [`run_toolschema`] and [`toolschema_child`]).
pub const CHILD_FLAG: &str = "--in-cache-child";

/// toolschema on Blaze's protocol, in the same conditions: a fresh process (`exe`, the
/// `bench-report` binary, run with [`CHILD_FLAG`]) reads the same two files, compiles the
/// schema, and validates each instance `iterations` times in a row, `rounds` times over,
/// printing Blaze's output format. (In the long-running report process the scheduler
/// interrupts timed calls far more often than in a fresh one: on a loaded machine a few
/// calls of milliseconds made most of a case's mean.)
///
/// # Errors
/// As [`Blaze::run`].
pub fn run_toolschema(
    exe: &Path,
    layout: Layout,
    schema: &Value,
    texts: &[&[u8]],
    iterations: u64,
    rounds: usize,
) -> Result<Vec<Vec<Timing>>, String> {
    run_protocol(schema, texts, rounds, |schema_path, instances_path| {
        let mut command = Command::new(exe);
        command
            .arg(CHILD_FLAG)
            .arg(schema_path)
            .arg(instances_path)
            .arg(iterations.max(1).to_string())
            .arg(layout.arg());
        command
    })
}

/// The child side of [`run_toolschema`]: `args` are `SCHEMA INSTANCES.jsonl ITERATIONS
/// [value|flat]` (the [`Layout`], `value` by default); returns one line per instance in
/// Blaze's format, for the child to print once all are timed (the standard deviation is
/// not measured and shows as 0).
///
/// # Errors
/// Unreadable files or arguments, a schema that does not compile, an instance on which
/// the two layouts disagree.
pub fn toolschema_child(args: &[String]) -> Result<String, String> {
    use crate::{Engine, Toolschema};
    let usage = || format!("usage: {CHILD_FLAG} SCHEMA INSTANCES.jsonl ITERATIONS [value|flat]");
    let (schema_path, instances_path, iterations, layout) = match args {
        [s, i, n] => (s, i, n, Layout::Value),
        [s, i, n, l] if l == "value" => (s, i, n, Layout::Value),
        [s, i, n, l] if l == "flat" => (s, i, n, Layout::Flat),
        _ => return Err(usage()),
    };
    let iterations: u64 = iterations.parse().map_err(|_| "ITERATIONS is a number")?;
    let read = |path: &str| std::fs::read(path).map_err(|e| format!("{path}: {e}"));
    let schema: Value =
        serde_json::from_slice(&read(schema_path)?).map_err(|e| format!("{schema_path}: {e}"))?;
    let compiled = Toolschema::compile(&schema, Toolschema::prepare(&schema))?;
    let lines = read(instances_path)?;
    let mut out = String::new();
    // One document for every instance, as a server keeps one per thread.
    let mut doc = toolschema::flat::Document::new();
    for (index, line) in lines
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let value: Value = serde_json::from_slice(line)
            .map_err(|e| format!("{instances_path} line {}: {e}", index + 1))?;
        let (valid, mean_ns) = match layout {
            Layout::Value => in_cache(iterations, || {
                Toolschema::is_valid(black_box(&compiled), black_box(&value))
            }),
            Layout::Flat => {
                let tree = doc
                    .parse(line)
                    .map_err(|e| format!("{instances_path} line {}: {e}", index + 1))?;
                let timed = in_cache(iterations, || {
                    black_box(&compiled).is_valid_tree(black_box(&tree))
                });
                if timed.0 != compiled.is_valid(&value) {
                    return Err(format!(
                        "{instances_path} line {}: the flat layout and the Value disagree",
                        index + 1
                    ));
                }
                timed
            }
        };
        use std::fmt::Write as _;
        let _ = writeln!(
            out,
            "{instances_path}[{}]: {} {:.3} +- 0.000 us (0.000)",
            index + 1,
            if valid { "PASS" } else { "FAIL" },
            mean_ns / 1e3
        );
    }
    Ok(out)
}

/// Writes `schema` and `rounds` copies of `texts` (as JSON Lines) to a temporary
/// directory, runs the command `make` builds from the two paths, and reads its output
/// ([`parse_output`]), split by round.
fn run_protocol(
    schema: &Value,
    texts: &[&[u8]],
    rounds: usize,
    make: impl FnOnce(&Path, &Path) -> Command,
) -> Result<Vec<Vec<Timing>>, String> {
    if texts.iter().any(|t| t.contains(&b'\n') || t.is_empty()) {
        return Err("an instance is empty or spans lines; JSON Lines cannot hold it".to_string());
    }
    let rounds = rounds.max(1);
    let dir = std::env::temp_dir().join(format!("toolschema-bench-blaze-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let schema_path = dir.join("schema.json");
    let instances_path = dir.join("instances.jsonl");
    let result = (|| {
        let schema_text = serde_json::to_vec(schema).map_err(|e| e.to_string())?;
        std::fs::write(&schema_path, schema_text).map_err(|e| e.to_string())?;
        let mut lines =
            Vec::with_capacity(rounds * texts.iter().map(|t| t.len() + 1).sum::<usize>());
        for _ in 0..rounds {
            for text in texts {
                lines.extend_from_slice(text);
                lines.push(b'\n');
            }
        }
        std::fs::write(&instances_path, lines).map_err(|e| e.to_string())?;
        let mut command = make(&schema_path, &instances_path);
        let out = command
            .output()
            .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
        // The exit status is not success when an instance fails; the output decides.
        let timings = parse_output(&String::from_utf8_lossy(&out.stdout), rounds * texts.len())
            .map_err(|why| {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let stderr: String = stderr.trim().chars().take(300).collect();
                format!("{why} ({}; stderr: {stderr})", out.status)
            })?;
        Ok(timings
            .chunks(texts.len().max(1))
            .map(<[Timing]>::to_vec)
            .collect())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Reads `--benchmark` output: one line per instance, `PATH[INDEX]: PASS|FAIL MEAN +- SD us
/// (OVERHEAD)`, in any order; returns the timings by index (from 1), requiring each of
/// `1..=count` exactly once. Other lines are ignored.
///
/// # Errors
/// A missing or repeated index, or a line of that shape whose figures do not read.
pub fn parse_output(stdout: &str, count: usize) -> Result<Vec<Timing>, String> {
    let mut timings: Vec<Option<Timing>> = vec![None; count];
    for line in stdout.lines() {
        let Some((head, rest)) = line.rsplit_once("]: ") else {
            continue;
        };
        let Some((_, index)) = head.rsplit_once('[') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let [verdict, mean, "+-", _sd, "us", ..] = fields.as_slice() else {
            continue;
        };
        let valid = match *verdict {
            "PASS" => true,
            "FAIL" => false,
            _ => continue,
        };
        let index: usize = index
            .parse()
            .map_err(|_| format!("cannot read the index in {line:?}"))?;
        let mean: f64 = mean
            .parse()
            .map_err(|_| format!("cannot read the mean in {line:?}"))?;
        let slot = index
            .checked_sub(1)
            .and_then(|i| timings.get_mut(i))
            .ok_or_else(|| format!("index {index} out of 1..={count}"))?;
        if slot.is_some() {
            return Err(format!("index {index} reported twice"));
        }
        *slot = Some(Timing {
            valid,
            mean_ns: mean * 1e3,
        });
    }
    let missing = timings.iter().filter(|t| t.is_none()).count();
    if missing > 0 {
        return Err(format!(
            "{missing} of {count} instances have no timing line"
        ));
    }
    Ok(timings.into_iter().flatten().collect())
}

/// toolschema on Blaze's protocol: `check` run `iterations` times in a row, each call
/// timed alone with the clock, the mean cost of reading the clock twice (measured the same
/// way first) subtracted from each call and floored at zero; returns the verdict and the
/// mean time per call in nanoseconds.
pub fn in_cache(iterations: u64, mut check: impl FnMut() -> bool) -> (bool, f64) {
    let n = iterations.max(1);
    let mut empty = 0.0;
    for _ in 0..n {
        let start = Instant::now();
        let end = Instant::now();
        empty += (end - start).as_nanos() as f64;
    }
    empty /= n as f64;
    let mut valid = true;
    let mut sum = 0.0;
    for _ in 0..n {
        let start = Instant::now();
        valid = black_box(check());
        let end = Instant::now();
        sum += ((end - start).as_nanos() as f64 - empty).max(0.0);
    }
    (valid, sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI's lines come in any order and carry paths with brackets; each index is
    /// read once, figures in microseconds become nanoseconds, other lines are skipped.
    #[test]
    fn benchmark_output_is_read_by_index() {
        let out = "\
/tmp/a[x]/instances.jsonl[2]: FAIL 0.033 +- 0.029 us (0.023)
warning: something else
/tmp/a[x]/instances.jsonl[1]: PASS 27.931 +- 51.705 us (0.048)
";
        let t = parse_output(out, 2).unwrap();
        assert_eq!(
            t,
            vec![
                Timing {
                    valid: true,
                    mean_ns: 27931.0
                },
                Timing {
                    valid: false,
                    mean_ns: 33.0
                }
            ]
        );
        assert!(parse_output(out, 3).unwrap_err().contains("1 of 3"));
        assert!(parse_output(out, 1).unwrap_err().contains("out of"));
        let twice = format!("{out}/tmp/i.jsonl[1]: PASS 1.0 +- 0.0 us (0.02)\n");
        assert!(parse_output(&twice, 2).unwrap_err().contains("twice"));
    }

    /// The toolschema side writes what the Blaze reader reads, with its verdicts.
    #[test]
    fn the_child_speaks_blazes_format() {
        let dir =
            std::env::temp_dir().join(format!("toolschema-bench-child-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (schema, instances) = (dir.join("schema.json"), dir.join("instances.jsonl"));
        std::fs::write(&schema, r#"{"type": "object", "required": ["a"]}"#).unwrap();
        std::fs::write(&instances, "{\"a\": 1}\n{}\n[]\n").unwrap();
        let args = [&schema, &instances].map(|p| p.display().to_string());
        let run = |layout: Option<&str>| {
            let mut argv = vec![args[0].clone(), args[1].clone(), "5".into()];
            argv.extend(layout.map(String::from));
            toolschema_child(&argv)
        };
        let outs = [run(None), run(Some("value")), run(Some("flat"))];
        let wrong = run(Some("tape"));
        std::fs::remove_dir_all(&dir).unwrap();
        for out in outs {
            let verdicts: Vec<bool> = parse_output(&out.unwrap(), 3)
                .unwrap()
                .iter()
                .map(|t| t.valid)
                .collect();
            assert_eq!(verdicts, [true, false, false]);
        }
        assert!(wrong.unwrap_err().contains("usage"));
        assert!(toolschema_child(&["only-one".into()]).is_err());
    }

    /// The in-cache timing returns the check's verdict and a finite, non-negative mean.
    #[test]
    fn in_cache_timing_returns_the_verdict() {
        let (valid, ns) = in_cache(50, || false);
        assert!(!valid && ns.is_finite() && ns >= 0.0);
        let mut calls = 0;
        let (valid, _) = in_cache(7, || {
            calls += 1;
            true
        });
        assert!(valid);
        assert_eq!(calls, 7);
    }
}
