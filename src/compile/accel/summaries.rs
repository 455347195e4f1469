//! The summaries (`names::summary`) of the names evaluation looks up in objects: the
//! `required` names (every entry of `strings`), each discriminator's property and each
//! property test's name. A flat object carries its keys' summaries from the parse, so a
//! lookup with the name's summary at hand is a scan of integer comparisons; computed
//! here once, not at every lookup. Built in both configurations (the reference one looks
//! `required` names up too).

use crate::names::summary;
use crate::schema::Compiled;

/// Fills `string_summaries` and the accelerators' `dispatch_summaries` and
/// `property_test_summaries`.
pub(in crate::compile) fn name_summaries(c: &mut Compiled) {
    c.string_summaries = c.strings.iter().map(|s| summary(s)).collect();
    c.accel.dispatch_summaries = c
        .accel
        .dispatches
        .iter()
        .map(|d| summary(&d.property))
        .collect();
    c.accel.property_test_summaries = c
        .accel
        .property_tests
        .iter()
        .map(|t| summary(&t.name))
        .collect();
}

#[cfg(test)]
mod tests {
    use crate::Options;

    /// Every table has one summary per name, equal to the name's own.
    #[test]
    fn one_summary_per_name() {
        let schema = serde_json::json!({
            "type": "object",
            "required": ["kind", "a long required name"],
            "properties": {"kind": {"enum": ["x", "y"]}},
            "oneOf": [
                {"properties": {"kind": {"const": "x"}}, "required": ["kind"]},
                {"properties": {"kind": {"const": "y"}}, "required": ["kind"]}
            ]
        });
        for shortcuts in [true, false] {
            let compiled = Options::default()
                .shortcuts(shortcuts)
                .compile(&schema)
                .unwrap();
            let c = &*compiled.compiled;
            assert_eq!(c.string_summaries.len(), c.strings.len());
            for (s, name) in c.string_summaries.iter().zip(&c.strings) {
                assert_eq!(*s, crate::names::summary(name));
            }
            assert_eq!(c.accel.dispatch_summaries.len(), c.accel.dispatches.len());
            for (s, d) in c.accel.dispatch_summaries.iter().zip(&c.accel.dispatches) {
                assert_eq!(*s, crate::names::summary(&d.property));
            }
            assert_eq!(
                c.accel.property_test_summaries.len(),
                c.accel.property_tests.len()
            );
            if shortcuts {
                assert!(
                    !c.accel.dispatches.is_empty(),
                    "the oneOf dispatches on kind"
                );
            }
        }
    }
}
