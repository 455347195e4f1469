//! Keywords to `Keyword`s: the assertions (type, numeric, string, array and object
//! bounds, `enum`/`const`, `pattern`, `required`, `dependentRequired`) and the annotation
//! keywords kept for `evaluate`; the applicators are in `applicators.rs`.

use super::*;

impl<'a> Compiler<'a> {
    pub(super) fn limit(&mut self, n: &Number) -> LimitId {
        let num = Num::of(n);
        // (Float to integer casts saturate: far limits stay past every `i64`.)
        let (floor, ceil, float) = match num {
            Num::Int(i) => (i, i, Some(i as f64).filter(|_| i.unsigned_abs() <= 1 << 53)),
            Num::Float(f) => (f.floor() as i128, f.ceil() as i128, Some(f)),
        };
        self.out.limits.push(Limit {
            number: n.clone(),
            num,
            decimal: None,
            floor,
            ceil,
            float,
        });
        LimitId::new(self.out.limits.len() - 1)
    }

    /// The compiled pattern `source` (shared by every keyword that uses it); `location`
    /// names the keyword for an error, built only then.
    pub(super) fn pattern(
        &mut self,
        source: &str,
        location: impl FnOnce() -> String,
    ) -> Result<PatternId, SchemaError> {
        if let Some(&i) = self.pattern_cache.get(source) {
            return Ok(i);
        }
        let p = Pattern::new(source, self.options.pattern_budget).map_err(|why| {
            SchemaError::new(
                SchemaErrorKind::InvalidPattern,
                location(),
                format!(
                    "invalid regular expression {:?}: {why}",
                    crate::error::clip(source)
                ),
            )
        })?;
        let i = PatternId::new(self.out.patterns.len());
        self.out.patterns.push(p);
        self.out.pattern_sources.push(Arc::from(source));
        self.pattern_cache.insert(source.to_string(), i);
        Ok(i)
    }

    pub(super) fn compile_keywords(
        &mut self,
        task: &Task<'a>,
        map: &Keys<'a>,
    ) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let d = task.dialect;
        let validation = d.has(vocab::VALIDATION);
        let applicator = d.has(vocab::APPLICATOR);
        self.record_annotations(task, map);

