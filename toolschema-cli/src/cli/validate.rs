//! `toolschema validate`: instances from files, directories and stdin, JSON Lines on all
//! cores, records that name their file and line.

use super::input::{self, Chunk, Document, LineReader, Slot, Syntax};
use super::schema::{self, SchemaArgs};
use super::term::{Paint, Progress};
use super::{ERROR, INVALID, USAGE, VALID};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::{Arc, Mutex};
use toolschema::{Evaluation, JsonErrorKind, JsonValidationError, Schema, ValidationErrors};

/// Validate instances against a schema.
///
/// Each INSTANCE is a JSON file, a YAML file (.yaml, .yml), a JSON Lines file (.jsonl,
/// .ndjson, or any file with --jsonl), a directory (its files of those kinds, recursively)
/// or `-` for stdin (one JSON document; JSON Lines with --jsonl). With no INSTANCE,
/// stdin is read.
///
/// Exit status: 0 every instance is valid, 1 some instance is invalid, 2 usage error,
/// 3 a schema or an instance cannot be read or parsed, or the schema is invalid.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The schema: JSON, or YAML for .yaml/.yml; `-` reads it from stdin
    #[arg(short, long, value_name = "FILE")]
    schema: String,
    /// Instance files, directories, or `-` for stdin
    #[arg(value_name = "INSTANCE")]
    instances: Vec<String>,
    #[command(flatten)]
    options: SchemaArgs,
    /// Read every input as JSON Lines, whatever its name (stdin included)
    #[arg(long, short = 'l')]
    jsonl: bool,
    /// What to print per instance: `text` prints the errors of invalid ones; the others
    /// print one JSON record per instance (the standard output formats, with `file` and,
    /// for JSON Lines, `line`); `flag` only says whether it is valid
    #[arg(long, short, value_enum, default_value = "text", value_name = "FORMAT")]
    output: OutputArg,
    /// A summary at the end: `json` prints one JSON object of counts on stdout, for CI
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    format: SummaryArg,
    /// Print nothing per instance; the exit status (and --format json) tells the result
    #[arg(long, short)]
    quiet: bool,
    /// The longest JSON Lines line read; a longer one is reported and skipped
    #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
    max_line_bytes: usize,
    /// The largest JSON or YAML document read (a file, stdin, a FIFO or a device alike), and
    /// the most bytes of one JSON Lines line skipped: past that, its input ends with an error
    #[arg(long, default_value_t = input::DEFAULT_MAX_FILE_BYTES, value_name = "BYTES")]
    max_file_bytes: u64,
    /// Threads validating JSON Lines (default: one per core)
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// Colour in text output: `auto` colours a terminal unless NO_COLOR is set
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    color: super::term::ColorArg,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum OutputArg {
    Text,
    Flag,
    Basic,
    Detailed,
    Verbose,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum SummaryArg {
    Text,
    Json,
}

/// What every worker needs: the schema and how to report.
struct Job {
    schema: Schema,
    output: OutputArg,
    quiet: bool,
    paint: Paint,
}

/// Counts over a run.
#[derive(Default, Clone, Copy)]
struct Tally {
    valid: u64,
    invalid: u64,
    malformed: u64,
    unreadable: u64,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.valid += other.valid;
        self.invalid += other.invalid;
        self.malformed += other.malformed;
        self.unreadable += other.unreadable;
    }
}

/// What judging some instances produced, to be written in input order.
#[derive(Default)]
struct Report {
    stdout: String,
    stderr: String,
    tally: Tally,
}

