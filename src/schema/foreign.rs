//! Validation of values held in another language's memory (the Ruby, Python and Node
//! bindings): the binding implements [`Instance`](crate::flat::Instance) over its own
//! objects and the evaluator reads them in place, with no JSON round trip and no
//! `serde_json::Value` built. Hidden: a binding's contract, not a stable API.

use crate::Schema;
use crate::flat::Instance;

impl Schema {
    /// [`Schema::is_valid`] on any [`Instance`]: a binding's view of its own objects.
    #[doc(hidden)]
    pub fn is_valid_instance<'a, I: Instance<'a>>(&self, instance: I) -> bool {
        crate::validate::is_valid(&self.compiled, instance)
    }

    /// [`Schema::validate`] on any [`Instance`]: the fail-fast pass first (most instances
    /// are valid, and it allocates nothing), then every error.
    ///
    /// # Errors
    /// Every error, in evaluation order, when the instance does not conform.
    #[doc(hidden)]
    pub fn validate_instance<'a, I: Instance<'a>>(
        &self,
        instance: I,
    ) -> Result<(), crate::ValidationErrors> {
        // Most instances are valid: the fail-fast pass answers them with no allocation,
        // and costs an invalid one little (it stops at the first failure).
        if crate::validate::is_valid(&self.compiled, instance) {
            return Ok(());
        }
        let errors = crate::validate::collect_errors(&self.compiled, instance, 0, usize::MAX);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(crate::ValidationErrors::new(errors))
        }
    }

    /// [`Schema::evaluate`] on any [`Instance`]: every error, the annotations, the
    /// standard output formats.
    #[doc(hidden)]
    pub fn evaluate_instance<'a, I: Instance<'a>>(&self, instance: I) -> crate::Evaluation {
        crate::Evaluation::from_outcome(crate::validate::outcome(&self.compiled, instance))
    }
}

#[cfg(test)]
mod tests {
    use crate::Schema;
    use serde_json::json;

    // The generic entry points agree with the `Value` ones they mirror.
    #[test]
    fn instance_entry_points_agree_with_value_ones() {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {"n": {"maximum": 3}, "s": {"type": "string"}},
            "required": ["n"]
        }))
        .unwrap();
        for value in [
            json!({"n": 1}),
            json!({"n": 5, "s": 2}),
            json!({}),
            json!([1]),
        ] {
            assert_eq!(schema.is_valid_instance(&value), schema.is_valid(&value));
            // (`Schema::validate` is `validate_instance` on a `&Value`: compared here with
            // the reporting path alone, which has no fail-fast pass in front.)
            let reported: Vec<String> = schema
                .errors_unchecked(&value)
                .iter()
                .map(ToString::to_string)
                .collect();
            let errors: Vec<String> = match schema.validate_instance(&value) {
                Ok(()) => Vec::new(),
                Err(errors) => errors.iter().map(ToString::to_string).collect(),
            };
            assert_eq!(errors, reported);
            assert_eq!(
                schema.evaluate_instance(&value).basic(),
                schema.evaluate(&value).basic()
            );
        }
    }
}
