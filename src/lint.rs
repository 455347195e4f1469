//! Lint rules for MCP tool schemas: what MCP clients and SDKs refuse or mishandle.
//!
//! [`lint`] reads a schema, a Tool (an object with `inputSchema`), or a tool list (an
//! array of tools, or `{"tools": [...]}`) and returns one [`Finding`] per problem, each
//! naming its [`Rule`] by a stable name. [`fix`] applies the safe fixes (today: upgrading a
//! schema that declares an older dialect to 2020-12, see [`crate::upgrade`]).
//!
//! ```
//! use toolschema::lint::{lint, Severity};
//! use serde_json::json;
//!
//! let tool = json!({
//!     "name": "get weather",
//!     "inputSchema": {"type": "object", "properties": {"days": {"type": "integer", "format": "uint32"}}}
//! });
//! let findings = lint(&tool);
//! let found: Vec<(&str, &str)> = findings.iter().map(|f| (f.rule, f.location.as_str())).collect();
//! assert_eq!(found, [
//!     ("tool-name-charset", "/name"),
//!     ("unknown-format", "/inputSchema/properties/days/format"),
//! ]);
//! assert_eq!(findings[0].severity, Severity::Warning);
//! ```

use crate::compile::pointer;
use crate::{Draft, Options, SchemaErrorKind};
use serde_json::{Map, Value};
use std::fmt;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// Clients refuse the tool or the schema, or no call can succeed.
    Error,
    /// Some clients refuse or mishandle it.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A lint rule: a stable name, why it matters, and documented examples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rule {
    /// The stable name findings carry.
    pub name: &'static str,
    /// How much it matters.
    pub severity: Severity,
    /// Why, in one line.
    pub reason: &'static str,
    /// A document (tool or schema, JSON text) that triggers the rule.
    pub example: &'static str,
    /// A close document that does not.
    pub clean: &'static str,
    /// Whether [`fix`] repairs it.
    pub fixable: bool,
}

