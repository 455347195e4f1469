//! The official JSON-Schema-Test-Suite, through the runner in `suite/`.

#[path = "../suite/runner.rs"]
mod runner;

use runner::{Run, run_and_assert};
use toolschema::Draft;

#[test]
fn draft2020_12_required() {
    let report = run_and_assert(&Run {
        folder: "draft2020-12",
        draft: Draft::Draft202012,
        with_documents: true,
        assert_formats: false,
        recursive: false,
    });
    if std::env::var("SUITE_FILTER").is_err() {
        assert_eq!(report.totals().1 + report.skipped, 1299, "the required 2020-12 suite has 1299 tests");
    }
}

#[test]
fn draft2020_12_required_without_documents() {
    run_and_assert(&Run {
        folder: "draft2020-12",
        draft: Draft::Draft202012,
        with_documents: false,
        assert_formats: false,
        recursive: false,
    });
}
