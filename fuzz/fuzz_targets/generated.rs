//! Generated validators (`toolschema-codegen`) against the runtime engine: `build.rs`
//! generates one for each schema of the bench corpus, the MCP tool corpus's input schemas
//! and the official suite's 2020-12 files (formats as annotations, and asserted where a
//! schema names one); the input picks a validator and makes an instance (JSON text, or
//! mutations of the schema's known instances and of values sampled from it). The
//! generated `is_valid`, the reference configuration's (`Options::shortcuts(false)`) and
//! the default configuration's must agree; the generated `validate` is `Ok` exactly then.
//! See `toolschema_fuzz::check_generated`.
//!
//! ```sh
//! cd fuzz && cargo +nightly fuzz run -O generated corpus/generated seeds/generated -- \
//!     -max_total_time=600 -rss_limit_mb=2048 -timeout=10
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    toolschema_fuzz::check_generated(data);
});