/// Every rule, in the order findings are listed.
pub const RULES: &[Rule] = &[
    Rule {
        name: "dialect-not-2020-12",
        severity: Severity::Warning,
        reason: "the schema declares a dialect other than 2020-12, which strict MCP clients refuse (`fix` upgrades it)",
        example: r##"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}"##,
        clean: r##"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}"##,
        fixable: true,
    },
    Rule {
        name: "meta-schema-violation",
        severity: Severity::Error,
        reason: "the schema is not valid against its dialect's meta-schema (SEP-1613; SDKs such as Java's refuse it)",
        example: r##"{"type": "object", "properties": {"q": {"type": "strin"}}}"##,
        clean: r##"{"type": "object", "properties": {"q": {"type": "string"}}}"##,
        fixable: false,
    },
    Rule {
        name: "schema-does-not-compile",
        severity: Severity::Error,
        reason: "the schema cannot be compiled (an unresolvable reference, a bad pattern...), so no validator can use it",
        example: r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}"##,
        clean: r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}}"##,
        fixable: false,
    },
    Rule {
        name: "duplicate-id",
        severity: Severity::Warning,
        reason: "two subschemas claim one `$id` URI or one anchor in a resource: accepted here when they are the same subschema or no reference reaches them, but the specification lets validators refuse the schema, and some do",
        example: r##"{"type": "object", "properties": {"a": {"$id": "https://example.com/n", "type": "number"}, "b": {"$id": "https://example.com/n", "type": "number"}}}"##,
        clean: r##"{"type": "object", "properties": {"a": {"$id": "https://example.com/n", "type": "number"}, "b": {"$id": "https://example.com/m", "type": "number"}}}"##,
        fixable: false,
    },
    Rule {
        name: "input-root-not-object",
        severity: Severity::Error,
        reason: "a tool's inputSchema must have `\"type\": \"object\"` at its root: arguments are always an object, and clients refuse other roots",
        example: r##"{"name": "t", "inputSchema": {"type": "string"}}"##,
        clean: r##"{"name": "t", "inputSchema": {"type": "object"}}"##,
        fixable: false,
    },
    Rule {
        name: "output-root-not-object",
        severity: Severity::Warning,
        reason: "structuredContent is always an object: an outputSchema root that does not say `\"type\": \"object\"` relies on the default-object-root rule or on wrapping, which clients apply differently",
        example: r##"{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"properties": {"n": {"type": "number"}}}}"##,
        clean: r##"{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"n": {"type": "number"}}}}"##,
        fixable: false,
    },
    Rule {
        name: "non-fragment-ref",
        severity: Severity::Error,
        reason: "a `$ref` that is not a fragment (`#...`) points outside the tool's schema; MCP SDKs resolve only local references and never fetch",
        example: r##"{"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}"##,
        clean: r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {}}}"##,
        fixable: false,
    },
    Rule {
        name: "caps-exceeded",
        severity: Severity::Error,
        reason: "the schema nests deeper than 64 levels or holds more than 10,000 subschemas, as the MCP SDKs count them; they refuse it",
        example: "(a schema 65 levels deep: see tests/lint.rs)",
        clean: r##"{"type": "object"}"##,
        fixable: false,
    },
    Rule {
        name: "tool-name-charset",
        severity: Severity::Warning,
        reason: "tool names should be 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.` (MCP 2025-11-25); clients reject or rename others",
        example: r##"{"name": "get weather", "inputSchema": {"type": "object"}}"##,
        clean: r##"{"name": "get_weather", "inputSchema": {"type": "object"}}"##,
        fixable: false,
    },
    Rule {
        name: "required-not-in-properties",
        severity: Severity::Error,
        reason: "a `required` name that `properties` does not declare while `additionalProperties` is false: no object can be valid",
        example: r##"{"type": "object", "properties": {"a": {}}, "required": ["b"], "additionalProperties": false}"##,
        clean: r##"{"type": "object", "properties": {"a": {}, "b": {}}, "required": ["b"], "additionalProperties": false}"##,
        fixable: false,
    },
    Rule {
        name: "unsatisfiable-subschema",
        severity: Severity::Error,
        reason: "a subschema no value can satisfy (`false` where a value is required, an empty `enum`, a `const` or `enum` outside its `type`, a minimum above its maximum)",
        example: r##"{"type": "object", "properties": {"mode": {"type": "string", "enum": [1, 2]}}}"##,
        clean: r##"{"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}}}"##,
        fixable: false,
    },
    Rule {
        name: "unknown-format",
        severity: Severity::Warning,
        reason: "a `format` the JSON Schema specification does not define (such as `uint32`, which code generators emit) is ignored by most validators and clients: the constraint it suggests goes unchecked",
        example: r##"{"type": "object", "properties": {"n": {"type": "integer", "format": "uint32"}}}"##,
        clean: r##"{"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 4294967295}}}"##,
        fixable: false,
    },
    Rule {
        name: "task-support-required",
        severity: Severity::Warning,
        reason: "`execution.taskSupport: \"required\"` makes the tool uncallable by clients without task support (most of them)",
        example: r##"{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}"##,
        clean: r##"{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}"##,
        fixable: false,
    },
];

/// The rule named `name`.
pub fn rule(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The [`Rule::name`].
    pub rule: &'static str,
    /// The rule's severity.
    pub severity: Severity,
    /// Where, as a JSON Pointer into the linted document.
    pub location: String,
    /// The tool's name, when the finding is in a tool.
    pub tool: Option<String>,
    /// What is wrong here, in one line.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = if self.location.is_empty() {
            "/"
        } else {
            &self.location
        };
        write!(
            f,
            "{loc}: {} [{}] {}",
            self.severity, self.rule, self.message
        )
    }
}

/// Lints a schema, a Tool (an object with `inputSchema`) or a tool list (an array of
/// tools, or an object with a `tools` array), detected by shape.
pub fn lint(document: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    match document {
        Value::Array(tools) => lint_tools(tools, "", &mut out),
        Value::Object(m) if m.get("tools").is_some_and(Value::is_array) => {
            if let Some(Value::Array(tools)) = m.get("tools") {
                lint_tools(tools, "/tools", &mut out);
            }
        }
        Value::Object(m) if m.contains_key("inputSchema") => lint_tool_at(document, "", &mut out),
        _ => lint_schema_at(document, "", Role::Plain, None, &mut out),
    }
    out
}

/// Lints one schema (no MCP role: the tool rules do not apply).
pub fn lint_schema(schema: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    lint_schema_at(schema, "", Role::Plain, None, &mut out);
    out
}

