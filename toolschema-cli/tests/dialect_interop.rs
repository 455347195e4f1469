//! Real clients against tools whose schemas declare draft-04, draft-07 and 2020-12 (issue
//! #57): `toolschema serve --tools tests/proxy/dialect_tools.json`, and `toolschema proxy` in
//! front of a real Python SDK server that publishes the same tools verbatim
//! (tests/proxy/dialect_server.py). Each is driven by the v2 TypeScript client
//! (`@modelcontextprotocol/client`), the v1 TypeScript SDK and the Python SDK's `Client`
//! (tests/proxy/dialect_client.{mjs,py}), which check: every listed schema is a valid 2020-12
//! schema (Ajv 2020 strict, `Draft202012Validator.check_schema`); every valid call passes,
//! `1.0` for a draft-04 integer included (listed as 2020-12, where it is an integer, and so
//! enforced); every invalid call is refused, its first error naming the mutated member
//! (`/user/address/zip` inside an `anyOf [Address, null]`, `/shape/side` inside a tagged
//! `oneOf`), never quoting the instance.
//!
//! Over stdio and over Streamable HTTP (`serve --http`, `proxy --listen`).
//!
//! Runs the binary; the npm packages (tests/proxy) and the `.venv` come from `bash .ci/run`.
//! Missing locally, the tests say so loudly and skip; with `CI=true` they fail.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use support::installed;

const BIN: &str = env!("CARGO_BIN_EXE_toolschema");

/// The two ways the tools reach a client: served from the file, and proxied from a server
/// that lists them as written.
fn servers(python: &Path) -> [Vec<String>; 2] {
    let py = python.display().to_string();
    [
        vec![
            BIN.into(),
            "serve".into(),
            "--tools".into(),
            "dialect_tools.json".into(),
        ],
        vec![
            BIN.into(),
            "proxy".into(),
            "--".into(),
            py,
            "dialect_server.py".into(),
            "dialect_tools.json".into(),
        ],
    ]
}

/// A server on Streamable HTTP (`ARGS` with `127.0.0.1:0`), killed on drop; the URL is read
/// from its stderr.
struct Listening {
    child: Child,
    url: String,
}

impl Listening {
    fn start(args: &[String]) -> Listening {
        let mut child = Command::new(&args[0])
            .current_dir(installed::root().join("tests/proxy"))
            .args(&args[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut url = None;
        let mut line = String::new();
        while url.is_none() && stderr.read_line(&mut line).unwrap_or(0) > 0 {
            url = line
                .split_whitespace()
                .find(|w| w.starts_with("http://127.0.0.1:"))
                .map(|w| w.trim_end_matches([',', ';', ')']).to_string());
            line.clear();
        }
        let url = url.unwrap_or_else(|| panic!("{args:?} printed no address"));
        let url = if url.ends_with("/mcp") {
            url
        } else {
            format!("{}/mcp", url.trim_end_matches('/'))
        };
        // Keep draining stderr so the server never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Listening { child, url }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The same two servers on Streamable HTTP.
fn http_servers(python: &Path) -> [Listening; 2] {
    let py = python.display().to_string();
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    [
        Listening::start(&s(&[
            BIN,
            "serve",
            "--http",
            "127.0.0.1:0",
            "--tools",
            "dialect_tools.json",
        ])),
        Listening::start(&s(&[
            BIN,
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--",
            &py,
            "dialect_server.py",
            "dialect_tools.json",
        ])),
    ]
}

/// Runs a client script in tests/proxy; asserts it passed every check.
fn run(what: &str, program: &Path, args: &[&str], server: &[String]) {
    let dir = installed::root().join("tests/proxy");
    let out = Command::new(program)
        .current_dir(&dir)
        .args(args)
        .arg("--")
        .args(server)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(" passed, 0 failed"),
        "{what} against {server:?}:\n{stdout}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // (Every check printed a line: the tools' schemas, 5 valid and 7 invalid calls.)
    assert!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count() >= 16,
        "{stdout}"
    );
}

#[test]
fn typescript_clients_v1_and_v2_call_every_dialect() {
    let Some(_) = installed::proxy_packages(&["@modelcontextprotocol/sdk/package.json"]) else {
        return;
    };
    let Some(python) = installed::python("mcp.server.lowlevel") else {
        return;
    };
    let http = http_servers(&python);
    let over_http = http.iter().map(|l| vec![l.url.clone()]);
    for server in servers(&python).into_iter().chain(over_http) {
        for package in ["client-current", "@modelcontextprotocol/sdk"] {
            run(
                package,
                Path::new("node"),
                &["dialect_client.mjs", package, "dialect_calls.json"],
                &server,
            );
        }
    }
}

#[test]
fn python_client_calls_every_dialect() {
    let Some(python) = installed::python("mcp.server.lowlevel") else {
        return;
    };
    let http = http_servers(&python);
    let over_http = http.iter().map(|l| vec![l.url.clone()]);
    for server in servers(&python).into_iter().chain(over_http) {
        run(
            "the Python SDK client",
            &python,
            &["dialect_client.py", "dialect_calls.json"],
            &server,
        );
    }
}
