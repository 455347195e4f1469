//! Upgrading a draft-04, -06, -07 or 2019-09 schema to a 2020-12 schema that accepts
//! exactly the same instances, or refusing with the reason when 2020-12 cannot say the same.
//!
//! ```
//! use toolschema::{Draft, upgrade::upgrade};
//! use serde_json::json;
//!
//! let old = json!({
//!     "$schema": "http://json-schema.org/draft-07/schema#",
//!     "definitions": {"pos": {"type": "integer", "minimum": 0}},
//!     "type": "array",
//!     "items": [{"$ref": "#/definitions/pos"}],
//!     "additionalItems": false
//! });
//! assert_eq!(upgrade(&old, Draft::Draft7)?, json!({
//!     "$schema": "https://json-schema.org/draft/2020-12/schema",
//!     "$defs": {"pos": {"type": "integer", "minimum": 0}},
//!     "type": "array",
//!     "prefixItems": [{"$ref": "#/$defs/pos"}],
//!     "items": false
//! }));
//! # Ok::<(), toolschema::upgrade::UpgradeError>(())
//! ```
//!
//! What is rewritten: `id` (draft 4) and `$id` fragments become `$id` and `$anchor`;
//! `definitions` becomes `$defs`; array `items`/`additionalItems` become
//! `prefixItems`/`items`; `dependencies` becomes `dependentRequired`/`dependentSchemas`;
//! draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers; siblings of `$ref`
//! that drafts 4 to 7 ignore are dropped; `$recursiveAnchor`/`$recursiveRef` become
//! `$dynamicAnchor`/`$dynamicRef`; keywords the source draft does not know but 2020-12 would
//! apply (`const` in draft 4, `if` in draft 6, `contentMediaType` before draft 7, ...) are
//! dropped; every `$ref` whose JSON Pointer crosses a renamed keyword is rewritten.
//! Embedded resources with their own `$schema` are upgraded from their own draft.
//!
//! What is refused ([`UpgradeError`]): a draft-04 `"type": "integer"` without `"number"`
//! (draft 4 refuses `1.0`, which 2020-12 cannot tell from `1`); a 2019-09 document that
//! has both `contains` and `unevaluatedItems` (2019-09 `contains` does not mark items
//! evaluated, 2020-12 `contains` does); a `$schema` naming no standard draft; a reference
//! into a part the upgrade drops; and malformed keywords.

use crate::Draft;
use crate::compile::{dialect, pointer, uri};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// The `$schema` URI of 2020-12.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Why a schema cannot be upgraded, and where.
///
/// ```
/// use toolschema::{Draft, upgrade::upgrade};
/// use serde_json::json;
///
/// let err = upgrade(&json!({"properties": {"n": {"type": "integer"}}}), Draft::Draft4).unwrap_err();
/// assert_eq!(err.location, "/properties/n/type");
/// assert!(err.reason.contains("1.0"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpgradeError {
    /// A JSON Pointer into the original schema (empty for the root).
    pub location: String,
    /// Why, in one lowercase line.
    pub reason: String,
}