/// Applies the safe fixes to a document [`lint`] accepts: every schema that declares an
/// older dialect and upgrades exactly is replaced by its 2020-12 upgrade. Returns the
/// fixed document and how many schemas changed.
pub fn fix(document: &Value) -> (Value, usize) {
    let mut out = document.clone();
    let mut count = 0;
    let mut fix_schema = |s: &mut Value| {
        if declared_old_dialect(s).is_some()
            && let Ok(up) = crate::upgrade::upgrade(s, Draft::Draft202012)
        {
            *s = up;
            count += 1;
        }
    };
    let mut fix_tool = |t: &mut Value| {
        for key in ["inputSchema", "outputSchema"] {
            if let Some(s) = t.get_mut(key) {
                fix_schema(s);
            }
        }
    };
    match &mut out {
        Value::Array(tools) => tools.iter_mut().for_each(&mut fix_tool),
        Value::Object(m) if m.get("tools").is_some_and(Value::is_array) => {
            if let Some(Value::Array(tools)) = m.get_mut("tools") {
                tools.iter_mut().for_each(&mut fix_tool);
            }
        }
        Value::Object(m) if m.contains_key("inputSchema") => fix_tool(&mut out),
        s => fix_schema(s),
    }
    (out, count)
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Plain,
    Input,
    Output,
}

fn lint_tools(tools: &[Value], at: &str, out: &mut Vec<Finding>) {
    for (i, t) in tools.iter().enumerate() {
        lint_tool_at(t, &pointer::join(at, &[&i.to_string()]), out);
    }
}

fn push(
    out: &mut Vec<Finding>,
    rule: &'static str,
    location: String,
    tool: Option<&str>,
    message: String,
) {
    let severity = self::rule(rule).map_or(Severity::Error, |r| r.severity);
    out.push(Finding {
        rule,
        severity,
        location,
        tool: tool.map(str::to_string),
        message,
    });
}

fn lint_tool_at(tool: &Value, at: &str, out: &mut Vec<Finding>) {
    let name = tool.get("name").and_then(Value::as_str);
    match name {
        Some(n)
            if (1..=128).contains(&n.chars().count())
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) => {}
        Some(n) => push(
            out,
            "tool-name-charset",
            pointer::join(at, &["name"]),
            name,
            format!(
                "the tool name {:?} is not 1 to 128 characters of A-Z a-z 0-9 _ - .",
                crate::error::clip(n)
            ),
        ),
        None => push(
            out,
            "tool-name-charset",
            pointer::join(at, &["name"]),
            None,
            "the tool has no string `name`".into(),
        ),
    }
    if let Some(input) = tool.get("inputSchema") {
        lint_schema_at(
            input,
            &pointer::join(at, &["inputSchema"]),
            Role::Input,
            name,
            out,
        );
    }
    if let Some(output) = tool.get("outputSchema") {
        lint_schema_at(
            output,
            &pointer::join(at, &["outputSchema"]),
            Role::Output,
            name,
            out,
        );
    }
    if tool
        .pointer("/execution/taskSupport")
        .and_then(Value::as_str)
        == Some("required")
    {
        push(
            out,
            "task-support-required",
            pointer::join(at, &["execution", "taskSupport"]),
            name,
            "the tool can only run as a task; clients without tasks cannot call it".into(),
        );
    }
}

/// The older standard draft `$schema` declares (or `Some(None)`-like: an unknown URI is
/// reported by returning the URI).
fn declared_old_dialect(schema: &Value) -> Option<String> {
    let s = schema.get("$schema")?.as_str()?;
    match crate::compile::dialect::draft_of_uri(s) {
        Some(Draft::Draft202012) => None,
        _ => Some(s.to_string()),
    }
}

