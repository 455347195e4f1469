//! The generator proper (a module of its own so that the crate's build script, which
//! generates the official suite for the tests, can include it).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;
use toolschema::codegen::{ARRAY, Config, NUMBER, NodePlan, OBJECT, Plan, STRING, Step};

/// How much of a schema became code (see the crate docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Nodes (schema objects) reachable from the root and generated as functions.
    pub nodes: usize,
    /// Keywords compiled into code.
    pub generated: usize,
    /// Assertion keywords the generated code checks by calling the engine's own code for
    /// one value (`pattern`'s matcher, `format`, `multipleOf`, `uniqueItems`,
    /// `dependentRequired`, content, `const`/`enum` of values other than strings, a bound
    /// whose digits may parse differently): shared rules, no subschema.
    pub shared: usize,
    /// Applicator keywords whose subschemas the engine evaluates: `propertyNames` whose
    /// subschema is more than string assertions.
    pub delegated_keywords: usize,
    /// Nodes the engine evaluates whole (`unevaluatedProperties`/`unevaluatedItems`).
    pub delegated_nodes: usize,
    /// The engine evaluates the whole schema (a `$dynamicRef` reads the dynamic scope).
    pub delegated_schema: bool,
}

impl Coverage {
    /// Whether no subschema is left to the engine.
    pub fn fully_generated(&self) -> bool {
        self.delegated_keywords == 0 && self.delegated_nodes == 0 && !self.delegated_schema
    }
}

/// A generated validator.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The items: a hidden module of node functions and an `impl` of the checking API on
    /// the type named in [`generate`].
    pub tokens: TokenStream,
    /// How much of the schema became code.
    pub coverage: Coverage,
}

/// Generates a validator for `schema` (JSON text) as an `impl` on the type `name` (a unit
/// struct the caller declares): `is_valid`, `validate`, `iter_errors`, `evaluate`, and
/// `schema` (the runtime engine's compiled form).
///
/// # Errors
/// The schema's [`toolschema::SchemaError`] when it does not parse or compile.
pub fn generate(name: &Ident, schema: &str, config: &Config) -> Result<Generated, GenerateError> {
    let value: serde_json::Value =
        serde_json::from_str(schema).map_err(|e| GenerateError::Json(e.to_string()))?;
    let plan = toolschema::codegen::plan(&value, config).map_err(GenerateError::Schema)?;
    // (The text as given, not the value written again: a number's digits are parsed where
    // the program runs as they are in the schema, not as this parse rounded them.)
    let mut generated = emit(name, schema, config, &plan);
    generated.tokens.extend(trait_impl(name, config));
    Ok(generated)
}

/// Why [`generate`] failed.
#[derive(Debug)]
pub enum GenerateError {
    /// The schema is not JSON.
    Json(String),
    /// The engine refuses the schema.
    Schema(toolschema::SchemaError),
    /// A type's schema is not a tool's input schema (its root is not an object).
    NotAnInputSchema(String),
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerateError::Json(e) => write!(f, "the schema is not JSON: {e}"),
            GenerateError::Schema(e) => write!(f, "the schema does not compile: {e}"),
            GenerateError::NotAnInputSchema(why) => {
                write!(f, "the type's schema is not a tool input schema: {why}")
            }
        }
    }
}

impl std::error::Error for GenerateError {}

fn node_fn(id: u32) -> Ident {
    format_ident!("n{}", id)
}

/// The nodes reachable from the root through generated steps.
fn reachable(plan: &Plan) -> Vec<u32> {
    let mut seen = vec![false; plan.nodes.len()];
    let mut stack = vec![plan.root];
    let mut out = Vec::new();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n as usize], true) {
            continue;
        }
        out.push(n);
        stack.extend(children(&plan.nodes[n as usize]));
    }
    out.sort_unstable();
    out
}

/// The nodes a node's generated code calls.
fn children(node: &NodePlan) -> Vec<u32> {
    let mut out = Vec::new();
    for (_, step) in &node.keywords {
        match step {
            Step::Properties(p) | Step::DependentSchemas(p) => {
                out.extend(p.iter().map(|(_, n)| *n))
            }
            Step::PatternProperties(p) => out.extend(p.iter().map(|(_, n)| *n)),
            Step::Additional {
                properties,
                patterns,
                node,
            } => {
                out.extend(properties.iter().map(|(_, n)| *n));
                out.extend(patterns.iter().map(|(_, n)| *n));
                out.extend(node);
            }
            Step::Contains { node, .. } => out.push(*node),
            Step::PrefixItems(l) | Step::AllOf(l) | Step::AnyOf(l) | Step::OneOf(l) => {
                out.extend(l)
            }
            Step::Items { node, .. } | Step::Not(node) | Step::Ref(node) => out.push(*node),
            Step::If { cond, then, els } => {
                out.push(*cond);
                out.extend(then);
                out.extend(els);
            }
            Step::False
            | Step::Type { .. }
            | Step::Strings(_)
            | Step::Bound { .. }
            | Step::MaxLength(_)
            | Step::MinLength(_)
            | Step::MaxItems(_)
            | Step::MinItems(_)
            | Step::MaxProperties(_)
            | Step::MinProperties(_)
            | Step::Required(_)
            | Step::Equals(_)
            | Step::MultipleOf(_)
            | Step::Pattern(_)
            // (Checked inline on the names, or by the engine: see `name_checks`.)
            | Step::PropertyNames(_)
            | Step::Engine { .. } => {}
        }
    }
    out
}