impl UpgradeError {
    fn new(location: &str, reason: impl Into<String>) -> UpgradeError {
        UpgradeError {
            location: location.to_string(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for UpgradeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = if self.location.is_empty() {
            "/"
        } else {
            &self.location
        };
        write!(f, "{loc}: {}", self.reason)
    }
}

impl std::error::Error for UpgradeError {}

/// Rewrites `schema` into a 2020-12 schema that accepts exactly the same instances.
///
/// `default_draft` is the dialect of a schema that declares no `$schema`. A 2020-12
/// schema comes back unchanged but for its references, which are kept. The result
/// declares `"$schema": "https://json-schema.org/draft/2020-12/schema"` at its root
/// (a boolean schema stays a boolean). Documents the schema references by URI are not
/// part of it and are left alone.
///
/// # Errors
/// An [`UpgradeError`] when 2020-12 has no exact equivalent, or the schema is malformed
/// where the upgrade must read it.
pub fn upgrade(schema: &Value, default_draft: Draft) -> Result<Value, UpgradeError> {
    upgrade_reading(schema, default_draft, false).map(|(v, _)| v)
}

/// A tool schema as MCP clients are shown it, and as it is then enforced: see [`for_listing`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Listing {
    /// The schema is already 2020-12 (it declares no `$schema`, or 2020-12's): shown as it is.
    Unchanged,
    /// The schema declares an older draft: shown, and enforced, as this 2020-12 schema (its
    /// `$schema` dropped: 2020-12 is what MCP clients read a schema without one as).
    Upgraded {
        /// The 2020-12 schema.
        schema: Value,
        /// Where the original has a draft-04 `"type": "integer"`, now read as 2020-12's
        /// `integer`, which also admits a number written with a zero fraction (`1.0`), as
        /// every later draft does. Empty when the upgrade is exact.
        widened: Vec<String>,
    },
    /// No 2020-12 schema says the same: shown, and enforced, as declared (its `$schema`
    /// kept, so a client sees which dialect it is in).
    AsDeclared(UpgradeError),
}

/// The one listing rule for tool schemas (`serve`, `serve --http`, the proxy, the library's
/// `Server`): what a client is shown is exactly what is then enforced.
///
/// MCP clients read schemas as 2020-12. A schema declaring draft-04, -06, -07 or 2019-09 is
/// [`upgrade`]d, and the upgraded schema is both listed and compiled for validation. The one
/// difference 2020-12 cannot express, draft-04's `"integer"` refusing `1.0`, is widened:
/// the listing says `"integer"`, which a 2020-12 client reads as admitting `1.0`, so `1.0`
/// is accepted (Python clients send `1.0` for a float-typed `1`). Any other schema without
/// an exact 2020-12 form is listed and enforced as declared.
///
/// ```
/// use toolschema::upgrade::{for_listing, Listing};
/// use serde_json::json;
///
/// let d4 = json!({"$schema": "http://json-schema.org/draft-04/schema#",
///                 "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}});
/// let Listing::Upgraded { schema, widened } = for_listing(&d4) else { panic!() };
/// assert_eq!(schema, json!({"properties": {"n": {"type": "integer", "exclusiveMinimum": 0}}}));
/// assert_eq!(widened, ["/properties/n/type"]);
/// assert_eq!(for_listing(&json!({"type": "object"})), Listing::Unchanged);
/// ```
pub fn for_listing(schema: &Value) -> Listing {
    let declared = match schema.get("$schema") {
        None => return Listing::Unchanged,
        Some(s) => match declared_draft(s, "/$schema") {
            Ok(Draft::Draft202012) => return Listing::Unchanged,
            Ok(d) => d,
            Err(e) => return Listing::AsDeclared(e),
        },
    };
    match upgrade_reading(schema, declared, true) {
        Ok((mut schema, widened)) => {
            if let Value::Object(m) = &mut schema {
                m.remove("$schema");
            }
            Listing::Upgraded { schema, widened }
        }
        Err(e) => Listing::AsDeclared(e),
    }
}

/// [`upgrade`], reading draft-04 `"integer"` as 2020-12's when `widen_integers` (the places
/// where it did are returned).
fn upgrade_reading(
    schema: &Value,
    default_draft: Draft,
    widen_integers: bool,
) -> Result<(Value, Vec<String>), UpgradeError> {
    let mut up = Upgrader {
        widen_integers,
        widened: Vec::new(),
        resources: HashMap::new(),
        refs: Vec::new(),
        anchors: Vec::new(),
        recursive: Vec::new(),
        contains: None,
        unevaluated_items: None,
        alike: HashMap::new(),
        budget: LOCATION_BUDGET,
    };
    let ctx = Ctx {
        draft: default_draft,
        base: Rc::from(uri::DEFAULT_BASE),
        path: String::new(),
        out_path: String::new(),
    };
    up.resources.insert(
        uri::DEFAULT_BASE.to_string(),
        Resource {
            path: String::new(),
            node: Some(schema),
            draft: root_draft(schema, default_draft)?,
            recursive: false,
        },
    );
    let mut out = up.schema(schema, ctx, true)?;
    if let (Some(at), Some(_)) = (&up.unevaluated_items, &up.contains) {
        return Err(UpgradeError::new(
            at,
            "2019-09 `contains` does not mark items evaluated for `unevaluatedItems`, \
             2020-12 `contains` does: no exact equivalent",
        ));
    }
    // The name the `$recursiveAnchor`s become: one no `$anchor` uses.
    let mut name = "recursive".to_string();
    let mut n = 0;
    while up.anchors.contains(&name) {
        n += 1;
        name = format!("recursive{n}");
    }
    for out_path in &up.recursive {
        if let Some(Value::Object(map)) = out.pointer_mut(out_path) {
            map.insert("$dynamicAnchor".into(), Value::String(name.clone()));
        }
    }
    for r in std::mem::take(&mut up.refs) {
        let new = match r.kind {
            RefKind::Ref => up.rewrite_ref(&r)?,
            RefKind::Recursive => {
                let dynamic = up.resources.get(&*r.base).is_some_and(|res| res.recursive);
                if dynamic {
                    format!("#{name}")
                } else {
                    "#".to_string()
                }
            }
        };
        let kw = match r.kind {
            RefKind::Recursive if new != "#" => "$dynamicRef",
            _ => "$ref",
        };
        if let Some(Value::Object(map)) = out.pointer_mut(&r.out_path) {
            if kw == "$ref" && r.kind == RefKind::Recursive && map.contains_key("$ref") {
                return Err(UpgradeError::new(
                    &r.path,
                    "`$recursiveRef` beside `$ref` without a `$recursiveAnchor`: 2020-12 has one `$ref` per schema",
                ));
            }
            map.insert(kw.into(), Value::String(new));
        }
    }
    if let Value::Object(map) = &mut out {
        map.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
    }
    Ok((out, up.widened))
}

/// A schema resource of the original document.
struct Resource<'a> {
    /// Where its root is (a JSON Pointer into the original).
    path: String,
    /// Its root (`None` for the document's until it is read).
    node: Option<&'a Value>,
    draft: Draft,
    /// A 2019-09 resource whose root says `"$recursiveAnchor": true`.
    recursive: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RefKind {
    Ref,
    Recursive,
}

/// A reference to rewrite once every resource is known.
struct PendingRef {
    kind: RefKind,
    value: String,
    base: Rc<str>,
    path: String,
    out_path: String,
}

struct Upgrader<'a> {
    /// Read draft-04 `"integer"` as 2020-12's (see [`for_listing`]).
    widen_integers: bool,
    /// Where it did.
    widened: Vec<String>,
    resources: HashMap<String, Resource<'a>>,
    refs: Vec<PendingRef>,
    anchors: Vec<String>,
    recursive: Vec<String>,
    contains: Option<String>,
    unevaluated_items: Option<String>,
    /// Whether a schema inside an unknown keyword reads alike in its draft and 2020-12,
    /// by its address (many references may land on one).
    alike: HashMap<(usize, Draft, String), bool>,
    /// The location text still allowed (see [`LOCATION_BUDGET`]).
    budget: usize,
}

