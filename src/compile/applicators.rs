//! The applicator keywords to `Keyword`s: object (`properties`, `patternProperties`,
//! `additionalProperties`, `propertyNames`, `dependentSchemas`...) and array (`items`,
//! `prefixItems`, `contains`...) subschemas minted as child nodes.

use super::*;

impl<'a> Compiler<'a> {
    pub(super) fn compile_object_applicators(
        &mut self,
        task: &Task<'a>,
        map: &Keys<'a>,
    ) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let d = task.dialect;
        let mut props_span = Span { start: 0, end: 0 };
        let mut patterns_span = Span { start: 0, end: 0 };
        if let Some(p) = map.kw(Kw::Properties) {
            let Value::Object(props) = p else {
                return Err(invalid(ptr, "properties", "must be an object of schemas"));
            };
            let start = self.out.properties.len() as u32;
            for (k, v) in props {
                let entry = (
                    Arc::from(k.as_str()),
                    self.child(task, &["properties", k], v),
                );
                self.out.properties.push(entry);
            }
            // In key order already, unless serde_json keeps insertion order.
            self.out.properties[start as usize..].sort_by(|a, b| a.0.cmp(&b.0));
            props_span = Span {
                start,
                end: self.out.properties.len() as u32,
            };
            // With `additionalProperties`, one pass over the instance does all three.
            if props_span.len() > 0 && !map.has(Kw::AdditionalProperties) {
                self.push_keyword(Keyword::Properties(props_span), "properties");
            }
        }
        if let Some(p) = map.kw(Kw::PatternProperties) {
            let Value::Object(pats) = p else {
                return Err(invalid(
                    ptr,
                    "patternProperties",
                    "must be an object of schemas",
                ));
            };
            let mut entries = Vec::with_capacity(pats.len());
            for (k, v) in pats {
                let pi = self.pattern(k, || pointer::join(ptr, &["patternProperties", k]))?;
                entries.push((pi, self.child(task, &["patternProperties", k], v)));
            }
            let start = self.out.pattern_properties.len() as u32;
            self.out.pattern_properties.extend(entries);
            patterns_span = Span {
                start,
                end: self.out.pattern_properties.len() as u32,
            };
            if patterns_span.len() > 0 && !map.has(Kw::AdditionalProperties) {
                self.push_keyword(
                    Keyword::PatternProperties(patterns_span),
                    "patternProperties",
                );
            }
        }
        if let Some(v) = map.kw(Kw::AdditionalProperties) {
            let node = self.child(task, &["additionalProperties"], v);
            self.out.additional.push(Additional {
                node,
                properties: props_span,
                patterns: patterns_span,
            });
            let i = AdditionalId::new(self.out.additional.len() - 1);
            self.push_keyword(Keyword::AdditionalProperties(i), "additionalProperties");
        }
        if d.at_least(Draft::Draft6)
            && let Some(v) = map.kw(Kw::PropertyNames)
        {
            let node = self.child(task, &["propertyNames"], v);
            self.push_keyword(Keyword::PropertyNames(node), "propertyNames");
        }
        // `dependencies` (both forms) is the keyword before 2019-09 and is kept as a
        // compatibility keyword after it, as the optional suite expects.
        let dep_keywords: &[&'static str] = if d.at_least(Draft::Draft201909) {
            &["dependentSchemas", "dependencies"]
        } else {
            &["dependencies"]
        };
        for &dep_schemas_kw in dep_keywords {
            self.dependent_schemas(task, map, dep_schemas_kw)?;
        }
        Ok(())
    }

    pub(super) fn dependent_schemas(
        &mut self,
        task: &Task<'a>,
        map: &Keys<'a>,
        dep_schemas_kw: &'static str,
    ) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let deps_kw = if dep_schemas_kw == "dependencies" {
            Kw::Dependencies
        } else {
            Kw::DependentSchemas
        };
        if let Some(ds) = map.kw(deps_kw) {
            let Value::Object(deps) = ds else {
                return Err(invalid(ptr, dep_schemas_kw, "must be an object"));
            };
            let mut entries = Vec::new();
            let mut required = Vec::new();
            for (k, v) in deps {
                if dep_schemas_kw == "dependencies" && v.is_array() {
                    required.push((k, v));
                } else {
                    entries.push((
                        Arc::from(k.as_str()),
                        self.child(task, &[dep_schemas_kw, k], v),
                    ));
                }
            }
            if !required.is_empty() {
                self.dependent_required(ptr, "dependencies", required.into_iter())?;
            }
            let start = self.out.dependent_schemas.len() as u32;
            self.out.dependent_schemas.extend(entries);
            let span = Span {
                start,
                end: self.out.dependent_schemas.len() as u32,
            };
            if span.len() > 0 {
                self.push_keyword(Keyword::DependentSchemas(span), dep_schemas_kw);
            }
        }
        Ok(())
    }

    pub(super) fn compile_array_applicators(
        &mut self,
        task: &Task<'a>,
        map: &Keys<'a>,
    ) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let d = task.dialect;
        if d.draft == Draft::Draft202012 {
            let mut prefix_len = 0u32;
            if let Some(p) = map.kw(Kw::PrefixItems) {
                let span = self.schema_list(task, "prefixItems", p)?;
                prefix_len = span.len() as u32;
                self.push_keyword(Keyword::PrefixItems(span), "prefixItems");
            }
            if let Some(items) = map.kw(Kw::Items) {
                if !(items.is_object() || items.is_boolean()) {
                    return Err(invalid(ptr, "items", "must be a schema"));
                }
                let node = self.child(task, &["items"], items);
                self.push_keyword(
                    Keyword::Items {
                        node,
                        skip: prefix_len,
                    },
                    "items",
                );
            }
        } else {
            match map.kw(Kw::Items) {
                Some(list @ Value::Array(_)) => {
                    let span = self.schema_list_allow_empty(task, "items", list)?;
                    let prefix_len = span.len() as u32;
                    self.push_keyword(Keyword::PrefixItems(span), "items");
                    if let Some(v) = map.kw(Kw::AdditionalItems) {
                        let node = self.child(task, &["additionalItems"], v);
                        self.push_keyword(
                            Keyword::Items {
                                node,
                                skip: prefix_len,
                            },
                            "additionalItems",
                        );
                    }
                }
                Some(v) if v.is_object() || v.is_boolean() => {
                    let node = self.child(task, &["items"], v);
                    self.push_keyword(Keyword::Items { node, skip: 0 }, "items");
                }
                Some(_) => {
                    return Err(invalid(
                        ptr,
                        "items",
                        "must be a schema or an array of schemas",
                    ));
                }
                None => {}
            }
        }
        if d.at_least(Draft::Draft6)
            && let Some(v) = map.kw(Kw::Contains)
        {
            let node = self.child(task, &["contains"], v);
            let (mut min, mut max) = (1u64, None);
            if d.at_least(Draft::Draft201909) && d.has(vocab::VALIDATION) {
                if let Some(v) = map.kw(Kw::MinContains) {
                    min = non_negative(v).ok_or_else(|| {
                        invalid(ptr, "minContains", "must be a non-negative integer")
                    })?;
                }
                if let Some(v) = map.kw(Kw::MaxContains) {
                    max = Some(non_negative(v).ok_or_else(|| {
                        invalid(ptr, "maxContains", "must be a non-negative integer")
                    })?);
                }
            }
            self.out.contains.push(Contains {
                node,
                min,
                max,
                annotates: d.at_least(Draft::Draft202012),
            });
            let i = ContainsId::new(self.out.contains.len() - 1);
            self.push_keyword(Keyword::Contains(i), "contains");
        }
        Ok(())
    }
}