/// Whether `from` reaches `to` through generated calls.
fn reaches(plan: &Plan, from: u32, to: u32) -> bool {
    let mut seen = vec![false; plan.nodes.len()];
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        if std::mem::replace(&mut seen[n as usize], true) {
            continue;
        }
        stack.extend(children(&plan.nodes[n as usize]));
    }
    false
}

fn u64_lit(n: u64) -> Literal {
    Literal::u64_suffixed(n)
}

/// The code of one instance kind's arm, keyword by keyword, each with its cost class:
/// an arm runs its checks cheapest first (the verdict is their conjunction, whatever the
/// order), so `maxItems` fails an array before `items` walks it.
#[derive(Default)]
struct Arms {
    null: Vec<(u8, TokenStream)>,
    boolean: Vec<(u8, TokenStream)>,
    number: Vec<(u8, TokenStream)>,
    string: Vec<(u8, TokenStream)>,
    array: Vec<(u8, TokenStream)>,
    object: Vec<(u8, TokenStream)>,
    /// Checks of any kind of instance (applicators on the whole value).
    any: Vec<(u8, TokenStream)>,
}

/// A comparison with a constant.
const CHEAP: u8 = 0;
/// A call of the engine's code for one value.
const SHARED: u8 = 1;
/// Generated code that applies subschemas.
const APPLIES: u8 = 2;
/// The engine applying subschemas.
const DELEGATED: u8 = 3;

/// A name match: by length first, then the names of that length (a `match` on strings
/// compares them one after another).
fn name_match(
    key: &TokenStream,
    names: &[(String, TokenStream)],
    other: TokenStream,
) -> TokenStream {
    let mut by_len: BTreeMap<usize, Vec<&(String, TokenStream)>> = BTreeMap::new();
    for entry in names {
        by_len.entry(entry.0.len()).or_default().push(entry);
    }
    // (Within a length, the key as an array of that length: its compares with the names
    // are then an equality of known size, loads rather than calls of `memcmp`.)
    let arms = by_len.iter().map(|(len, entries)| {
        let bytes = quote! { kb };
        let inner = same_length(&bytes, entries, &other);
        let len = Literal::usize_unsuffixed(*len);
        quote! {
            #len => {
                if let Ok(kb) = <&[u8; #len]>::try_from(#key.as_bytes()) { #inner } else { #other }
            }
        }
    });
    quote! {
        match #key.len() {
            #(#arms)*
            _ => { #other }
        }
    }
}