/// The most location text (JSON Pointers of the subschemas, summed) an upgrade builds: a
/// hostile schema (long keys above many subschemas, or very deep) is refused, not
/// upgraded in quadratic time and memory.
const LOCATION_BUDGET: usize = 64 << 20;

#[derive(Clone)]
struct Ctx {
    draft: Draft,
    base: Rc<str>,
    path: String,
    out_path: String,
}

impl Ctx {
    fn child(&self, segments: &[&str], out_segments: &[&str]) -> Ctx {
        Ctx {
            draft: self.draft,
            base: self.base.clone(),
            path: pointer::join(&self.path, segments),
            out_path: pointer::join(&self.out_path, out_segments),
        }
    }
}

fn rank(d: Draft) -> u8 {
    match d {
        Draft::Draft4 => 4,
        Draft::Draft6 => 6,
        Draft::Draft7 => 7,
        Draft::Draft201909 => 8,
        _ => 9,
    }
}

fn draft_name(d: Draft) -> &'static str {
    match d {
        Draft::Draft4 => "draft 4",
        Draft::Draft6 => "draft 6",
        Draft::Draft7 => "draft 7",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
    }
}

fn id_keyword(d: Draft) -> &'static str {
    if d == Draft::Draft4 { "id" } else { "$id" }
}

/// The draft of the document root.
fn root_draft(schema: &Value, default: Draft) -> Result<Draft, UpgradeError> {
    match schema.get("$schema") {
        Some(s) => declared_draft(s, "/$schema"),
        None => Ok(default),
    }
}

fn declared_draft(s: &Value, at: &str) -> Result<Draft, UpgradeError> {
    let s = s
        .as_str()
        .ok_or_else(|| UpgradeError::new(at, "`$schema` must be a string"))?;
    dialect::draft_of_uri(s).ok_or_else(|| {
        UpgradeError::new(
            at,
            format!("`$schema` {s:?} names no standard draft: its vocabularies cannot be upgraded"),
        )
    })
}

/// Whether the source draft knows `kw` as a keyword that 2020-12 also applies, or one the
/// upgrade translates. Keywords that only annotate are always kept.
fn known(d: Draft, kw: &str) -> bool {
    let r = rank(d);
    match kw {
        "$ref"
        | "$schema"
        | "properties"
        | "patternProperties"
        | "additionalProperties"
        | "items"
        | "allOf"
        | "anyOf"
        | "oneOf"
        | "not"
        | "type"
        | "enum"
        | "multipleOf"
        | "maximum"
        | "exclusiveMaximum"
        | "minimum"
        | "exclusiveMinimum"
        | "maxLength"
        | "minLength"
        | "pattern"
        | "maxItems"
        | "minItems"
        | "uniqueItems"
        | "maxProperties"
        | "minProperties"
        | "required"
        | "format"
        | "dependencies"
        | "definitions"
        | "additionalItems"
        | "$defs" => true,
        "id" => r == 4,
        "$id" => r >= 6,
        "const" | "contains" | "propertyNames" => r >= 6,
        "if" | "then" | "else" | "contentEncoding" | "contentMediaType" => r >= 7,
        "$anchor"
        | "$recursiveRef"
        | "$recursiveAnchor"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "maxContains"
        | "minContains"
        | "contentSchema"
        | "$vocabulary" => r >= 8,
        "$dynamicRef" | "$dynamicAnchor" | "prefixItems" => r >= 9,
        _ => false,
    }
}

