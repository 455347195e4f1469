//! The compiler's shortcuts against the reference configuration: a schema from the keyword
//! grammar under a dialect picked from every draft (draft 4's integer typing, where `1.0`
//! is not an integer, included), compiled with and without shortcuts
//! (`Options::shortcuts(false)`, the general keyword loop alone). Both must accept or
//! refuse the schema alike and, on the near-miss instance, give one verdict on
//! `is_valid` and on the reporting path run in full.
//!
//! ```sh
//! cargo +nightly fuzz run -O reference corpus/reference seeds/validate -- -max_total_time=180
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolschema::{Draft, Options};
use toolschema_fuzz::DialectCase;

fuzz_target!(|input: DialectCase| {
    let draft = match input.draft {
        0 => Draft::Draft4,
        1 => Draft::Draft6,
        2 => Draft::Draft7,
        3 => Draft::Draft201909,
        _ => Draft::Draft202012,
    };
    let options = Options::new().default_dialect(draft);
    let schema = &input.case.schema.0;
    let instance = &input.case.instance.0;
    let fast = options.compile(schema);
    let reference = options.clone().shortcuts(false).compile(schema);
    let (fast, reference) = match (fast, reference) {
        (Ok(f), Ok(r)) => (f, r),
        (Err(_), Err(_)) => return,
        (f, r) => panic!(
            "only one configuration compiles it (with shortcuts: {}, without: {})\n{input:?}",
            f.is_ok(),
            r.is_ok()
        ),
    };
    let verdicts = [
        fast.is_valid(instance),
        reference.is_valid(instance),
        fast.errors_unchecked(instance).is_empty(),
        reference.errors_unchecked(instance).is_empty(),
    ];
    assert!(
        verdicts.iter().all(|&v| v == verdicts[0]),
        "verdicts differ (is_valid with/without shortcuts, errors with/without): \
         {verdicts:?}\n{input:?}"
    );
});
