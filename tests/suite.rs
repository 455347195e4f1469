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
        assert_eq!(
            report.totals().1 + report.skipped,
            1299,
            "the required 2020-12 suite has 1299 tests"
        );
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

fn required(folder: &'static str, draft: Draft) -> runner::Report {
    run_and_assert(&Run {
        folder,
        draft,
        with_documents: true,
        assert_formats: false,
        recursive: false,
    })
}

#[test]
fn draft2019_09_required() {
    required("draft2019-09", Draft::Draft201909);
}

#[test]
fn draft7_required() {
    required("draft7", Draft::Draft7);
}

#[test]
fn draft6_required() {
    required("draft6", Draft::Draft6);
}

#[test]
fn draft4_required() {
    required("draft4", Draft::Draft4);
}

fn optional(folder: &'static str, draft: Draft) -> runner::Report {
    run_and_assert(&Run {
        folder,
        draft,
        with_documents: true,
        assert_formats: true,
        recursive: true,
    })
}

#[test]
fn draft2020_12_optional() {
    optional("draft2020-12/optional", Draft::Draft202012);
}

#[test]
fn draft2019_09_optional() {
    optional("draft2019-09/optional", Draft::Draft201909);
}

#[test]
fn draft7_optional() {
    optional("draft7/optional", Draft::Draft7);
}

#[test]
fn draft6_optional() {
    optional("draft6/optional", Draft::Draft6);
}

#[test]
fn draft4_optional() {
    optional("draft4/optional", Draft::Draft4);
}

#[test]
fn extra_cases() {
    let report = runner::run_extra(&Run {
        folder: "extra",
        draft: Draft::Draft202012,
        with_documents: true,
        assert_formats: false,
        recursive: true,
    });
    println!("{}", report.table());
    assert!(report.failures.is_empty(), "{}", report.failures.join("\n"));
}