/// Keywords 2020-12 gives a meaning to (validation, identifiers, applicators): an unknown
/// one of these in the source must go, since 2020-12 would apply it.
fn applies_in_2020(kw: &str) -> bool {
    matches!(
        kw,
        "$id"
            | "$anchor"
            | "$dynamicAnchor"
            | "$dynamicRef"
            | "$ref"
            | "$vocabulary"
            | "$defs"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "if"
            | "then"
            | "else"
            | "dependentSchemas"
            | "prefixItems"
            | "items"
            | "contains"
            | "properties"
            | "patternProperties"
            | "additionalProperties"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "type"
            | "const"
            | "enum"
            | "multipleOf"
            | "maximum"
            | "exclusiveMaximum"
            | "minimum"
            | "exclusiveMinimum"
            | "maxLength"
            | "minLength"
            | "pattern"
            | "maxItems"
            | "minItems"
            | "uniqueItems"
            | "maxContains"
            | "minContains"
            | "maxProperties"
            | "minProperties"
            | "required"
            | "dependentRequired"
            | "format"
            | "contentEncoding"
            | "contentMediaType"
            | "contentSchema"
            | "$schema"
            // (This engine keeps both as compatibility keywords in 2020-12.)
            | "dependencies"
            | "definitions"
    )
}

/// A keyword whose value is one schema, in draft `d`.
fn single_schema(d: Draft, kw: &str) -> bool {
    known(d, kw)
        && matches!(
            kw,
            "additionalProperties"
                | "not"
                | "contains"
                | "propertyNames"
                | "if"
                | "then"
                | "else"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema"
        )
}

/// A keyword whose value is an object of schemas.
fn schema_map(d: Draft, kw: &str) -> bool {
    known(d, kw) && matches!(kw, "properties" | "patternProperties" | "dependentSchemas")
}

/// A keyword whose value is an array of schemas.
fn schema_array(kw: &str) -> bool {
    matches!(kw, "allOf" | "anyOf" | "oneOf")
}

fn is_schema(v: &Value) -> bool {
    v.is_object() || v.is_boolean()
}