        // Cheap, likely-failing checks first.
        if validation {
            if let Some(t) = map.kw(Kw::Type) {
                let mut set = TypeSet::empty();
                let mut add = |v: &Value| -> Result<(), SchemaError> {
                    let ty = v.as_str().and_then(JsonType::from_name).ok_or_else(|| {
                        invalid(ptr, "type", "must be a type name or an array of type names")
                    })?;
                    // The meta-schemas require unique type names.
                    if set.contains(ty) {
                        return Err(invalid(ptr, "type", "names a type twice"));
                    }
                    set = set.with(ty);
                    Ok(())
                };
                match t {
                    Value::Array(items) if items.is_empty() => {
                        return Err(invalid(ptr, "type", "must name at least one type"));
                    }
                    Value::Array(items) => items.iter().try_for_each(&mut add)?,
                    other => add(other)?,
                }
                if d.draft == Draft::Draft4 {
                    // Draft 4: `1.0` is a number, not an integer.
                    set = set.strict_integers();
                }
                self.push_keyword(Keyword::Type(set), "type");
            }
            if d.at_least(Draft::Draft6)
                && let Some(c) = map.kw(Kw::Const)
            {
                self.out.values.push(c.clone());
                let i = ValueId::new(self.out.values.len() - 1);
                self.push_keyword(Keyword::Const(i), "const");
            }
            if let Some(e) = map.kw(Kw::Enum) {
                let Value::Array(items) = e else {
                    return Err(invalid(ptr, "enum", "must be an array"));
                };
                let start = self.out.values.len() as u32;
                self.out.values.extend(items.iter().cloned());
                let span = Span {
                    start,
                    end: self.out.values.len() as u32,
                };
                if span.len() > crate::schema::ENUM_SCAN_LIMIT && self.options.shortcuts {
                    accel::lookups::enum_table(&mut self.out, span);
                }
                self.push_keyword(Keyword::Enum(span), "enum");
            }
            self.compile_numeric(task, map)?;
            for (kw, make) in [
                (Kw::MinLength, Keyword::MinLength as fn(u64) -> Keyword),
                (Kw::MaxLength, Keyword::MaxLength),
                (Kw::MinItems, Keyword::MinItems),
                (Kw::MaxItems, Keyword::MaxItems),
                (Kw::MinProperties, Keyword::MinProperties),
                (Kw::MaxProperties, Keyword::MaxProperties),
            ] {
                if let Some(v) = map.kw(kw) {
                    let kw = kw.name();
                    let n = non_negative(v)
                        .ok_or_else(|| invalid(ptr, kw, "must be a non-negative integer"))?;
                    self.push_keyword(make(n), kw);
                }
            }
            if let Some(p) = map.kw(Kw::Pattern) {
                let Value::String(source) = p else {
                    return Err(invalid(ptr, "pattern", "must be a string"));
                };
                let i = self.pattern(source, || pointer::join(ptr, &["pattern"]))?;
                self.push_keyword(Keyword::Pattern(i), "pattern");
            }
            if let Some(r) = map.kw(Kw::Required) {
                let Value::Array(items) = r else {
                    return Err(invalid(ptr, "required", "must be an array of strings"));
                };
                let start = self.out.strings.len() as u32;
                for item in items {
                    let s = item
                        .as_str()
                        .ok_or_else(|| invalid(ptr, "required", "must be an array of strings"))?;
                    self.out.strings.push(Arc::from(s));
                }
                // The meta-schemas require unique names: compared pairwise when the list
                // is short (most are), through a set otherwise.
                let names = &self.out.strings[start as usize..];
                let repeated = if names.len() <= 16 {
                    (1..names.len()).any(|j| names[..j].contains(&names[j]))
                } else {
                    let mut seen = ahash::AHashSet::with_capacity(names.len());
                    !names.iter().all(|n| seen.insert(n))
                };
                if repeated {
                    return Err(invalid(ptr, "required", "names a property twice"));
                }
                let span = Span {
                    start,
                    end: self.out.strings.len() as u32,
                };
                if span.len() > 0 {
                    self.push_keyword(Keyword::Required(span), "required");
                }
            }
            if d.at_least(Draft::Draft201909)
                && let Some(dr) = map.kw(Kw::DependentRequired)
            {
                let Value::Object(deps) = dr else {
                    return Err(invalid(
                        ptr,
                        "dependentRequired",
                        "must be an object of string arrays",
                    ));
                };
                self.dependent_required(ptr, "dependentRequired", deps.iter())?;
            }
        }
        if let Some(f) = map.kw(Kw::Format) {
            let Value::String(name) = f else {
                return Err(invalid(ptr, "format", "must be a string"));
            };
            let custom = self
                .options
                .custom_formats
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, f)| *f);
            let asserts = self.options.assert_formats || d.has(vocab::FORMAT_ASSERTION);
            let known = custom.is_some() || crate::format::check(name, "").is_some();
            if asserts && known {
                self.out.formats.push(FormatCheck {
                    name: Arc::from(name.as_str()),
                    assert: true,
                    custom,
                });
                let i = FormatId::new(self.out.formats.len() - 1);
                self.push_keyword(Keyword::Format(i), "format");
            }
        }
        if self.options.assert_content && d.at_least(Draft::Draft7) {
            let encoding = map
                .kw(Kw::ContentEncoding)
                .and_then(Value::as_str)
                .filter(|e| *e == "base64");
            let media = map
                .kw(Kw::ContentMediaType)
                .and_then(Value::as_str)
                .filter(|m| *m == "application/json");
            if encoding.is_some() || media.is_some() {
                self.out.contents.push(ContentCheck {
                    encoding: encoding.map(Arc::from),
                    media_type: media.map(Arc::from),
                });
                let i = ContentId::new(self.out.contents.len() - 1);
                self.push_keyword(Keyword::Content(i), "contentMediaType");
            }
        }

        // References.
        if let Some(r) = map.kw(Kw::Ref) {
            let r = r
                .as_str()
                .ok_or_else(|| invalid(ptr, "$ref", "must be a string"))?;
            self.add_ref(task, r, RefKind::Ref)?;
            // (An `allOf` of the reference and the node, to `fuse`.)
            self.all_ofs |= [
                Kw::Properties,
                Kw::AdditionalProperties,
                Kw::Items,
                Kw::UnevaluatedProperties,
            ]
            .into_iter()
            .any(|kw| map.has(kw));
        }
        if d.draft == Draft::Draft202012
            && let Some(r) = map.kw(Kw::DynamicRef)
        {
            let r = r
                .as_str()
                .ok_or_else(|| invalid(ptr, "$dynamicRef", "must be a string"))?;
            self.add_ref(task, r, RefKind::Dynamic)?;
        }
        if d.draft == Draft::Draft201909
            && let Some(r) = map.kw(Kw::RecursiveRef)
        {
            let r = r
                .as_str()
                .ok_or_else(|| invalid(ptr, "$recursiveRef", "must be a string"))?;
            // Draft 2019-09 defines the keyword for "#" alone and lets implementations
            // refuse other values (core, 8.2.4.2.1): refused, rather than read as "#".
            if r != "#" {
                return Err(invalid(
                    ptr,
                    "$recursiveRef",
                    "must be \"#\" (draft 2019-09 defines no other value)",
                ));
            }
            self.add_ref(task, r, RefKind::Recursive)?;
        }

        if applicator {
            self.compile_object_applicators(task, map)?;
            self.compile_array_applicators(task, map)?;
            for (kw, make) in [
                (Kw::AllOf, Keyword::AllOf as fn(Span) -> Keyword),
                (Kw::AnyOf, Keyword::AnyOf),
                (Kw::OneOf, Keyword::OneOf),
            ] {
                if let Some(v) = map.kw(kw) {
                    self.all_ofs |= kw == Kw::AllOf;
                    let kw = kw.name();
                    let span = self.schema_list(task, kw, v)?;
                    self.push_keyword(make(span), kw);
                }
            }
            if let Some(not) = map.kw(Kw::Not) {
                let id = self.child(task, &["not"], not);
                self.push_keyword(Keyword::Not(id), "not");
            }
            if d.at_least(Draft::Draft7) {
                // `then`/`else` without `if` do nothing, but may still hold resources.
                let then = match map.kw(Kw::Then) {
                    Some(v) => self.child(task, &["then"], v),
                    None => NodeId::NONE,
                };
                let els = match map.kw(Kw::Else) {
                    Some(v) => self.child(task, &["else"], v),
                    None => NodeId::NONE,
                };
                if let Some(v) = map.kw(Kw::If) {
                    // Kept even without `then`/`else`: its annotations reach `unevaluated*`.
                    let cond = self.child(task, &["if"], v);
                    self.push_keyword(Keyword::If { cond, then, els }, "if");
                    self.conditions = true;
                }
            }
        }
        if validation && matches!(map.kw(Kw::UniqueItems), Some(Value::Bool(true))) {
            self.push_keyword(Keyword::UniqueItems, "uniqueItems");
        } else if let Some(u) = map.kw(Kw::UniqueItems)
            && !u.is_boolean()
        {
            return Err(invalid(ptr, "uniqueItems", "must be a boolean"));
        }
        if d.has(vocab::UNEVALUATED) && d.at_least(Draft::Draft201909) {
            if let Some(v) = map.kw(Kw::UnevaluatedProperties) {
                let id = self.child(task, &["unevaluatedProperties"], v);
                self.push_keyword(Keyword::UnevaluatedProperties(id), "unevaluatedProperties");
            }
            if let Some(v) = map.kw(Kw::UnevaluatedItems) {
                let id = self.child(task, &["unevaluatedItems"], v);
                self.push_keyword(Keyword::UnevaluatedItems(id), "unevaluatedItems");
            }
        }
        Ok(())
    }

    /// Keeps the node's annotation keywords (meta-data, format, content, unknown keywords)
    /// for the `evaluate` path.
    pub(super) fn record_annotations(&mut self, task: &Task<'a>, map: &Keys<'a>) {
        let start = self.out.annotation_values.len() as u32;
        for &(k, v) in map.annotations() {
            // `contentSchema` only annotates alongside `contentMediaType`.
            if k == "contentSchema" && !map.has(Kw::ContentMediaType) {
                continue;
            }
            let name = self.text(k);
            let value = match v {
                Value::String(text) => self.text(text),
                other => self.other_annotation(other.clone()),
            };
            self.out.annotation_values.push(Annotation { name, value });
        }
        let end = self.out.annotation_values.len() as u32;
        self.out.node_annotations[task.node.index()] = Span { start, end };
    }

    /// The string `s`, appended to the annotation text (while its offsets fit in `u32`).
    pub(super) fn text(&mut self, s: &str) -> AnnotationValue {
        let text = &mut self.out.annotation_text;
        let (start, end) = (text.len(), text.len().saturating_add(s.len()));
        match (u32::try_from(start), u32::try_from(end)) {
            (Ok(start), Ok(end)) => {
                text.push_str(s);
                AnnotationValue::Text(Span { start, end })
            }
            _ => self.other_annotation(Value::String(s.to_string())),
        }
    }

    /// An annotation value kept as it is, in `annotation_others`.
    pub(super) fn other_annotation(&mut self, v: Value) -> AnnotationValue {
        let others = &mut self.out.annotation_others;
        others.push(v);
        AnnotationValue::Other(u32::try_from(others.len() - 1).unwrap_or(u32::MAX))
    }

    pub(super) fn compile_numeric(
        &mut self,
        task: &Task<'a>,
        map: &Keys<'a>,
    ) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let num = |kw: Kw| -> Result<Option<&Number>, SchemaError> {
            match map.kw(kw) {
                None => Ok(None),
                Some(Value::Number(n)) => Ok(Some(n)),
                Some(_) => Err(invalid(ptr, kw.name(), "must be a number")),
            }
        };
        if let Some(m) = num(Kw::MultipleOf)? {
            if m.as_f64().is_none_or(|f| f <= 0.0) {
                return Err(invalid(
                    ptr,
                    "multipleOf",
                    "must be a number greater than 0",
                ));
            }
            let i = self.limit(m);
            self.out.limits[i.index()].decimal = crate::json::decimal(m);
            self.push_keyword(Keyword::MultipleOf(i), "multipleOf");
        }
        if task.dialect.draft == Draft::Draft4 {
            // Draft 4: boolean `exclusiveMaximum`/`exclusiveMinimum` modify their siblings.
            let flag = |kw: Kw| -> Result<bool, SchemaError> {
                match map.kw(kw) {
                    None => Ok(false),
                    Some(Value::Bool(b)) => Ok(*b),
                    Some(_) => Err(invalid(ptr, kw.name(), "must be a boolean in draft 4")),
                }
            };
            if let Some(m) = num(Kw::Maximum)? {
                let i = self.limit(m);
                let kw = if flag(Kw::ExclusiveMaximum)? {
                    Keyword::ExclusiveMaximum(i)
                } else {
                    Keyword::Maximum(i)
                };
                self.push_keyword(kw, "maximum");
            }
            if let Some(m) = num(Kw::Minimum)? {
                let i = self.limit(m);
                let kw = if flag(Kw::ExclusiveMinimum)? {
                    Keyword::ExclusiveMinimum(i)
                } else {
                    Keyword::Minimum(i)
                };
                self.push_keyword(kw, "minimum");
            }
            return Ok(());
        }
        for (kw, make) in [
            (Kw::Maximum, Keyword::Maximum as fn(LimitId) -> Keyword),
            (Kw::ExclusiveMaximum, Keyword::ExclusiveMaximum),
            (Kw::Minimum, Keyword::Minimum),
            (Kw::ExclusiveMinimum, Keyword::ExclusiveMinimum),
        ] {
            if let Some(m) = num(kw)? {
                let i = self.limit(m);
                self.push_keyword(make(i), kw.name());
            }
        }
        Ok(())
    }

    pub(super) fn dependent_required<'m>(
        &mut self,
        ptr: &str,
        kw: &'static str,
        deps: impl Iterator<Item = (&'m String, &'m Value)>,
    ) -> Result<(), SchemaError> {
        let start = self.out.dependent_required.len() as u32;
        for (name, list) in deps {
            let Value::Array(items) = list else {
                return Err(invalid(
                    ptr,
                    kw,
                    "each dependency must be an array of strings",
                ));
            };
            let s_start = self.out.strings.len() as u32;
            for item in items {
                let s = item.as_str().ok_or_else(|| {
                    invalid(ptr, kw, "each dependency must be an array of strings")
                })?;
                self.out.strings.push(Arc::from(s));
            }
            let span = Span {
                start: s_start,
                end: self.out.strings.len() as u32,
            };
            self.out
                .dependent_required
                .push((Arc::from(name.as_str()), span));
        }
        let span = Span {
            start,
            end: self.out.dependent_required.len() as u32,
        };
        if span.len() > 0 {
            self.push_keyword(Keyword::DependentRequired(span), kw);
        }
        Ok(())
    }
}
