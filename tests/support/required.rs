//! The tests of the official suite's required draft2020-12 files, one by one, for the test
//! files that check something of each (the allocation checks); the suite runner
//! (`suite/runner.rs`) runs them in full.

use serde_json::Value;
use std::path::Path;
use toolschema::{Draft, Options, Schema};

/// One test of the required suite.
pub struct Case {
    /// `file :: "group" :: "test"`.
    pub desc: String,
    /// The group's schema, compiled.
    pub schema: Schema,
    /// The instance.
    pub data: Value,
    /// The instance as JSON text.
    pub text: String,
}

/// Every test of `suite_dir/tests/draft2020-12`, files in name order, each group's schema
/// compiled as 2020-12 with `documents` (the suite's remotes and meta-schemas) registered.
pub fn cases(suite_dir: &Path, documents: Vec<(String, Value)>) -> Vec<Case> {
    let dir = suite_dir.join("tests/draft2020-12");
    let mut options = Options::new().default_dialect(Draft::Draft202012);
    for (uri, doc) in documents {
        options = options.with_document(&uri, doc);
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("suite folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let groups: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
        for group in groups.as_array().into_iter().flatten() {
            let schema = options
                .compile(&group["schema"])
                .expect("suite schemas compile");
            for test in group["tests"].as_array().into_iter().flatten() {
                out.push(Case {
                    desc: format!(
                        "{name} :: {} :: {}",
                        group["description"], test["description"]
                    ),
                    schema: schema.clone(),
                    data: test["data"].clone(),
                    text: serde_json::to_string(&test["data"]).expect("json"),
                });
            }
        }
    }
    out
}