fn lint_schema_at(
    schema: &Value,
    at: &str,
    role: Role,
    tool: Option<&str>,
    out: &mut Vec<Finding>,
) {
    if let Some(declared) = declared_old_dialect(schema) {
        let fixable = crate::upgrade::upgrade(schema, Draft::Draft202012);
        let message = match (&fixable, crate::compile::dialect::draft_of_uri(&declared)) {
            (_, None) => format!("`$schema` {declared:?} is no standard dialect"),
            (Ok(_), Some(_)) => {
                format!("`$schema` is {declared:?}, not 2020-12 (fixable: it upgrades exactly)")
            }
            (Err(e), Some(_)) => {
                format!("`$schema` is {declared:?}, not 2020-12 (not fixable: {e})")
            }
        };
        push(
            out,
            "dialect-not-2020-12",
            pointer::join(at, &["$schema"]),
            tool,
            message,
        );
    }
    let violations = crate::metaschema::violations(schema, Draft::Draft202012).unwrap_or_default();
    for v in &violations {
        push(
            out,
            "meta-schema-violation",
            format!("{at}{}", v.location()),
            tool,
            v.message().to_string(),
        );
    }
    let mut duplicates = Vec::new();
    match crate::compile::compile_noting(schema, &Options::new(), Some(&mut duplicates)) {
        Ok(_) => {
            for d in duplicates {
                let Some(location) = d.location else { continue };
                let accepted = if d.identical {
                    "the same subschema twice"
                } else {
                    "different subschemas, which no reference reaches"
                };
                push(
                    out,
                    "duplicate-id",
                    format!("{at}{location}"),
                    tool,
                    format!(
                        "{} is claimed at {} and at {}: {accepted} (accepted; other validators may refuse the schema)",
                        d.what, d.first, d.other
                    ),
                );
            }
        }
        Err(e)
            if matches!(
                e.kind(),
                SchemaErrorKind::DepthExceeded
                    | SchemaErrorKind::TooManySubschemas
                    | SchemaErrorKind::TooLarge
            ) =>
        {
            push(
                out,
                "caps-exceeded",
                format!("{at}{}", e.location()),
                tool,
                e.message().to_string(),
            );
        }
        Err(e) if violations.is_empty() && e.kind() != SchemaErrorKind::UnknownDialect => {
            push(
                out,
                "schema-does-not-compile",
                format!("{at}{}", e.location()),
                tool,
                e.message().to_string(),
            );
        }
        Err(_) => {}
    }
    let root_type = schema.get("type");
    // A root that is not `"type": "object"`: an error for inputs, a warning for outputs.
    let root = match role {
        Role::Input => Some(("input-root-not-object", "inputSchema", "", "not \"object\"")),
        Role::Output => Some((
            "output-root-not-object",
            "outputSchema",
            ": it relies on the default-object-root rule",
            "structuredContent must be wrapped in an object",
        )),
        _ => None,
    };
    if let Some((rule, name, absent, other)) = root
        && root_type != Some(&Value::String("object".into()))
    {
        let message = match root_type {
            None => format!("the {name} root has no `\"type\": \"object\"`{absent}"),
            Some(t) if role == Role::Input => format!("the {name} root's type is {t}, {other}"),
            Some(t) => format!("the {name} root's type is {t}: {other}"),
        };
        push(out, rule, pointer::join(at, &["type"]), tool, message);
    }
    walk(
        schema,
        &mut at.to_string(),
        true,
        &mut |s, here, required_spot| {
            check_subschema(s, here, required_spot, tool, out);
        },
    );
}

/// Calls `f` on every subschema (2020-12 and older keyword positions), with its location
/// and whether a value there must satisfy it (root, `allOf` members, `then`-less
/// conjunctions) for the object to be valid at all.
fn walk(v: &Value, at: &mut String, must_hold: bool, f: &mut dyn FnMut(&Value, &str, bool)) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        f(v, at, must_hold);
        let Value::Object(m) = v else {
            return;
        };
        let len = at.len();
        for (k, child) in m {
            let k = k.as_str();
            match k {
                "properties" | "patternProperties" | "$defs" | "definitions"
                | "dependentSchemas" | "dependencies" => {
                    if let Value::Object(entries) = child {
                        for (name, s) in entries {
                            if s.is_object() || s.is_boolean() {
                                pointer::push(at, k);
                                pointer::push(at, name);
                                walk(s, at, false, f);
                                at.truncate(len);
                            }
                        }
                    }
                }
                "allOf" | "anyOf" | "oneOf" | "prefixItems" | "items" => {
                    if let Value::Array(list) = child {
                        for (i, s) in list.iter().enumerate() {
                            pointer::push(at, k);
                            pointer::push(at, &i.to_string());
                            walk(s, at, must_hold && k == "allOf", f);
                            at.truncate(len);
                        }
                    } else if k == "items" {
                        pointer::push(at, k);
                        walk(child, at, false, f);
                        at.truncate(len);
                    }
                }
                "additionalProperties"
                | "additionalItems"
                | "contains"
                | "not"
                | "if"
                | "then"
                | "else"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema" => {
                    pointer::push(at, k);
                    walk(child, at, false, f);
                    at.truncate(len);
                }
                _ => {}
            }
        }
    });
}

