//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! tests/http/package-lock.json) against the Streamable HTTP transport, with the fixture tools
//! of tests/conformance/fixtures.rs.
//!
//! Every server scenario of the pinned suite is in exactly one list below: those that apply
//! to a tools server must pass (no failure, no warning), those for resources, prompts and
//! completion do not apply. `bash .ci/run` installs the suite and the Node >= 22 it needs (the npm
//! package `node`); missing locally, the test says so and skips; with `CI=true` it fails.

#[path = "conformance/fixtures.rs"]
mod fixtures;
#[path = "../../tests/conformance/talkback_tools.rs"]
mod talkback_tools;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use toolschema::mcp::Server;
use toolschema_http::{HttpOptions, HttpServer};

mod support;

/// Scenarios that apply to a tools server: each must pass.
const APPLICABLE: &[&str] = &[
    "server-initialize",
    "logging-set-level",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
];

/// Scenarios that wait for a server feature still to be merged: empty now.
const PENDING_MERGE: &[&str] = &[];

/// Scenarios for server features a tools layer does not have (resources, prompts,
/// completion); the README lists them with the reason.
const NOT_APPLICABLE: &[&str] = &[
    "completion-complete",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
];

fn package_dir() -> Option<PathBuf> {
    support::installed::node_packages(
        "tests/http",
        &[
            ".bin/node",
            "@modelcontextprotocol/conformance/dist/index.js",
        ],
        "the conformance suite and Node of tests/http (npm ci --prefix toolschema-http/tests/http)",
    )
}

/// Runs the suite's CLI with `args`; its stdout.
fn conformance(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(dir.join("node_modules/.bin/node"))
        .arg(dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the conformance CLI runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The fixture server on a free port, serving on a thread for the rest of the test.
fn start_fixture_server() -> String {
    let server = Server::builder("toolschema-conformance", env!("CARGO_PKG_VERSION"))
        .tools(fixtures::tools())
        // The fixtures that sample and elicit through the handler's context.
        .tools([
            talkback_tools::sampling(),
            talkback_tools::elicitation(),
            talkback_tools::elicitation_sep1034_defaults(),
            talkback_tools::elicitation_sep1330_enums(),
        ])
        .build()
        .expect("fixture server");
    // test_reconnection outlasts the polling delay, so its stream closes mid-call.
    let options = HttpOptions::new()
        .poll_after(fixtures::RECONNECTION_WORK / 3)
        .retry(Duration::from_millis(100));
    let http = HttpServer::bind(&server, "127.0.0.1:0", options).expect("bind");
    let url = format!("http://{}/mcp", http.local_addr());
    std::thread::spawn(move || http.run());
    url
}

/// The server scenarios the pinned suite lists.
fn listed_scenarios(dir: &Path) -> Vec<String> {
    let (ok, out) = conformance(dir, &["list", "--server"]);
    assert!(ok, "conformance list failed:\n{out}");
    let scenarios: Vec<String> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(!scenarios.is_empty(), "no scenarios listed:\n{out}");
    scenarios
}

#[test]
fn every_server_scenario_is_classified_and_the_applicable_ones_pass() {
    let Some(dir) = package_dir() else {
        return;
    };
    let listed = listed_scenarios(&dir);
    for s in &listed {
        let lists = [APPLICABLE, PENDING_MERGE, NOT_APPLICABLE]
            .iter()
            .filter(|l| l.contains(&s.as_str()))
            .count();
        assert_eq!(
            lists, 1,
            "scenario {s} must be in exactly one list of tests/conformance.rs"
        );
    }
    for s in APPLICABLE.iter().chain(PENDING_MERGE).chain(NOT_APPLICABLE) {
        assert!(
            listed.iter().any(|l| l == s),
            "{s} is no longer a scenario of the pinned suite"
        );
    }

    let url = start_fixture_server();
    let results =
        std::env::temp_dir().join(format!("toolschema-conformance-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&results);
    let mut outcomes: BTreeMap<&str, Vec<(String, String, String)>> = BTreeMap::new();
    for scenario in APPLICABLE.iter().chain(PENDING_MERGE) {
        let (_, stdout) = conformance(
            &dir,
            &[
                "server",
                "--url",
                &url,
                "--scenario",
                scenario,
                "-o",
                results.to_str().expect("utf-8 temp dir"),
            ],
        );
        let checks = read_checks(&results, scenario)
            .unwrap_or_else(|| panic!("no checks.json for {scenario}:\n{stdout}"));
        outcomes.insert(scenario, checks);
    }
    let _ = std::fs::remove_dir_all(&results);

    let mut problems = Vec::new();
    for scenario in APPLICABLE {
        let checks = &outcomes[scenario];
        eprintln!(
            "{scenario}: {}",
            checks
                .iter()
                .map(|(id, s, _)| format!("{id} {s}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(!checks.is_empty(), "{scenario} ran no checks");
        for (id, status, message) in checks {
            if status == "FAILURE" || status == "WARNING" {
                problems.push(format!("{scenario}: {id} {status}: {message}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "conformance checks that did not pass:\n{}",
        problems.join("\n")
    );
    for scenario in PENDING_MERGE {
        eprintln!(
            "pending merge (sampling/elicitation from a handler): {scenario}: {:?}",
            outcomes[scenario]
                .iter()
                .map(|(id, s, _)| format!("{id} {s}"))
                .collect::<Vec<_>>()
        );
    }
}

/// (id, status, errorMessage) of each check of the scenario's newest results.
fn read_checks(results: &Path, scenario: &str) -> Option<Vec<(String, String, String)>> {
    let prefix = format!("server-{scenario}-");
    let dir = std::fs::read_dir(results)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(&prefix)
                    && n[prefix.len()..].starts_with(|c: char| c.is_ascii_digit())
            })
        })
        .max()?;
    let text = std::fs::read_to_string(dir.join("checks.json")).ok()?;
    let checks: Vec<Value> = serde_json::from_str(&text).ok()?;
    Some(
        checks
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap_or("?").to_string(),
                    c["status"].as_str().unwrap_or("?").to_string(),
                    c["errorMessage"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect(),
    )
}