/// The match among names of one length (`key`: the name as a `&[u8; len]`): a few
/// compared one after another; more split first by the byte at the position that tells
/// most of them apart (a byte load and a jump instead of a compare per name).
fn same_length(
    key: &TokenStream,
    entries: &[&(String, TokenStream)],
    other: &TokenStream,
) -> TokenStream {
    let len = entries.first().map_or(0, |e| e.0.len());
    let distinct_at = |i: usize| {
        let mut bytes: Vec<u8> = entries.iter().map(|e| e.0.as_bytes()[i]).collect();
        bytes.sort_unstable();
        bytes.dedup();
        bytes.len()
    };
    let best = (0..len).max_by_key(|&i| (distinct_at(i), std::cmp::Reverse(i)));
    match best {
        Some(i) if entries.len() > 3 && distinct_at(i) > 1 => {
            let mut by_byte: BTreeMap<u8, Vec<&(String, TokenStream)>> = BTreeMap::new();
            for e in entries {
                by_byte.entry(e.0.as_bytes()[i]).or_default().push(*e);
            }
            let arms = by_byte.iter().map(|(b, sub)| {
                let inner = same_length(key, sub, other);
                let b = Literal::u8_suffixed(*b);
                quote! { #b => { #inner } }
            });
            let i = Literal::usize_unsuffixed(i);
            quote! {
                match #key[#i] {
                    #(#arms)*
                    _ => { #other }
                }
            }
        }
        _ => {
            // (An equality of arrays, not a `match` on byte strings: that compares byte
            // by byte.)
            let inner = entries.iter().map(|(name, body)| {
                let lit = Literal::byte_string(name.as_bytes());
                quote! { if *#key == *#lit { #body } else }
            });
            quote! { #(#inner)* { #other } }
        }
    }
}

/// Whether the string `s` is one of `list` (`enum: []` admits nothing), matched as the
/// names of a walk are.
fn one_of_strings(s: &TokenStream, list: &[String]) -> TokenStream {
    let mut names: Vec<(String, TokenStream)> = Vec::new();
    for n in list {
        if !names.iter().any(|(m, _)| m == n) {
            names.push((n.clone(), quote! { true }));
        }
    }
    let m = name_match(&quote! { value }, &names, quote! { false });
    quote! {{ let value: &str = #s; #m }}
}

/// The checks of `node` on a property name `key` (a `&str`), for `propertyNames`, when
/// the node only asserts on strings (`{"pattern": "^.+$"}`, `{"maxLength": 64}`): `None`
/// otherwise (the engine then evaluates the keyword).
fn name_checks(plan: &Plan, node: u32) -> Option<Vec<TokenStream>> {
    let n = plan.nodes.get(node as usize)?;
    if n.whole {
        return None;
    }
    let mut out = Vec::new();
    for (_, step) in &n.keywords {
        match step {
            Step::False => out.push(quote! { false }),
            Step::Type { kinds, .. } => {
                if !kinds[2] {
                    out.push(quote! { false });
                }
            }
            Step::Strings(list) => out.push(one_of_strings(&quote! { key }, list)),
            Step::MaxLength(m) => {
                let m = u64_lit(*m);
                out.push(quote! { __c::max_length(key, #m) });
            }
            Step::MinLength(m) => {
                let m = u64_lit(*m);
                out.push(quote! { __c::min_length(key, #m) });
            }
            Step::Pattern(p) => {
                let p = Literal::u32_suffixed(*p);
                out.push(quote! { __c::pattern(r(), #p, key, st) });
            }
            // What a string passes.
            Step::Bound { .. }
            | Step::MultipleOf(_)
            | Step::MaxItems(_)
            | Step::MinItems(_)
            | Step::MaxProperties(_)
            | Step::MinProperties(_)
            | Step::Required(_)
            | Step::Properties(_)
            | Step::Additional { .. }
            | Step::PatternProperties(_)
            | Step::PropertyNames(_)
            | Step::DependentSchemas(_)
            | Step::Contains { .. }
            | Step::PrefixItems(_)
            | Step::Items { .. } => {}
            Step::Engine {
                delegates: false,
                only: Some(NUMBER | ARRAY | OBJECT),
            } => {}
            Step::Engine { .. }
            | Step::Equals(_)
            | Step::AllOf(_)
            | Step::AnyOf(_)
            | Step::OneOf(_)
            | Step::Not(_)
            | Step::If { .. }
            | Step::Ref(_) => return None,
        }
    }
    Some(out)
}

/// The object walk of `properties`, `additionalProperties` and `patternProperties` (as
/// one keyword or alone), with the names of `required` it counts (`fused`, by bit).
fn object_walk(
    properties: &[(String, u32)],
    patterns: &[(u32, u32)],
    additional: Option<Option<u32>>,
    fused: &[String],
    checked: &[String],
    trivial: &[bool],
) -> TokenStream {
    let key = quote! { key };
    let is_trivial = |n: u32| trivial.get(n as usize) == Some(&true);
    // (Nothing to check: every schema admits everything, no name is counted or refused, and
    // no pattern is matched.)
    let nothing = fused.is_empty()
        && properties
            .iter()
            .all(|(n, node)| is_trivial(*node) || checked.contains(n))
        && patterns.is_empty()
        && match additional {
            None => true,
            Some(Some(n)) => is_trivial(n),
            Some(None) => false,
        };
    if nothing {
        return quote! { true };
    }
    let names: Vec<(String, TokenStream)> = properties
        .iter()
        .map(|(n, node)| {
            let f = node_fn(*node);
            let bit = fused.iter().position(|r| r == n).map(|b| {
                let b = u64_lit(1u64 << b);
                quote! { seen |= #b; }
            });
            let mark =
                (!patterns.is_empty() && additional.is_some()).then(|| quote! { matched = true; });
            // (A name checked before the walk is only matched here.)
            let call = (!checked.contains(n) && !is_trivial(*node))
                .then(|| quote! { if !#f(x, st) { return false; } });
            (n.clone(), quote! { #bit #mark #call })
        })
        .collect();
    let additional_check = match additional {
        Some(Some(n)) if is_trivial(n) => quote! {},
        Some(Some(n)) => {
            let f = node_fn(n);
            quote! { if !#f(x, st) { return false; } }
        }
        Some(None) => quote! { return false; },
        None => quote! {},
    };
    // (Every pattern is matched, its schema trivial or not: a match out of budget fails the
    // instance.)
    let pattern_checks = patterns.iter().map(|(p, n)| {
        let f = node_fn(*n);
        let p = Literal::u32_suffixed(*p);
        let mark = additional.is_some().then(|| quote! { matched = true; });
        let call = (!is_trivial(*n)).then(|| quote! { if !#f(x, st) { return false; } });
        quote! {
            if __c::pattern_name(r(), #p, key, st) {
                #mark
                #call
            }
        }
    });
    let body = if patterns.is_empty() {
        // (No pattern: a name not declared is the additional schema's at once.)
        let m = name_match(&key, &names, additional_check);
        quote! { #m }
    } else {
        let m = name_match(&key, &names, quote! {});
        let rest = additional.map(|_| quote! { if !matched { #additional_check } });
        let matched = additional.map(|_| quote! { let mut matched = false; });
        quote! {
            #matched
            #m
            #(#pattern_checks)*
            #rest
        }
    };
    let (seen, verdict) = if fused.is_empty() {
        (quote! {}, quote! { true })
    } else {
        let all = u64_lit(if fused.len() == 64 {
            u64::MAX
        } else {
            (1u64 << fused.len()) - 1
        });
        (quote! { let mut seen = 0u64; }, quote! { seen == #all })
    };
    quote! {{
        #seen
        for (key, x) in o {
            let key = key.as_str();
            #body
        }
        #verdict
    }}
}

/// The discriminating properties of the branches of each `anyOf`/`oneOf` (a branch, or a
/// reference's target from one): a name whose schema is a [`discriminator`] in two
/// branches or more of the same list tags them (`{"type": {"const": "Point"}}` beside
/// `{"type": {"const": "LineString"}}`). Most instances fail most branches, and the tag
/// tells at once, before the branch walks the instance's other properties.
fn branch_tags(plan: &Plan, nodes: &[u32]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new(); plan.nodes.len()];
    // (A branch that only refers: its target's properties.)
    let target = |b: u32| -> u32 {
        let keywords = &plan.nodes[b as usize].keywords;
        match keywords.as_slice() {
            [(_, Step::Ref(t))] => *t,
            _ => b,
        }
    };
    // (name, the values it admits, as text)
    let tags_of = |b: u32| -> Vec<(String, String)> {
        let mut names = Vec::new();
        for (_, s) in &plan.nodes[b as usize].keywords {
            if let Step::Properties(p) | Step::Additional { properties: p, .. } = s {
                for (name, n) in p {
                    if discriminator(plan, *n) {
                        names.push((name.clone(), admitted(plan, *n)));
                    }
                }
            }
        }
        names
    };
    for &id in nodes {
        for (_, step) in &plan.nodes[id as usize].keywords {
            if let Step::AnyOf(list) | Step::OneOf(list) = step {
                let targets: Vec<u32> = list.iter().map(|&b| target(b)).collect();
                let names: Vec<Vec<(String, String)>> =
                    targets.iter().map(|&t| tags_of(t)).collect();
                for (t, own) in targets.iter().zip(&names) {
                    for (name, values) in own {
                        // (In two branches or more, and not admitting the same values in
                        // all: `"jsonrpc": {"const": "2.0"}` in every branch tells none.)
                        let mut shared = 0;
                        let mut differs = false;
                        for (n, v) in names.iter().flatten() {
                            if n == name {
                                shared += 1;
                                differs |= v != values;
                            }
                        }
                        if shared >= 2 && differs && !out[*t as usize].contains(name) {
                            out[*t as usize].push(name.clone());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether `step` compares the value with constants (its type, a `const`/`enum`, a
/// length or a bound): no subschema, no walk, no rule of the engine's.
fn compares(step: &Step) -> bool {
    matches!(
        step,
        Step::Type { .. }
            | Step::Strings(_)
            | Step::Equals(_)
            | Step::MaxLength(_)
            | Step::MinLength(_)
            | Step::Bound { .. }
    )
}

/// Whether `node` decides by a few comparisons (no subschema, no walk).
fn light(plan: &Plan, node: u32) -> bool {
    plan.nodes.get(node as usize).is_some_and(|n| {
        !n.whole
            && n.keywords
                .iter()
                .all(|(_, s)| compares(s) || matches!(s, Step::MultipleOf(_) | Step::Pattern(_)))
    })
}

/// The values a [`discriminator`] admits by its `const`/`enum`, as text.
fn admitted(plan: &Plan, node: u32) -> String {
    let mut out = String::new();
    for (_, s) in plan
        .nodes
        .get(node as usize)
        .map_or(&[][..], |n| &n.keywords)
    {
        match s {
            Step::Strings(list) => out.push_str(&format!("{list:?}")),
            Step::Equals(text) => out.push_str(text),
            _ => {}
        }
    }
    out
}

/// Whether `node` only compares a value with constants, one of them a `const`/`enum` (a
/// discriminator such as `{"enum": ["Point"]}` or `{"const": 3}`).
fn discriminator(plan: &Plan, node: u32) -> bool {
    let Some(n) = plan.nodes.get(node as usize) else {
        return false;
    };
    !n.whole
        && n.keywords
            .iter()
            .any(|(_, s)| matches!(s, Step::Strings(_) | Step::Equals(_)))
        && n.keywords.iter().all(|(_, s)| compares(s))
}

/// The nodes that admit every instance, by what they are made of (no keyword, or only
/// applicators of such nodes): their calls, and walks that would only make them, are left
/// out. Not trivial: a reference (shared nodes can multiply the engine's steps past its
/// budget, which decides the verdict then; so can a cycle), a pattern (its match can run
/// out of budget, which fails the instance).
fn trivial_nodes(plan: &Plan) -> Vec<bool> {
    let mut t = vec![false; plan.nodes.len()];
    loop {
        let mut changed = false;
        for (i, node) in plan.nodes.iter().enumerate() {
            if t[i] || node.whole {
                continue;
            }
            let is = |n: &u32| t.get(*n as usize) == Some(&true);
            let admits_all = node.keywords.iter().all(|(_, s)| match s {
                Step::Properties(p) | Step::DependentSchemas(p) => p.iter().all(|(_, c)| is(c)),
                Step::PatternProperties(p) => p.is_empty(),
                Step::Additional {
                    properties,
                    patterns,
                    node: Some(a),
                } => is(a) && properties.iter().all(|(_, c)| is(c)) && patterns.is_empty(),
                Step::Items { node, .. } => is(node),
                Step::PrefixItems(l) | Step::AllOf(l) => l.iter().all(is),
                Step::AnyOf(l) => l.iter().any(is),
                Step::Contains {
                    min: 0, max: None, ..
                } => true,
                _ => false,
            });
            if admits_all {
                t[i] = true;
                changed = true;
            }
        }
        if !changed {
            return t;
        }
    }
}

/// The names of a node's `required` that its object walk counts instead of looking them
/// up (declared names, at most 64).
fn fused_required(node: &NodePlan) -> Vec<String> {
    let declared: Vec<&str> = node
        .keywords
        .iter()
        .flat_map(|(_, s)| match s {
            Step::Properties(p) | Step::Additional { properties: p, .. } => p.as_slice(),
            _ => &[],
        })
        .map(|(n, _)| n.as_str())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for (_, s) in &node.keywords {
        if let Step::Required(names) = s {
            for n in names {
                if declared.contains(&n.as_str()) && !out.contains(n) && out.len() < 64 {
                    out.push(n.clone());
                }
            }
        }
    }
    out
}

fn emit(name: &Ident, text: &str, config: &Config, plan: &Plan) -> Generated {
    let mut coverage = Coverage::default();
    let nodes = if plan.dynamic {
        coverage.delegated_schema = true;
        Vec::new()
    } else {
        reachable(plan)
    };
    let mut uses_engine = false;
    let mut fns = Vec::new();
    let tags = branch_tags(plan, &nodes);
    let trivial = trivial_nodes(plan);
    let is_trivial = |n: &u32| trivial.get(*n as usize) == Some(&true);
    for &id in &nodes {
        let node = &plan.nodes[id as usize];
        coverage.nodes += 1;
        let f = node_fn(id);
        let node_lit = Literal::u32_suffixed(id);
        if node.whole {
            coverage.delegated_nodes += 1;
            uses_engine = true;
            fns.push(quote! {
                #[inline(never)]
                pub(super) fn #f(v: &__c::Value, _s: &mut __c::Steps) -> bool {
                    __c::node(r(), #node_lit, v)
                }
            });
            continue;
        }
        let mut a = Arms::default();
        let fused = fused_required(node);
        // (A branch of `anyOf`/`oneOf` checks its tags first, by lookup, so that a branch
        // the instance is not of fails before its walk: see `branch_tags`.)
        let mut checked: Vec<String> = Vec::new();
        if !tags[id as usize].is_empty() {
            for (_, s) in &node.keywords {
                if let Step::Properties(p) | Step::Additional { properties: p, .. } = s {
                    for (name, n) in p {
                        // (Only when the walk, in the keys' order, would reach the tag after
                        // a property of more than a few comparisons.)
                        let late = p.iter().any(|(other, o)| {
                            other.as_bytes() < name.as_bytes() && !light(plan, *o)
                        });
                        if late && tags[id as usize].contains(name) {
                            let f = node_fn(*n);
                            let lit = Literal::string(name);
                            a.object.push((
                                SHARED,
                                quote! { match o.get(#lit) { Some(x) => #f(x, st), None => true } },
                            ));
                            checked.push(name.clone());
                        }
                    }
                }
            }
        }
        for (k, step) in &node.keywords {
            let k_lit = Literal::u32_suffixed(*k);
            let engine = quote! { __c::keyword(r(), #node_lit, #k_lit, v) };
            match step {
                Step::Engine { delegates, only } => {
                    uses_engine = true;
                    let cost = if *delegates { DELEGATED } else { SHARED };
                    if *delegates {
                        coverage.delegated_keywords += 1;
                    } else {
                        coverage.shared += 1;
                    }
                    match *only {
                        Some(NUMBER) => a.number.push((cost, engine)),
                        Some(STRING) => a.string.push((cost, engine)),
                        Some(ARRAY) => a.array.push((cost, engine)),
                        Some(OBJECT) => a.object.push((cost, engine)),
                        _ => a.any.push((cost, engine)),
                    }
                    continue;
                }
                _ => coverage.generated += 1,
            }
            match step {
                Step::False => a.any.push((CHEAP, quote! { false })),
                Step::Type {
                    bits,
                    kinds,
                    any_number,
                    integer,
                } => {
                    let no = quote! { false };
                    for (arm, yes) in [
                        (&mut a.null, kinds[0]),
                        (&mut a.boolean, kinds[1]),
                        (&mut a.string, kinds[2]),
                        (&mut a.array, kinds[3]),
                        (&mut a.object, kinds[4]),
                    ] {
                        if !yes {
                            arm.push((CHEAP, no.clone()));
                        }
                    }
                    if !any_number {
                        if *integer {
                            let bits = Literal::u8_suffixed(*bits);
                            a.number
                                .push((CHEAP, quote! { __c::type_admits(#bits, v) }));
                        } else {
                            a.number.push((CHEAP, no));
                        }
                    }
                }
                Step::Strings(list) => {
                    a.string
                        .push((CHEAP, one_of_strings(&quote! { s.as_str() }, list)));
                    for arm in [
                        &mut a.null,
                        &mut a.boolean,
                        &mut a.number,
                        &mut a.array,
                        &mut a.object,
                    ] {
                        arm.push((CHEAP, quote! { false }));
                    }
                }
                Step::Bound {
                    kind,
                    floor,
                    ceil,
                    float,
                } => {
                    let (floor, ceil) = (
                        Literal::i128_suffixed(*floor),
                        Literal::i128_suffixed(*ceil),
                    );
                    let int = match kind {
                        0 => quote! { (i as i128) >= #ceil },
                        1 => quote! { (i as i128) > #floor },
                        2 => quote! { (i as i128) <= #floor },
                        _ => quote! { (i as i128) < #ceil },
                    };
                    let float_test = float.map(|f| {
                        let bits = Literal::u64_suffixed(f.to_bits());
                        let limit = quote! { f64::from_bits(#bits) };
                        let cmp = match kind {
                            0 => quote! { f >= #limit },
                            1 => quote! { f > #limit },
                            2 => quote! { f <= #limit },
                            _ => quote! { f < #limit },
                        };
                        quote! {
                            else if let (true, Some(f)) = (n.is_f64(), n.as_f64()) { #cmp }
                        }
                    });
                    // (The engine decides what one comparison does not: integers past
                    // `i64`, floats against a limit no `f64` holds.)
                    uses_engine = true;
                    a.number.push((
                        CHEAP,
                        quote! {
                            if let Some(i) = n.as_i64() { #int } #float_test else { #engine }
                        },
                    ));
                }
                Step::MaxLength(m) => {
                    let m = u64_lit(*m);
                    a.string.push((CHEAP, quote! { __c::max_length(s, #m) }));
                }
                Step::MinLength(m) => {
                    let m = u64_lit(*m);
                    a.string.push((CHEAP, quote! { __c::min_length(s, #m) }));
                }
                Step::MaxItems(m) => {
                    let m = u64_lit(*m);
                    a.array.push((CHEAP, quote! { (a.len() as u64) <= #m }));
                }
                Step::MinItems(m) => {
                    let m = u64_lit(*m);
                    a.array.push((CHEAP, quote! { (a.len() as u64) >= #m }));
                }
                Step::MaxProperties(m) => {
                    let m = u64_lit(*m);
                    a.object.push((CHEAP, quote! { (o.len() as u64) <= #m }));
                }
                Step::MinProperties(m) => {
                    let m = u64_lit(*m);
                    a.object.push((CHEAP, quote! { (o.len() as u64) >= #m }));
                }
                Step::Required(names) => {
                    // (The names the object walk counts are not looked up; an object of
                    // fewer properties than those names fails at once.)
                    let mut looked_up = Vec::new();
                    for n in names {
                        if !fused.contains(n) && !looked_up.contains(&n) {
                            looked_up.push(n);
                            let lit = Literal::string(n);
                            a.object.push((CHEAP, quote! { o.contains_key(#lit) }));
                        }
                    }
                }
                Step::Properties(props) if props.is_empty() => {}
                Step::Properties(props) => {
                    let walk = object_walk(props, &[], None, &fused, &checked, &trivial);
                    a.object.push((APPLIES, walk));
                }
                Step::Additional {
                    properties,
                    patterns,
                    node,
                } => {
                    let walk = object_walk(
                        properties,
                        patterns,
                        Some(*node),
                        &fused,
                        &checked,
                        &trivial,
                    );
                    a.object.push((APPLIES, walk));
                }
                Step::PatternProperties(patterns) => {
                    let walk = object_walk(&[], patterns, None, &[], &[], &trivial);
                    a.object.push((APPLIES, walk));
                }
                Step::MultipleOf(i) => {
                    let i = Literal::u32_suffixed(*i);
                    uses_engine = true;
                    coverage.generated -= 1;
                    coverage.shared += 1;
                    a.number
                        .push((SHARED, quote! { __c::multiple_of(r(), #i, n) }));
                }
                Step::Equals(_) => {
                    uses_engine = true;
                    coverage.generated -= 1;
                    coverage.shared += 1;
                    a.any.push((SHARED, engine));
                }
                Step::Pattern(p) => {
                    let p = Literal::u32_suffixed(*p);
                    a.string
                        .push((SHARED, quote! { __c::pattern(r(), #p, s, st) }));
                    coverage.generated -= 1;
                    coverage.shared += 1;
                    uses_engine = true;
                }
                Step::PropertyNames(n) => match name_checks(plan, *n) {
                    Some(checks) if checks.is_empty() => {}
                    Some(checks) => {
                        uses_engine = true;
                        a.object.push((
                            APPLIES,
                            quote! {{
                                for key in o.keys() {
                                    let key = key.as_str();
                                    if !(#( (#checks) )&&*) { return false; }
                                }
                                true
                            }},
                        ));
                    }
                    None => {
                        uses_engine = true;
                        coverage.generated -= 1;
                        coverage.delegated_keywords += 1;
                        a.object.push((DELEGATED, engine));
                    }
                },
                Step::DependentSchemas(deps) => {
                    for (name, n) in deps.iter().filter(|(_, n)| !is_trivial(n)) {
                        let f = node_fn(*n);
                        let lit = Literal::string(name);
                        a.object
                            .push((APPLIES, quote! { (!o.contains_key(#lit) || #f(v, st)) }));
                    }
                }
                // (No item needs to match and any number may: nothing to check.)
                Step::Contains {
                    min: 0, max: None, ..
                } => {}
                Step::Contains { node, min, max } => {
                    let f = node_fn(*node);
                    let min_lit = u64_lit(*min);
                    let on_match = match max {
                        Some(m) => {
                            let m = u64_lit(*m);
                            quote! { if count > #m { break 'contains false; } }
                        }
                        None => quote! { if count >= #min_lit { break 'contains true; } },
                    };
                    let enough = if *min == 0 {
                        quote! { true }
                    } else {
                        quote! { count >= #min_lit }
                    };
                    a.array.push((
                        APPLIES,
                        quote! {
                            'contains: {
                                let mut count = 0u64;
                                for x in a {
                                    if #f(x, st) {
                                        count += 1;
                                        #on_match
                                    }
                                }
                                #enough
                            }
                        },
                    ));
                }
                Step::PrefixItems(list) => {
                    let checks = list.iter().enumerate().filter(|(_, n)| !is_trivial(n)).map(|(i, n)| {
                        let f = node_fn(*n);
                        let i = Literal::usize_unsuffixed(i);
                        quote! { if let Some(x) = a.get(#i) { if !#f(x, st) { return false; } } }
                    });
                    a.array.push((APPLIES, quote! {{ #(#checks)* true }}));
                }
                // (Calls of nodes that admit everything are left out: `trivial_nodes`.)
                Step::Items { node, .. } if is_trivial(node) => {}
                Step::Items { node, skip } => {
                    let f = node_fn(*node);
                    let skip = Literal::usize_unsuffixed(*skip as usize);
                    a.array.push((
                        APPLIES,
                        quote! {{
                            for x in a.iter().skip(#skip) {
                                if !#f(x, st) { return false; }
                            }
                            true
                        }},
                    ));
                }
                Step::AllOf(list) => {
                    for n in list.iter().filter(|n| !is_trivial(n)) {
                        let f = node_fn(*n);
                        a.any.push((APPLIES, quote! { #f(v, st) }));
                    }
                }
                Step::AnyOf(list) if list.iter().any(is_trivial) => {}
                Step::AnyOf(list) => {
                    let calls = list.iter().map(|n| {
                        let f = node_fn(*n);
                        quote! { #f(v, st) }
                    });
                    a.any.push((APPLIES, quote! { (#(#calls)||*) }));
                }
                Step::OneOf(list) => {
                    let calls = list.iter().map(|n| {
                        let f = node_fn(*n);
                        quote! {
                            if #f(v, st) {
                                if matched { return false; }
                                matched = true;
                            }
                        }
                    });
                    a.any.push((
                        APPLIES,
                        quote! {{
                            let mut matched = false;
                            #(#calls)*
                            matched
                        }},
                    ));
                }
                Step::Not(n) => {
                    let f = node_fn(*n);
                    a.any.push((APPLIES, quote! { !#f(v, st) }));
                }
                Step::If { cond, then, els } => {
                    let c = node_fn(*cond);
                    let branch = |b: &Option<u32>| match b {
                        Some(n) => {
                            let f = node_fn(*n);
                            quote! { #f(v, st) }
                        }
                        None => quote! { true },
                    };
                    let (t, e) = (branch(then), branch(els));
                    if then.is_some() || els.is_some() {
                        a.any
                            .push((APPLIES, quote! { if #c(v, st) { #t } else { #e } }));
                    }
                }
                Step::Ref(target) if is_trivial(target) => {}
                Step::Ref(target) => {
                    let f = node_fn(*target);
                    // (A reference that can come back here may recurse as deep as the
                    // instance: on a fresh stack segment when this one runs low.)
                    let call = if reaches(plan, *target, id) {
                        quote! { __c::deep(|| #f(v, st)) }
                    } else {
                        quote! { #f(v, st) }
                    };
                    a.any.push((
                        APPLIES,
                        quote! {{
                            if !st.step() { return false; }
                            #call
                        }},
                    ));
                }
                Step::Engine { .. } => unreachable!("handled above"),
            }
        }
        if !fused.is_empty() {
            let count = u64_lit(fused.len() as u64);
            a.object
                .push((CHEAP, quote! { (o.len() as u64) >= #count }));
        }
        fns.push(node_body(&f, a));
    }
    let config_tokens = {
        let (f, c, d) = (config.assert_formats, config.assert_content, config.draft);
        quote! { __c::Config { assert_formats: #f, assert_content: #c, draft: #d } }
    };
    let (fp_nodes, fp_keywords) = plan.fingerprint;
    let module = format_ident!("__toolschema_{}", name);
    let text_lit = Literal::string(text);
    let root = node_fn(plan.root);
    let is_valid = if coverage.delegated_schema {
        quote! { #module::forms().fast.is_valid(instance) }
    } else {
        let guard = uses_engine.then(|| {
            quote! {
                if #module::forms().reference.is_none() {
                    return #module::forms().fast.is_valid(instance);
                }
            }
        });
        quote! {
            #guard
            let mut steps = ::toolschema::codegen::Steps::new();
            let ok = #module::#root(instance, &mut steps);
            if steps.spent() {
                // (Past the generated code's budget: the engine's own decides.)
                return #module::forms().fast.is_valid(instance);
            }
            ok
        }
    };
    let tokens = quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unused, clippy::all, clippy::pedantic)]
        mod #module {
            use ::toolschema::codegen as __c;
            pub(super) const SCHEMA: &str = #text_lit;
            static FORMS: ::std::sync::OnceLock<__c::Forms> = ::std::sync::OnceLock::new();
            #[inline]
            pub(super) fn forms() -> &'static __c::Forms {
                FORMS.get_or_init(|| __c::Forms::new(SCHEMA, #config_tokens, (#fp_nodes, #fp_keywords)))
            }
            /// The reference form (checked present before the generated code runs).
            #[inline(always)]
            fn r() -> &'static ::toolschema::Schema {
                let f = forms();
                f.reference.as_ref().unwrap_or(&f.fast)
            }
            #(#fns)*
        }

        impl #name {
            /// The schema this validator was generated from, as JSON text.
            pub const SCHEMA: &'static str = #module::SCHEMA;

            /// Whether `instance` conforms: generated code, the verdict of
            /// [`toolschema::Schema::is_valid`]. Allocates nothing.
            pub fn is_valid(instance: &::toolschema::codegen::Value) -> bool {
                #is_valid
            }

            /// The runtime engine's compiled form of the schema (compiled on first use),
            /// for the rest of its API.
            pub fn schema() -> &'static ::toolschema::Schema {
                &#module::forms().fast
            }

            /// [`toolschema::Schema::validate`]: the generated verdict, then the engine's
            /// errors for an instance it rejects.
            ///
            /// # Errors
            /// Every error, in evaluation order.
            pub fn validate(
                instance: &::toolschema::codegen::Value,
            ) -> ::core::result::Result<(), ::toolschema::ValidationErrors> {
                if Self::is_valid(instance) {
                    return Ok(());
                }
                Self::schema().validate(instance)
            }

            /// [`toolschema::Schema::iter_errors`].
            pub fn iter_errors<'v>(
                instance: &'v ::toolschema::codegen::Value,
            ) -> ::toolschema::ErrorIter<'static, 'v> {
                Self::schema().iter_errors(instance)
            }

            /// [`toolschema::Schema::evaluate`].
            pub fn evaluate(instance: &::toolschema::codegen::Value) -> ::toolschema::Evaluation {
                Self::schema().evaluate(instance)
            }
        }
    };
    Generated { tokens, coverage }
}

/// A node's function: a `match` on the instance's kind, each arm its kind's checks then
/// the checks of any kind.
fn node_body(f: &Ident, a: Arms) -> TokenStream {
    let any = &a.any;
    let arm = |checks: &[(u8, TokenStream)]| -> TokenStream {
        let mut all: Vec<&(u8, TokenStream)> = checks.iter().chain(any.iter()).collect();
        if all.is_empty() {
            return quote! { true };
        }
        // (Stable: keywords of one class keep the schema's order.)
        all.sort_by_key(|(cost, _)| *cost);
        let all = all.into_iter().map(|(_, t)| t);
        quote! { #( (#all) )&&* }
    };
    let (null, boolean, number, string, array, object) = (
        arm(&a.null),
        arm(&a.boolean),
        arm(&a.number),
        arm(&a.string),
        arm(&a.array),
        arm(&a.object),
    );
    quote! {
        #[inline]
        pub(super) fn #f(v: &__c::Value, st: &mut __c::Steps) -> bool {
            match v {
                __c::Value::Null => #null,
                __c::Value::Bool(_) => #boolean,
                __c::Value::Number(n) => #number,
                __c::Value::String(s) => #string,
                __c::Value::Array(a) => #array,
                __c::Value::Object(o) => #object,
            }
        }
    }
}

/// `toolschema::GeneratedValidator` for the type `name`, by the inherent items [`emit`]
/// writes (inherent associated items take precedence over the trait's in a path).
fn trait_impl(name: &Ident, config: &Config) -> TokenStream {
    let (f, c, d) = (config.assert_formats, config.assert_content, config.draft);
    quote! {
        impl ::toolschema::GeneratedValidator for #name {
            const SCHEMA: &'static str = #name::SCHEMA;
            #[inline]
            fn is_valid(instance: &::toolschema::codegen::Value) -> bool {
                #name::is_valid(instance)
            }
            fn schema() -> &'static ::toolschema::Schema {
                #name::schema()
            }
            fn options() -> ::toolschema::Options {
                ::toolschema::codegen::Config { assert_formats: #f, assert_content: #c, draft: #d }.options()
            }
        }
    }
}