pub fn run(args: Args) -> u8 {
    let mut instances = args.instances.clone();
    if instances.is_empty() {
        instances.push("-".to_string());
    }
    if args.schema == "-" && instances.iter().any(|i| i == "-") {
        eprintln!(
            "toolschema validate: stdin cannot hold both the schema and instances; name the instance files"
        );
        return USAGE;
    }
    let schema = match schema::load(&args.schema, &args.options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ERROR;
        }
    };
    let job = Job {
        schema,
        output: args.output,
        quiet: args.quiet,
        paint: Paint::stdout(args.color),
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let mut sink = Sink::new(args.quiet);
    let mut files = 0u64;
    for name in &instances {
        let path = std::path::Path::new(name);
        if name != "-" && path.is_dir() {
            match input::instance_files(path) {
                Ok(list) => {
                    for file in list {
                        files += 1;
                        let file = file.to_string_lossy().into_owned();
                        one_input(&job, &file, &args, jobs, &mut sink);
                    }
                }
                Err(e) => sink.unreadable(&job, name, &format!("cannot read: {e}")),
            }
        } else {
            files += 1;
            one_input(&job, name, &args, jobs, &mut sink);
        }
    }
    sink.progress.finish();
    let t = sink.tally;
    let code = if t.malformed > 0 || t.unreadable > 0 {
        ERROR
    } else if t.invalid > 0 {
        INVALID
    } else {
        VALID
    };
    match args.format {
        SummaryArg::Json => sink.out(&format!(
            "{}\n",
            json!({
                "summary": true,
                "files": files,
                "instances": t.valid + t.invalid + t.malformed,
                "valid": t.valid,
                "invalid": t.invalid,
                "malformed": t.malformed,
                "unreadable": t.unreadable,
                "exit": code,
            })
        )),
        SummaryArg::Text => {
            if sink.progress.on_terminal() {
                eprintln!(
                    "{} valid, {} invalid, {} malformed, {} unreadable",
                    t.valid, t.invalid, t.malformed, t.unreadable
                );
            }
        }
    }
    sink.flush();
    code
}

fn one_input(job: &Job, name: &str, args: &Args, jobs: usize, sink: &mut Sink) {
    let syntax = if args.jsonl {
        Syntax::Lines
    } else {
        Syntax::of(name)
    };
    if syntax == Syntax::Lines {
        let result = if name == "-" {
            lines(job, name, io::stdin().lock(), args, jobs, sink);
            Ok(())
        } else {
            input::open(name).map(|f| {
                lines(
                    job,
                    name,
                    io::BufReader::with_capacity(1 << 16, f),
                    args,
                    jobs,
                    sink,
                )
            })
        };
        if let Err(e) = result {
            sink.unreadable(job, name, &format!("cannot read: {e}"));
        }
        return;
    }
    let bytes = match input::read_capped(name, args.max_file_bytes) {
        Ok(b) => b,
        Err(e) => return sink.unreadable(job, name, &format!("cannot read: {e}")),
    };
    let mut report = Report::default();
    if syntax == Syntax::Yaml {
        judge(
            job,
            name,
            None,
            input::parse_document(&bytes, syntax),
            &mut report,
        );
    } else {
        judge_json(job, name, None, input::strip_bom(&bytes), &mut report);
    }
    sink.emit(report);
}