fn is_anchor_name(a: &str) -> bool {
    let mut chars = a.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn malformed(at: &str, kw: &str, what: &str) -> UpgradeError {
    UpgradeError::new(&pointer::join(at, &[kw]), format!("`{kw}` {what}"))
}

impl<'a> Upgrader<'a> {
    /// The upgraded form of the schema at `ctx`.
    fn schema(&mut self, v: &'a Value, ctx: Ctx, is_root: bool) -> Result<Value, UpgradeError> {
        let cost = ctx.path.len() + ctx.out_path.len() + 16;
        self.budget = self.budget.checked_sub(cost).ok_or_else(|| {
            UpgradeError::new(
                "",
                "the schema is too large to upgrade: its subschemas' locations add up to more than 64 MiB",
            )
        })?;
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || match v {
            Value::Object(map) => self.object(v, map, ctx, is_root),
            Value::Bool(_) => Ok(v.clone()),
            _ => Err(UpgradeError::new(
                &ctx.path,
                "a schema must be an object or a boolean",
            )),
        })
    }

    fn object(
        &mut self,
        node: &'a Value,
        map: &'a Map<String, Value>,
        mut ctx: Ctx,
        is_root: bool,
    ) -> Result<Value, UpgradeError> {
        let mut out = Map::new();
        // `$schema` counts on resource roots only.
        let mut new_dialect = false;
        if let Some(s) = map.get("$schema")
            && (is_root || map.contains_key("$id") || map.contains_key(id_keyword(ctx.draft)))
        {
            let at = pointer::join(&ctx.path, &["$schema"]);
            ctx.draft = declared_draft(s, &at)?;
            new_dialect = true;
        }
        let d = ctx.draft;
        let old = rank(d) <= 7;
        let ref_only = old && map.contains_key("$ref");

        // The identifier: a new base and resource, or an anchor.
        let id_kw = id_keyword(d);
        if !ref_only && let Some(idv) = map.get(id_kw) {
            let id = idv
                .as_str()
                .ok_or_else(|| malformed(&ctx.path, id_kw, "must be a string"))?;
            let resolved = uri::resolve(id, &ctx.base)
                .map_err(|why| malformed(&ctx.path, id_kw, &format!("is not a URI: {why}")))?;
            let (no_fragment, fragment) = uri::split_fragment(&resolved);
            if !fragment.is_empty() {
                if !is_anchor_name(fragment) {
                    return Err(malformed(
                        &ctx.path,
                        id_kw,
                        &format!("has the fragment {fragment:?}, which is no 2020-12 anchor name"),
                    ));
                }
                self.anchors.push(fragment.to_string());
                out.insert("$anchor".into(), Value::String(fragment.to_string()));
            }
            if !id.starts_with('#') {
                let kept = id.split('#').next().unwrap_or_default();
                out.insert("$id".into(), Value::String(kept.to_string()));
                ctx.base = Rc::from(no_fragment);
                let recursive = d == Draft::Draft201909
                    && map.get("$recursiveAnchor") == Some(&Value::Bool(true));
                self.resources.insert(
                    no_fragment.to_string(),
                    Resource {
                        path: ctx.path.clone(),
                        node: Some(node),
                        draft: d,
                        recursive,
                    },
                );
            }
        }
        if is_root
            && let Some(res) = self.resources.get_mut(uri::DEFAULT_BASE)
            && res.path == ctx.path
        {
            res.recursive =
                d == Draft::Draft201909 && map.get("$recursiveAnchor") == Some(&Value::Bool(true));
        }
        if new_dialect && !is_root {
            out.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
        }

        let items_is_array = map.get("items").is_some_and(Value::is_array);
        let mut defs = Map::new();
        for (kw, v) in map {
            let kw = kw.as_str();
            match kw {
                "$schema" => {}
                "definitions" | "$defs" => {
                    let Value::Object(entries) = v else {
                        if known(d, kw) && (kw != "definitions" || old || d == Draft::Draft201909) {
                            return Err(malformed(&ctx.path, kw, "must be an object of schemas"));
                        }
                        continue;
                    };
                    if !entries.values().all(is_schema) {
                        if kw == "$defs" && rank(d) < 8 {
                            continue;
                        }
                        return Err(malformed(&ctx.path, kw, "must be an object of schemas"));
                    }
                    for (name, def) in entries {
                        if defs.contains_key(name) {
                            return Err(UpgradeError::new(
                                &pointer::join(&ctx.path, &[kw, name]),
                                format!(
                                    "both `definitions` and `$defs` define {name:?}: they cannot merge"
                                ),
                            ));
                        }
                        let child =
                            self.schema(def, ctx.child(&[kw, name], &["$defs", name]), false)?;
                        defs.insert(name.clone(), child);
                    }
                }
                _ if ref_only && kw != "$ref" => {}
                "$ref" => {
                    let r = v
                        .as_str()
                        .ok_or_else(|| malformed(&ctx.path, "$ref", "must be a string"))?;
                    self.refs.push(PendingRef {
                        kind: RefKind::Ref,
                        value: r.to_string(),
                        base: ctx.base.clone(),
                        path: ctx.path.clone(),
                        out_path: ctx.out_path.clone(),
                    });
                    out.insert("$ref".into(), v.clone());
                }
                _ if kw == id_kw => {}
                "$anchor" if known(d, kw) => {
                    if let Some(a) = v.as_str() {
                        self.anchors.push(a.to_string());
                    }
                    out.insert(kw.into(), v.clone());
                }
                "$recursiveAnchor" if known(d, kw) => {
                    let is_resource_root = self
                        .resources
                        .get(&*ctx.base)
                        .is_some_and(|r| r.path == ctx.path);
                    if *v == Value::Bool(true) && is_resource_root {
                        self.recursive.push(ctx.out_path.clone());
                    } else if !v.is_boolean() {
                        return Err(malformed(&ctx.path, kw, "must be a boolean"));
                    }
                }
                "$recursiveRef" if known(d, kw) => {
                    if v.as_str() != Some("#") {
                        return Err(malformed(
                            &ctx.path,
                            kw,
                            "is not \"#\": 2019-09 defines no other form",
                        ));
                    }
                    self.refs.push(PendingRef {
                        kind: RefKind::Recursive,
                        value: "#".into(),
                        base: ctx.base.clone(),
                        path: ctx.path.clone(),
                        out_path: ctx.out_path.clone(),
                    });
                }
                "items" => match v {
                    Value::Array(list) => {
                        if list.is_empty() {
                            continue;
                        }
                        let mut outs = Vec::with_capacity(list.len());
                        for (i, s) in list.iter().enumerate() {
                            let i = i.to_string();
                            outs.push(self.schema(
                                s,
                                ctx.child(&["items", &i], &["prefixItems", &i]),
                                false,
                            )?);
                        }
                        out.insert("prefixItems".into(), Value::Array(outs));
                    }
                    _ => {
                        let s = self.schema(v, ctx.child(&["items"], &["items"]), false)?;
                        out.insert("items".into(), s);
                    }
                },
                "additionalItems" if items_is_array => {
                    let s = self.schema(v, ctx.child(&["additionalItems"], &["items"]), false)?;
                    out.insert("items".into(), s);
                }
                // (Without array `items`, older drafts ignore it.)
                "additionalItems" => {}
                "dependencies" => {
                    let Value::Object(deps) = v else {
                        return Err(malformed(&ctx.path, kw, "must be an object"));
                    };
                    for (name, dep) in deps {
                        let target = if dep.is_array() {
                            "dependentRequired"
                        } else {
                            "dependentSchemas"
                        };
                        let value = if dep.is_array() {
                            dep.clone()
                        } else {
                            self.schema(dep, ctx.child(&[kw, name], &[target, name]), false)?
                        };
                        let slot = out
                            .entry(target)
                            .or_insert_with(|| Value::Object(Map::new()));
                        if let Value::Object(m) = slot {
                            if m.contains_key(name) {
                                return Err(UpgradeError::new(
                                    &pointer::join(&ctx.path, &[kw, name]),
                                    format!("`{target}` already has {name:?}: they cannot merge"),
                                ));
                            }
                            m.insert(name.clone(), value);
                        }
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" | "minimum" | "maximum"
                    if d == Draft::Draft4 =>
                {
                    let (bound, flag) = match kw {
                        "exclusiveMinimum" | "minimum" => ("minimum", "exclusiveMinimum"),
                        _ => ("maximum", "exclusiveMaximum"),
                    };
                    match map.get(flag) {
                        None | Some(Value::Bool(false)) => {
                            if kw == bound {
                                out.insert(kw.into(), v.clone());
                            }
                        }
                        Some(Value::Bool(true)) => {
                            if kw == bound {
                                out.insert(flag.into(), v.clone());
                            }
                        }
                        Some(_) => {
                            return Err(malformed(&ctx.path, flag, "must be a boolean in draft 4"));
                        }
                    }
                }
                "type" if d == Draft::Draft4 => {
                    let names: Vec<&str> = match v {
                        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                        Value::String(s) => vec![s.as_str()],
                        _ => vec![],
                    };
                    if names.contains(&"integer") && !names.contains(&"number") {
                        let at = pointer::join(&ctx.path, &["type"]);
                        if !self.widen_integers {
                            return Err(UpgradeError::new(
                                &at,
                                "draft-04 \"integer\" refuses numbers written with a fraction such as 1.0, \
                                 which 2020-12 cannot tell from 1: no exact equivalent",
                            ));
                        }
                        self.widened.push(at);
                    }
                    out.insert(kw.into(), v.clone());
                }
                "contains" if known(d, kw) => {
                    self.contains.get_or_insert_with(|| ctx.path.clone());
                    let s = self.schema(v, ctx.child(&[kw], &[kw]), false)?;
                    out.insert(kw.into(), s);
                }
                "unevaluatedItems" if known(d, kw) => {
                    if d == Draft::Draft201909 {
                        self.unevaluated_items
                            .get_or_insert_with(|| pointer::join(&ctx.path, &[kw]));
                    }
                    let s = self.schema(v, ctx.child(&[kw], &[kw]), false)?;
                    out.insert(kw.into(), s);
                }
                _ if single_schema(d, kw) => {
                    let s = self.schema(v, ctx.child(&[kw], &[kw]), false)?;
                    out.insert(kw.into(), s);
                }
                _ if schema_map(d, kw) => {
                    let Value::Object(entries) = v else {
                        return Err(malformed(&ctx.path, kw, "must be an object of schemas"));
                    };
                    let mut m = Map::new();
                    for (name, s) in entries {
                        let s = self.schema(s, ctx.child(&[kw, name], &[kw, name]), false)?;
                        m.insert(name.clone(), s);
                    }
                    let slot = out.entry(kw).or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(existing) = slot {
                        for (name, s) in m {
                            if existing.contains_key(&name) {
                                return Err(UpgradeError::new(
                                    &pointer::join(&ctx.path, &[kw, &name]),
                                    format!(
                                        "`{kw}` and `dependencies` both have {name:?}: they cannot merge"
                                    ),
                                ));
                            }
                            existing.insert(name, s);
                        }
                    }
                }
                _ if schema_array(kw) => {
                    let Value::Array(list) = v else {
                        return Err(malformed(&ctx.path, kw, "must be an array of schemas"));
                    };
                    let mut outs = Vec::with_capacity(list.len());
                    for (i, s) in list.iter().enumerate() {
                        let i = i.to_string();
                        outs.push(self.schema(s, ctx.child(&[kw, &i], &[kw, &i]), false)?);
                    }
                    out.insert(kw.into(), Value::Array(outs));
                }
                "dependentRequired" if known(d, kw) => {
                    let Value::Object(entries) = v else {
                        return Err(malformed(&ctx.path, kw, "must be an object"));
                    };
                    let slot = out.entry(kw).or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(existing) = slot {
                        for (name, list) in entries {
                            if existing.contains_key(name) {
                                return Err(UpgradeError::new(
                                    &pointer::join(&ctx.path, &[kw, name]),
                                    format!(
                                        "`{kw}` and `dependencies` both have {name:?}: they cannot merge"
                                    ),
                                ));
                            }
                            existing.insert(name.clone(), list.clone());
                        }
                    }
                }
                _ if known(d, kw) || !applies_in_2020(kw) => {
                    out.insert(kw.into(), v.clone());
                }
                // A keyword the source draft ignores and 2020-12 would apply.
                _ => {}
            }
        }
        if !defs.is_empty()
            || map
                .get("definitions")
                .or(map.get("$defs"))
                .is_some_and(|v| v.as_object().is_some_and(Map::is_empty))
        {
            out.insert("$defs".into(), Value::Object(defs));
        }
        Ok(Value::Object(out))
    }

    fn reads_alike(&mut self, target: &Value, draft: Draft, base: &str) -> bool {
        let key = (std::ptr::from_ref(target) as usize, draft, base.to_string());
        *self.alike.entry(key).or_insert_with(|| {
            let widen = self.widen_integers;
            upgrade_fragment(target, draft, base, &mut self.budget, widen).as_ref() == Some(target)
        })
    }

    /// The reference `r`, with a JSON Pointer fragment that crosses renamed keywords
    /// rewritten to the upgraded document's locations.
    fn rewrite_ref(&mut self, r: &PendingRef) -> Result<String, UpgradeError> {
        let (uri_part, fragment) = match r.value.find('#') {
            Some(i) => (&r.value[..i], &r.value[i + 1..]),
            None => return Ok(r.value.clone()),
        };
        if !fragment.starts_with('/') {
            return Ok(r.value.clone());
        }
        let target = if uri_part.is_empty() {
            r.base.to_string()
        } else {
            match uri::resolve(uri_part, &r.base) {
                Ok(t) => uri::split_fragment(&t).0.to_string(),
                Err(_) => return Ok(r.value.clone()),
            }
        };
        let Some(res) = self.resources.get(&target) else {
            return Ok(r.value.clone());
        };
        let Some(root) = res.node else {
            return Ok(r.value.clone());
        };
        let at = pointer::join(&r.path, &["$ref"]);
        let mut new = String::new();
        let mut state = Pos::Schema;
        let mut draft = res.draft;
        let mut node = Some(root);
        let mut is_root = true;
        let mut unknown: Option<(String, Draft)> = None;
        let raw_segments: Vec<&str> = fragment[1..].split('/').collect();
        let mut i = 0;
        while i < raw_segments.len() {
            let raw = raw_segments[i];
            let seg = decode_segment(raw).ok_or_else(|| {
                UpgradeError::new(&at, format!("{:?} is not a valid JSON Pointer", r.value))
            })?;
            let Some(here) = node else {
                // Past the document: the original resolves to nothing too.
                new.push('/');
                new.push_str(raw);
                i += 1;
                continue;
            };
            let next = match here {
                Value::Object(m) => m.get(&seg),
                Value::Array(a) => seg.parse::<usize>().ok().and_then(|j| a.get(j)),
                _ => None,
            };
            let mut out_seg: String = raw.to_string();
            let mut next_state = Pos::Other;
            match state {
                Pos::Other => {}
                Pos::SchemaMap => next_state = Pos::Schema,
                Pos::SchemaArray => next_state = Pos::Schema,
                Pos::Schema => {
                    let Value::Object(m) = here else {
                        return Err(UpgradeError::new(
                            &at,
                            format!("{:?} points into a boolean schema", r.value),
                        ));
                    };
                    if let Some(s) = m.get("$schema")
                        && (is_root || m.contains_key("$id") || m.contains_key(id_keyword(draft)))
                    {
                        draft = declared_draft(s, &at)?;
                    }
                    let old = rank(draft) <= 7;
                    let drops = |why: &str| {
                        UpgradeError::new(
                            &at,
                            format!("{:?} points into {why}, which the upgrade drops", r.value),
                        )
                    };
                    let kw = seg.as_str();
                    if old
                        && m.contains_key("$ref")
                        && !matches!(kw, "definitions" | "$defs" | "$ref")
                    {
                        return Err(drops(&format!(
                            "a sibling of `$ref` that {} ignores",
                            draft_name(draft)
                        )));
                    }
                    match kw {
                        "definitions" | "$defs" => {
                            out_seg = "$defs".into();
                            next_state = Pos::SchemaMap;
                        }
                        "items" if next.is_some_and(Value::is_array) => {
                            out_seg = "prefixItems".into();
                            next_state = Pos::SchemaArray;
                        }
                        "items" => next_state = Pos::Schema,
                        "additionalItems" => {
                            if !m.get("items").is_some_and(Value::is_array) {
                                return Err(drops("an `additionalItems` without array `items`"));
                            }
                            out_seg = "items".into();
                            next_state = Pos::Schema;
                        }
                        "dependencies" => {
                            // The next segment names the dependency; its form picks the keyword.
                            let Some(name_raw) = raw_segments.get(i + 1) else {
                                return Err(drops("`dependencies`"));
                            };
                            let name = decode_segment(name_raw).unwrap_or_default();
                            let dep = next.and_then(|v| v.get(&name));
                            let (target_kw, st) = if dep.is_some_and(Value::is_array) {
                                ("dependentRequired", Pos::Other)
                            } else {
                                ("dependentSchemas", Pos::Schema)
                            };
                            new.push('/');
                            new.push_str(target_kw);
                            new.push('/');
                            new.push_str(name_raw);
                            node = dep;
                            state = st;
                            is_root = false;
                            i += 2;
                            continue;
                        }
                        _ if schema_array(kw) => next_state = Pos::SchemaArray,
                        _ if schema_map(draft, kw) => next_state = Pos::SchemaMap,
                        _ if single_schema(draft, kw) => next_state = Pos::Schema,
                        _ if known(draft, kw) => {}
                        _ if applies_in_2020(kw) => {
                            return Err(drops(&format!(
                                "`{kw}`, which {} does not know",
                                draft_name(draft)
                            )));
                        }
                        _ => {
                            // Into an unknown keyword: copied as it is, so a schema there
                            // would be read as 2020-12, not as its draft.
                            if rank(draft) < 9 {
                                unknown = Some((kw.to_string(), draft));
                            }
                        }
                    }
                }
            }
            new.push('/');
            new.push_str(&out_seg);
            node = next;
            state = next_state;
            is_root = false;
            i += 1;
        }
        // A target inside an unknown keyword is copied as it is, and read as 2020-12:
        // fine when 2020-12 reads it as its draft did, which upgrading it shows.
        if let (Some((kw, draft)), Some(target)) = (unknown, node)
            && is_schema(target)
            && !self.reads_alike(target, draft, &r.base)
        {
            return Err(UpgradeError::new(
                &at,
                format!(
                    "{:?} points into the unknown keyword `{kw}`, where a {} schema would be read as 2020-12",
                    r.value,
                    draft_name(draft)
                ),
            ));
        }
        Ok(format!("{uri_part}#{new}"))
    }
}

#[derive(Clone, Copy)]
enum Pos {
    Schema,
    SchemaMap,
    SchemaArray,
    Other,
}

/// A pointer segment as a URI fragment carries it: percent-decoded, then unescaped.
fn decode_segment(raw: &str) -> Option<String> {
    let s = pointer::percent_decode(raw)?;
    Some(s.replace("~1", "/").replace("~0", "~"))
}

/// `schema` upgraded alone (no `$schema` added), or `None` when it cannot be.
fn upgrade_fragment(
    schema: &Value,
    draft: Draft,
    base: &str,
    budget: &mut usize,
    widen_integers: bool,
) -> Option<Value> {
    let mut up = Upgrader {
        widen_integers,
        widened: Vec::new(),
        resources: HashMap::new(),
        refs: Vec::new(),
        anchors: Vec::new(),
        recursive: Vec::new(),
        contains: None,
        unevaluated_items: None,
        alike: HashMap::new(),
        budget: *budget,
    };
    let ctx = Ctx {
        draft,
        base: Rc::from(base),
        path: String::new(),
        out_path: String::new(),
    };
    let out = up.schema(schema, ctx, false);
    *budget = up.budget;
    let out = out.ok()?;
    // (References inside are kept as they are: pointers that cross renamed keywords would
    // change, so the fragment is not the same.)
    let crossing = up
        .refs
        .iter()
        .any(|r| r.kind == RefKind::Recursive || r.value.contains("#/"));
    (!crossing && up.recursive.is_empty()).then_some(out)
}