fn type_names(m: &Map<String, Value>) -> Option<Vec<&str>> {
    match m.get("type")? {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(list) => Some(list.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

fn has_type(types: &[&str], v: &Value) -> bool {
    let t = match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            let integral = n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
            if integral && types.contains(&"integer") {
                return true;
            }
            "number"
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    types.contains(&t)
}

fn check_subschema(
    s: &Value,
    at: &str,
    must_hold: bool,
    tool: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let unsat = |out: &mut Vec<Finding>, loc: String, why: String| {
        push(out, "unsatisfiable-subschema", loc, tool, why);
    };
    let Value::Object(m) = s else {
        if *s == Value::Bool(false) && must_hold {
            unsat(
                out,
                at.to_string(),
                "`false` where every value must satisfy the schema".into(),
            );
        }
        return;
    };
    if let Some(Value::String(r)) = m.get("$ref")
        && !r.starts_with('#')
    {
        push(
            out,
            "non-fragment-ref",
            pointer::join(at, &["$ref"]),
            tool,
            format!("{:?} is not a fragment reference", crate::error::clip(r)),
        );
    }
    if let Some(Value::String(name)) = m.get("format")
        && !crate::format::is_standard(name)
    {
        push(
            out,
            "unknown-format",
            pointer::join(at, &["format"]),
            tool,
            format!(
                "{:?} is not a JSON Schema format: most validators ignore it, so the constraint it suggests goes unchecked",
                crate::error::clip(name)
            ),
        );
    }
    if m.get("additionalProperties") == Some(&Value::Bool(false))
        && !m.contains_key("patternProperties")
    {
        let props = m.get("properties").and_then(Value::as_object);
        for name in m
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !props.is_some_and(|p| p.contains_key(name)) {
                push(
                    out,
                    "required-not-in-properties",
                    pointer::join(at, &["required"]),
                    tool,
                    format!(
                        "{name:?} is required but `properties` does not declare it and `additionalProperties` is false"
                    ),
                );
            }
        }
    }
    if let Some(Value::Array(e)) = m.get("enum") {
        if e.is_empty() {
            unsat(
                out,
                pointer::join(at, &["enum"]),
                "an empty `enum` allows no value".into(),
            );
        } else if let Some(types) = type_names(m)
            && !e.iter().any(|v| has_type(&types, v))
        {
            unsat(
                out,
                pointer::join(at, &["enum"]),
                format!("no `enum` value is of the type {}", types.join(" or ")),
            );
        }
    }
    if let (Some(c), Some(types)) = (m.get("const"), type_names(m))
        && !has_type(&types, c)
    {
        unsat(
            out,
            pointer::join(at, &["const"]),
            format!(
                "the `const` value is not of the type {}",
                types.join(" or ")
            ),
        );
    }
    for (lo, hi) in [
        ("minimum", "maximum"),
        ("minLength", "maxLength"),
        ("minItems", "maxItems"),
        ("minProperties", "maxProperties"),
        ("minContains", "maxContains"),
    ] {
        if let (Some(a), Some(b)) = (
            m.get(lo).and_then(Value::as_f64),
            m.get(hi).and_then(Value::as_f64),
        ) && a > b
        {
            unsat(
                out,
                pointer::join(at, &[lo]),
                format!("`{lo}` {a} is above `{hi}` {b}"),
            );
        }
    }
    if let Some(props) = m.get("properties").and_then(Value::as_object) {
        for name in m
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if props.get(name) == Some(&Value::Bool(false)) {
                unsat(
                    out,
                    pointer::join(at, &["properties", name]),
                    format!("{name:?} is required, and its schema is `false`"),
                );
            }
        }
    }
}