/// Validates JSON Lines: chunks of lines go to `jobs` threads, the reports come back in
/// input order. At most `2 × jobs` chunks (1 MiB or 4096 lines each, plus one line up to
/// the cap) are in memory at once.
fn lines(job: &Job, name: &str, reader: impl BufRead, args: &Args, jobs: usize, sink: &mut Sink) {
    let mut reader = LineReader::new(reader, args.max_line_bytes, args.max_file_bytes);
    let Some(first) = reader.next_chunk() else {
        return;
    };
    if first.last || jobs == 1 {
        let mut next = Some(first);
        while let Some(chunk) = next {
            sink.emit(judge_chunk(job, name, chunk));
            next = reader.next_chunk();
        }
        return;
    }
    let in_flight = 2 * jobs;
    std::thread::scope(|scope| {
        let (work_tx, work_rx) = sync_channel::<(u64, Chunk)>(in_flight);
        let work_rx = Arc::new(Mutex::new(work_rx));
        let (done_tx, done_rx) = channel::<(u64, Report)>();
        for _ in 0..jobs {
            let work_rx = Arc::clone(&work_rx);
            let done_tx = done_tx.clone();
            scope.spawn(move || {
                loop {
                    let next = work_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((seq, chunk))) = next else { break };
                    if done_tx.send((seq, judge_chunk(job, name, chunk))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        // The reader runs here; a second thread writes reports in order and gives back
        // a token for each, so that the reader never runs more than `in_flight` ahead.
        let (token_tx, token_rx) = sync_channel::<()>(in_flight);
        for _ in 0..in_flight {
            let _ = token_tx.send(());
        }
        let writer = scope.spawn(move || {
            let mut pending = std::collections::BTreeMap::new();
            let mut next = 0u64;
            for (seq, report) in done_rx {
                pending.insert(seq, report);
                while let Some(report) = pending.remove(&next) {
                    sink.emit(report);
                    next += 1;
                    let _ = token_tx.send(());
                }
            }
        });
        let mut seq = 0u64;
        let mut chunk = Some(first);
        while let Some(c) = chunk {
            if token_rx.recv().is_err() || work_tx.send((seq, c)).is_err() {
                break;
            }
            seq += 1;
            chunk = reader.next_chunk();
        }
        drop(work_tx);
        let _ = writer.join();
    });
}

fn judge_chunk(job: &Job, name: &str, chunk: Chunk) -> Report {
    let mut report = Report::default();
    for &(line, slot) in &chunk.slots {
        match slot {
            Slot::Text(a, b) => judge_json(job, name, Some(line), &chunk.data[a..b], &mut report),
            Slot::TooLong(len) => {
                let why = format!("line too long: {len} bytes, more than --max-line-bytes");
                judge(job, name, Some(line), Err(why), &mut report);
            }
            Slot::Endless(len) => {
                let why = format!(
                    "line too long: more than --max-line-bytes, and still no newline after \
                     {len} bytes (--max-file-bytes): the rest of the input is not read"
                );
                judge(job, name, Some(line), Err(why), &mut report);
            }
        }
    }
    if let Some(e) = &chunk.error {
        report.tally.unreadable += 1;
        let line = chunk.slots.last().map_or(chunk.first_line, |s| s.0 + 1);
        record_failure(
            job,
            name,
            Some(line),
            &format!("cannot read: {e}"),
            &mut report,
        );
    }
    report
}

/// Judges one JSON text into `report` from its bytes, so that no instance becomes a
/// `Value`: the verdict, the errors of text output and the standard output formats all
/// come from the flat document. A document nested deeper than the bytes path reads (its
/// bound is serde_json's, 127) takes `judge`, on a `Value` read without a depth limit.
fn judge_json(job: &Job, name: &str, line: Option<u64>, bytes: &[u8], report: &mut Report) {
    let schema = &job.schema;
    let outcome = match job.output {
        _ if job.quiet => schema.is_valid_json(bytes).map(|valid| (valid, None)),
        OutputArg::Flag => schema.is_valid_json(bytes).map(|valid| (valid, None)),
        OutputArg::Text => match schema.validate_json(bytes) {
            Ok(()) => Ok((true, None)),
            Err(JsonValidationError::Invalid(errors)) => Ok((false, Some(Judged::Errors(errors)))),
            Err(JsonValidationError::Malformed(e)) => Err(e),
        },
        // The verdict as `judge` takes it (the fail-fast pass: an evaluation that runs
        // past its output budget has no verdict of its own), then the evaluation.
        _ => schema.is_valid_json(bytes).and_then(|valid| {
            let evaluation = schema.evaluate_json(bytes)?;
            Ok((valid, Some(Judged::Evaluation(Box::new(evaluation)))))
        }),
    };
    match outcome {
        Ok((valid, judged)) => {
            tally(valid, report);
            if job.quiet {
                return;
            }
            match judged {
                None if job.output == OutputArg::Flag => flag_record(valid, name, line, report),
                None => {}
                Some(Judged::Errors(errors)) => text_errors(job, name, line, errors, report),
                Some(Judged::Evaluation(evaluation)) => {
                    output_record(job, &evaluation, name, line, report)
                }
            }
        }
        Err(e) if e.kind == JsonErrorKind::TooDeep => {
            judge(job, name, line, input::parse_json(bytes), report)
        }
        Err(e) => {
            report.tally.malformed += 1;
            record_failure(job, name, line, &input::malformed_json(&e), report);
        }
    }
}

/// What judging from bytes produced besides the verdict, for the output asked for.
enum Judged {
    /// Text output: the errors of an invalid instance.
    Errors(ValidationErrors),
    /// `basic`, `detailed`, `verbose`: the evaluation.
    Evaluation(Box<Evaluation>),
}

/// One record of the `basic`, `detailed` or `verbose` output.
fn output_record(
    job: &Job,
    evaluation: &Evaluation,
    name: &str,
    line: Option<u64>,
    report: &mut Report,
) {
    let doc = match job.output {
        OutputArg::Basic => evaluation.basic(),
        OutputArg::Detailed => evaluation.detailed(),
        _ => evaluation.verbose(),
    };
    let _ = writeln!(report.stdout, "{}", with_place(doc, name, line));
}

fn tally(valid: bool, report: &mut Report) {
    if valid {
        report.tally.valid += 1;
    } else {
        report.tally.invalid += 1;
    }
}

fn flag_record(valid: bool, name: &str, line: Option<u64>, report: &mut Report) {
    let record = with_place(json!({"valid": valid}), name, line);
    let _ = writeln!(report.stdout, "{record}");
}

/// The errors of an invalid instance in text output, one line each.
fn text_errors<E: std::fmt::Display>(
    job: &Job,
    name: &str,
    line: Option<u64>,
    errors: impl IntoIterator<Item = E>,
    report: &mut Report,
) {
    let place = job.paint.place(&place(name, line));
    for e in errors {
        let _ = writeln!(
            report.stdout,
            "{place}: {}",
            job.paint.error(&e.to_string())
        );
    }
}

/// Judges one parsed (or malformed) instance into `report`.
fn judge(
    job: &Job,
    name: &str,
    line: Option<u64>,
    parsed: Result<Document, String>,
    report: &mut Report,
) {
    let doc = match parsed {
        Ok(d) => d,
        Err(why) => {
            report.tally.malformed += 1;
            return record_failure(job, name, line, &why, report);
        }
    };
    let instance = &doc.value;
    let schema = &job.schema;
    let valid = schema.is_valid(instance);
    tally(valid, report);
    if job.quiet {
        return;
    }
    match job.output {
        OutputArg::Text => {
            if !valid {
                text_errors(job, name, line, schema.iter_errors(instance), report);
            }
        }
        OutputArg::Flag => flag_record(valid, name, line, report),
        _ => output_record(job, &schema.evaluate(instance), name, line, report),
    }
}

/// A malformed or unreadable input: a message on stderr in text output, a record in the
/// JSON outputs.
fn record_failure(job: &Job, name: &str, line: Option<u64>, why: &str, report: &mut Report) {
    if job.output == OutputArg::Text || job.quiet {
        let _ = writeln!(report.stderr, "{}: {why}", place(name, line));
    } else {
        let record = json!({"valid": false, "error": why});
        let _ = writeln!(report.stdout, "{}", with_place(record, name, line));
    }
}

fn place(name: &str, line: Option<u64>) -> String {
    match line {
        Some(n) => format!("{name}:{n}"),
        None => name.to_string(),
    }
}

fn with_place(mut record: Value, name: &str, line: Option<u64>) -> Value {
    if let Value::Object(map) = &mut record {
        map.insert("file".into(), Value::from(name));
        if let Some(n) = line {
            map.insert("line".into(), Value::from(n));
        }
    }
    record
}

/// Where reports go, in order; also the progress line and the counts.
struct Sink {
    stdout: io::BufWriter<io::Stdout>,
    closed: bool,
    tally: Tally,
    progress: Progress,
}

impl Sink {
    fn new(quiet: bool) -> Sink {
        Sink {
            stdout: io::BufWriter::with_capacity(1 << 16, io::stdout()),
            closed: false,
            tally: Tally::default(),
            progress: Progress::new(!quiet),
        }
    }

    fn emit(&mut self, report: Report) {
        self.tally.add(report.tally);
        self.out(&report.stdout);
        if !report.stderr.is_empty() {
            self.progress.clear();
            let _ = self.stdout.flush();
            let _ = io::stderr().write_all(report.stderr.as_bytes());
        }
        let t = self.tally;
        self.progress
            .tick(t.valid + t.invalid + t.malformed, t.invalid + t.malformed);
    }

    fn unreadable(&mut self, job: &Job, name: &str, why: &str) {
        let mut report = Report::default();
        report.tally.unreadable += 1;
        record_failure(job, name, None, why, &mut report);
        self.emit(report);
    }

    /// Writes to stdout; a closed stdout (`| head`) ends the output quietly.
    fn out(&mut self, text: &str) {
        if text.is_empty() || self.closed {
            return;
        }
        if self.progress.shown() {
            self.progress.clear();
        }
        if self.stdout.write_all(text.as_bytes()).is_err() {
            self.closed = true;
        }
    }

    fn flush(&mut self) {
        let _ = self.stdout.flush();
    }
}
