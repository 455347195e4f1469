//! If-chains: a node's `if`/`then` clauses that all test one property against literals,
//! decided by one lookup of that property instead of evaluating every condition.

use super::*;

/// `Compiled::if_chains`: for each `allOf` with two or more branches of the form
/// `{"if": {"properties": {K: <literals>}, "required": [K]?}, "then": .., "else": ..}`,
/// one `K` in all (the first such branch's), the literals each condition holds for.
/// (Not with a dynamic scope kept: the branches' own resources would go unentered.)
#[inline(never)]
pub(super) fn if_chains(c: &mut Compiled) {
    if c.dynamic_scope {
        return;
    }
    // (The keywords of unreachable nodes too: harmless.)
    let all_ofs: Vec<Span> = c
        .keywords
        .iter()
        .filter_map(|kw| match *kw {
            Keyword::AllOf(span) if span.len() >= 2 => Some(span),
            crate::schema::applicator_keywords!() | crate::schema::assertion_keywords!() => None,
        })
        .collect();
    let mut chains: Vec<crate::schema::IfChain> = Vec::new();
    let mut of = Vec::new();
    for span in all_ofs {
        // (A list copied into a fused node, see `fuse`, is met twice.)
        if of.get(span.start as usize).is_some_and(|&k| k != 0) {
            continue;
        }
        let mut key: Option<std::sync::Arc<str>> = None;
        let mut arms = Vec::new();
        for j in 0..span.len() {
            let Some((name, values, then, els)) = if_arm(c, c.node_list(span)[j]) else {
                continue;
            };
            if key.get_or_insert_with(|| name.clone()).as_ref() != name.as_ref() {
                continue;
            }
            let values = kept_values(c, values);
            arms.push(crate::schema::IfArm {
                branch: j as u32,
                values,
                then: c.fail_fast_target(then),
                els: c.fail_fast_target(els),
            });
        }
        if let Some(key) = key
            && arms.len() >= 2
        {
            if of.is_empty() {
                of = vec![0; c.node_lists.len()];
            }
            chains.push(crate::schema::IfChain {
                key,
                arms: arms.into(),
            });
            of[span.start as usize] = chains.len() as u32;
        }
    }
    if !chains.is_empty() {
        c.accel.if_chains = Some(Box::new(crate::schema::IfChains { chains, of }));
    }
}

/// An arm of an `if` chain (see `if_chains`): the branch `b` is an `if` alone whose
/// condition is `properties` of one name, maybe with `required` of it, the name's
/// schema an `enum` or a `const`. Gives the name, the literals (a span of `values` as it
/// is, or those the schema's types admit), `then` and `else`.
pub(super) fn if_arm(
    c: &Compiled,
    b: NodeId,
) -> Option<(std::sync::Arc<str>, Literals, NodeId, NodeId)> {
    let n = c.nodes[b.index()];
    let [Keyword::If { cond, then, els }] = c.keywords[n.body()] else {
        return None;
    };
    if n.types != TypeSet::all() || cond.is_none() {
        return None;
    }
    let cond = c.fail_fast_target(cond);
    if c.nodes[cond.index()].types != TypeSet::all() {
        return None;
    }
    let (name, values, _) = literal_test(c, cond)?;
    Some((name, values, then, els))
}

/// Literals of a schema: a span of `values`, or the ones kept of such a span.
pub(super) type Literals = Result<Span, Vec<serde_json::Value>>;

/// The span of `values` that `literal_test`'s literals are: the schema's own, or those
/// kept of them, added.
pub(super) fn kept_values(c: &mut Compiled, values: Literals) -> Span {
    match values {
        Ok(span) => span,
        Err(kept) => {
            let start = c.values.len() as u32;
            c.values.extend(kept);
            Span {
                start,
                end: c.values.len() as u32,
            }
        }
    }
}

/// What a keyword is to a property test (see [`literal_test`]).
enum TestPart {
    Properties(Span),
    Required(Span),
    /// A keyword a property test does not hold.
    Other,
}

/// See [`TestPart`]: decided here for every keyword.
fn test_part(kw: Keyword) -> TestPart {
    match kw {
        Keyword::Properties(p) => TestPart::Properties(p),
        Keyword::Required(r) => TestPart::Required(r),
        Keyword::False
        | Keyword::Type(_)
        | Keyword::Const(_)
        | Keyword::Enum(_)
        | Keyword::MultipleOf(_)
        | Keyword::MaxLength(_)
        | Keyword::MinLength(_)
        | Keyword::Pattern(_)
        | Keyword::Format(_)
        | Keyword::MaxItems(_)
        | Keyword::MinItems(_)
        | Keyword::UniqueItems
        | Keyword::MaxProperties(_)
        | Keyword::MinProperties(_)
        | Keyword::DependentRequired(_)
        | Keyword::Content(_)
        | Keyword::PatternProperties(_)
        | Keyword::AdditionalProperties(_)
        | Keyword::PropertyNames(_)
        | Keyword::DependentSchemas(_)
        | Keyword::PrefixItems(_)
        | Keyword::Items { .. }
        | Keyword::Contains(_)
        | Keyword::AllOf(_)
        | Keyword::AnyOf(_)
        | Keyword::OneOf(_)
        | Keyword::Not(_)
        | Keyword::If { .. }
        | Keyword::Ref(_)
        | Keyword::DynamicRef(_)
        | Keyword::UnevaluatedProperties(_)
        | Keyword::UnevaluatedItems(_)
        | crate::schema::bound_keywords!() => TestPart::Other,
    }
}

/// What a node whose body is `properties` of one name, with an `enum` or `const` schema,
/// maybe beside `required` of that name alone, tests: the name, the literals its schema's
/// types admit (a span of `values`, or those kept of it), and whether it is required.
pub(super) fn literal_test(
    c: &Compiled,
    node: NodeId,
) -> Option<(std::sync::Arc<str>, Literals, bool)> {
    let (properties, required) = match c.keywords[c.nodes[node.index()].body()] {
        [kw] => match test_part(kw) {
            TestPart::Properties(p) => (p, None),
            TestPart::Required(_) | TestPart::Other => return None,
        },
        [a, b] => match (test_part(a), test_part(b)) {
            (TestPart::Properties(p), TestPart::Required(r))
            | (TestPart::Required(r), TestPart::Properties(p)) => (p, Some(r)),
            (TestPart::Properties(_) | TestPart::Required(_) | TestPart::Other, _) => return None,
        },
        [] | [_, _, _, ..] => return None,
    };
    let [(ref name, child)] = c.properties[properties.range()] else {
        return None;
    };
    if let Some(r) = required
        && !matches!(&c.strings[r.range()], [only] if only.as_ref() == name.as_ref())
    {
        return None;
    }
    let (span, types) = literals(c, child)?;
    let values = if types == TypeSet::all() {
        Ok(span)
    } else {
        // (The literals the child's `type` rejects can never match.)
        Err(c.values[span.range()]
            .iter()
            .filter(|v| crate::validate::admits(types, *v))
            .cloned()
            .collect())
    };
    Some((name.clone(), values, required.is_some()))
}
