//! Writes the AST back out in `regex` / `fancy-regex` syntax.
//!
//! Every construct is spelled so that both engines read it with the ECMA-262
//! meaning: literals as `\x{..}`, classes as explicit code point ranges (so
//! `\d`, `\w`, `\s` and `.` keep their ECMA-262 sets), `^`/`$` as `\A`/`\z`.

use std::fmt::Write;

use super::parse::{Class, ECMA_WORD, GroupKind, LINE_TERMINATORS, Node, Repeat, complement};

/// Renders `alternatives` for the linear-time `regex` engine
/// (`backtracking == false`) or for `fancy-regex`.
pub(super) fn emit(alternatives: &[Vec<Node>], backtracking: bool) -> String {
    let mut out = String::new();
    alternation(&mut out, alternatives, backtracking);
    out
}

fn alternation(out: &mut String, alternatives: &[Vec<Node>], backtracking: bool) {
    for (i, alternative) in alternatives.iter().enumerate() {
        if i > 0 {
            out.push('|');
        }
        for node in alternative {
            emit_node(out, node, backtracking);
        }
    }
}

fn emit_node(out: &mut String, node: &Node, backtracking: bool) {
    match node {
        Node::Literal(c) => literal(out, u32::from(*c)),
        Node::Never => out.push_str(NEVER),
        Node::Dot => ranges(out, &complement(LINE_TERMINATORS), false),
        Node::Class(class) => emit_class(out, class),
        Node::Start => out.push_str(r"\A"),
        Node::End => out.push_str(r"\z"),
        Node::WordBoundary { negated } => word_boundary(out, *negated, backtracking),
        Node::Group(kind, alternatives) => {
            out.push_str(match kind {
                GroupKind::Capture => "(",
                GroupKind::NonCapture => "(?:",
                GroupKind::LookAhead => "(?=",
                GroupKind::NegLookAhead => "(?!",
                GroupKind::LookBehind => "(?<=",
                GroupKind::NegLookBehind => "(?<!",
            });
            alternation(out, alternatives, backtracking);
            out.push(')');
        }
        Node::Repeat(repeat) => emit_repeat(out, repeat, backtracking),
        // ECMA-262: a reference to a group that has not matched matches the
        // empty string; fancy-regex would fail, so test the group first.
        Node::Backref(n) => {
            let _ = write!(out, r"(?:(?({n})\{n}|))");
        }
    }
}

fn emit_repeat(out: &mut String, repeat: &Repeat, backtracking: bool) {
    let atomic = matches!(
        repeat.node,
        Node::Literal(_)
            | Node::Never
            | Node::Dot
            | Node::Class(_)
            | Node::Group(..)
            | Node::Backref(_)
    );
    if !atomic {
        out.push_str("(?:");
    }
    emit_node(out, &repeat.node, backtracking);
    if !atomic {
        out.push(')');
    }
    let _ = match (repeat.min, repeat.max) {
        (0, None) => write!(out, "*"),
        (1, None) => write!(out, "+"),
        (0, Some(1)) => write!(out, "?"),
        (min, None) => write!(out, "{{{min},}}"),
        (min, Some(max)) if min == max => write!(out, "{{{min}}}"),
        (min, Some(max)) => write!(out, "{{{min},{max}}}"),
    };
    if !repeat.greedy {
        out.push('?');
    }
}

/// A class that matches no code point.
const NEVER: &str = r"[^\x{0}-\x{10FFFF}]";
/// A class that matches every code point.
const ANY: &str = r"[\x{0}-\x{10FFFF}]";

fn emit_class(out: &mut String, class: &Class) {
    if class.ranges.is_empty() && class.props.is_empty() {
        // `[]` and `[^]`.
        out.push_str(if class.negated { ANY } else { NEVER });
        return;
    }
    out.push('[');
    if class.negated {
        out.push('^');
    }
    for &(lo, hi) in &class.ranges {
        range(out, lo, hi);
    }
    for prop in &class.props {
        let _ = write!(
            out,
            r"\{}{{{}}}",
            if prop.negated { 'P' } else { 'p' },
            prop.body
        );
    }
    out.push(']');
}

fn ranges(out: &mut String, set: &[(u32, u32)], negated: bool) {
    if set.is_empty() {
        out.push_str(if negated { ANY } else { NEVER });
        return;
    }
    out.push('[');
    if negated {
        out.push('^');
    }
    for &(lo, hi) in set {
        range(out, lo, hi);
    }
    out.push(']');
}

fn range(out: &mut String, lo: u32, hi: u32) {
    literal(out, lo);
    if hi != lo {
        out.push('-');
        literal(out, hi);
    }
}

fn literal(out: &mut String, cp: u32) {
    match char::from_u32(cp) {
        Some(c) if c.is_ascii_alphanumeric() => out.push(c),
        _ => {
            let _ = write!(out, r"\x{{{cp:X}}}");
        }
    }
}

/// ECMA-262 `\b`/`\B` look only at ASCII word characters. The `regex` crate
/// has that assertion built in; fancy-regex cannot switch Unicode mode off,
/// so there it is spelled with lookarounds.
fn word_boundary(out: &mut String, negated: bool, backtracking: bool) {
    if !backtracking {
        out.push_str(if negated { r"(?-u:\B)" } else { r"(?-u:\b)" });
        return;
    }
    let mut word = String::new();
    ranges(&mut word, ECMA_WORD, false);
    let _ = if negated {
        write!(out, "(?:(?<={word})(?={word})|(?<!{word})(?!{word}))")
    } else {
        write!(out, "(?:(?<={word})(?!{word})|(?<!{word})(?={word}))")
    };
}
