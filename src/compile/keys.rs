//! The members of one schema object, sorted into keyword slots in one pass.
//!
//! Compiling asks each schema object for some forty keywords. Each member's name is
//! mapped once to its keyword by a 64-bit signature (a `match` on constants computed when
//! the crate builds), so every later lookup of a literal keyword name is an array index.

use crate::names::{same_found, signature};
use serde_json::{Map, Value};

macro_rules! keywords {
    ($($variant:ident = $name:literal, $annotation:literal;)*) => {
        /// Every keyword some supported draft defines, and the annotation keywords.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        #[repr(u8)]
        pub(crate) enum Kw { $($variant),* }

        const COUNT: usize = [$($name),*].len();
        const NAMES: [&str; COUNT] = [$($name),*];
        /// Kept as an annotation (for `evaluate`) when present.
        const ANNOTATION: [bool; COUNT] = [$($annotation),*];

        #[allow(non_upper_case_globals)]
        mod sig {
            $(pub(super) const $variant: u64 = crate::names::signature($name);)*
        }

        impl Kw {
            /// The keyword's name.
            pub(crate) fn name(self) -> &'static str {
                NAMES[self as usize]
            }
        }

        /// The keyword named `name`, if it is one.
        #[inline(always)]
        fn kw_of(name: &str) -> Option<Kw> {
            let kw = match signature(name) {
                $(sig::$variant => Kw::$variant,)*
                _ => return None,
            };
            same_found(NAMES[kw as usize], name).then_some(kw)
        }
    };
}

keywords! {
    Schema = "$schema", false;
    Id = "$id", false;
    LegacyId = "id", false;
    Ref = "$ref", false;
    Defs = "$defs", false;
    Definitions = "definitions", false;
    Anchor = "$anchor", false;
    DynamicRef = "$dynamicRef", false;
    DynamicAnchor = "$dynamicAnchor", false;
    RecursiveRef = "$recursiveRef", false;
    RecursiveAnchor = "$recursiveAnchor", false;
    Vocabulary = "$vocabulary", false;
    Comment = "$comment", false;
    AllOf = "allOf", false;
    AnyOf = "anyOf", false;
    OneOf = "oneOf", false;
    Not = "not", false;
    If = "if", false;
    Then = "then", false;
    Else = "else", false;
    DependentSchemas = "dependentSchemas", false;
    Dependencies = "dependencies", false;
    PrefixItems = "prefixItems", false;
    Items = "items", false;
    AdditionalItems = "additionalItems", false;
    Contains = "contains", false;
    Properties = "properties", false;
    PatternProperties = "patternProperties", false;
    AdditionalProperties = "additionalProperties", false;
    PropertyNames = "propertyNames", false;
    UnevaluatedItems = "unevaluatedItems", false;
    UnevaluatedProperties = "unevaluatedProperties", false;
    Type = "type", false;
    Enum = "enum", false;
    Const = "const", false;
    MultipleOf = "multipleOf", false;
    Maximum = "maximum", false;
    ExclusiveMaximum = "exclusiveMaximum", false;
    Minimum = "minimum", false;
    ExclusiveMinimum = "exclusiveMinimum", false;
    MaxLength = "maxLength", false;
    MinLength = "minLength", false;
    Pattern = "pattern", false;
    MaxItems = "maxItems", false;
    MinItems = "minItems", false;
    UniqueItems = "uniqueItems", false;
    MaxContains = "maxContains", false;
    MinContains = "minContains", false;
    MaxProperties = "maxProperties", false;
    MinProperties = "minProperties", false;
    Required = "required", false;
    DependentRequired = "dependentRequired", false;
    // `contentSchema` annotates only alongside `contentMediaType`: the compiler decides.
    ContentSchema = "contentSchema", true;
    Title = "title", true;
    Description = "description", true;
    Default = "default", true;
    Examples = "examples", true;
    ReadOnly = "readOnly", true;
    WriteOnly = "writeOnly", true;
    Deprecated = "deprecated", true;
    Format = "format", true;
    ContentEncoding = "contentEncoding", true;
    ContentMediaType = "contentMediaType", true;
}

/// One schema object's members: keywords by slot, and what `evaluate` keeps as
/// annotations (annotation keywords and unknown keywords, in key order).
pub(crate) struct Keys<'v> {
    slots: [Option<&'v Value>; COUNT],
    annotations: smallvec::SmallVec<[(&'v str, &'v Value); 4]>,
}

impl<'v> Keys<'v> {
    #[cfg(test)]
    pub(crate) fn of(map: &'v Map<String, Value>) -> Keys<'v> {
        let mut keys = Keys::empty();
        keys.read(map);
        keys
    }

    /// No members: filled in place by [`Keys::read`] (the struct is large to move).
    #[inline(always)]
    pub(crate) fn empty() -> Keys<'v> {
        Keys {
            slots: [None; COUNT],
            annotations: smallvec::SmallVec::new(),
        }
    }

    /// Sorts the members of `map` into their slots.
    pub(crate) fn read(&mut self, map: &'v Map<String, Value>) {
        for (k, v) in map {
            match kw_of(k) {
                Some(kw) => {
                    self.slots[kw as usize] = Some(v);
                    if ANNOTATION[kw as usize] {
                        self.annotations.push((k, v));
                    }
                }
                None => self.annotations.push((k, v)),
            }
        }
    }

    /// The member `name`: a slot read when `name` is a keyword, a map lookup otherwise.
    #[cfg(test)]
    pub(crate) fn get(&self, name: &str) -> Option<&'v Value> {
        match kw_of(name) {
            Some(kw) => self.slots[kw as usize],
            // Unknown keywords are all kept as annotations.
            None => self
                .annotations
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| *v),
        }
    }

    /// The keyword `kw`, if present.
    #[inline(always)]
    pub(crate) fn kw(&self, kw: Kw) -> Option<&'v Value> {
        self.slots[kw as usize]
    }

    #[inline(always)]
    pub(crate) fn has(&self, kw: Kw) -> bool {
        self.slots[kw as usize].is_some()
    }

    /// The members kept as annotations, in key order.
    pub(crate) fn annotations(&self) -> &[(&'v str, &'v Value)] {
        &self.annotations
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_has_its_own_signature() {
        for (i, name) in NAMES.iter().enumerate() {
            assert_eq!(kw_of(name).map(|k| k as usize), Some(i), "{name}");
        }
        for other in [
            "",
            "types",
            "Type",
            "$refs",
            "propertie",
            "x-custom",
            "tittle",
        ] {
            assert_eq!(kw_of(other), None, "{other}");
        }
    }

    #[test]
    fn slots_annotations_and_other_members() {
        let map = serde_json::json!({
            "type": "string", "title": "T", "x-extra": 1, "format": "date", "$comment": "c"
        });
        let keys = Keys::of(map.as_object().unwrap());
        assert_eq!(keys.get("type"), Some(&serde_json::json!("string")));
        assert_eq!(keys.get("x-extra"), Some(&serde_json::json!(1)));
        assert!(keys.get("minimum").is_none() && keys.get("nothing").is_none());
        let kept: Vec<&str> = keys.annotations().iter().map(|(k, _)| *k).collect();
        assert_eq!(kept, ["format", "title", "x-extra"]);
    }
}
