//! ECMA-262 pattern syntax (with the `u` flag) parsed into a small AST.
//!
//! The parser follows the `Pattern[+UnicodeMode]` grammar of ECMA-262 with a
//! few Annex B leniencies that real-world schemas rely on: a `{` that does not
//! start a quantifier, a lone `}` or `]`, any ASCII punctuation after `\`, and
//! a `-` next to a class escape inside a character class are all literals.
//! Escapes of ASCII letters that ECMA-262 does not define (`\a`, `\z`, ...)
//! stay errors, as the `u` flag demands.
//!
//! Recursion is bounded by [`MAX_NEST`], so hostile input such as 100,000
//! nested groups is an error, not a stack overflow.

/// Deepest nesting of groups accepted; deeper patterns are an error. The
/// `regex` crate's own default is 250; real patterns stay far below, and this
/// keeps a debug build's recursion well inside a 1 MiB stack.
pub(super) const MAX_NEST: usize = 256;

/// Largest code point.
const MAX_CP: u32 = 0x10_FFFF;
/// First surrogate code point; surrogates never occur in a Rust `str`.
const SURROGATE_LO: u32 = 0xD800;
/// Last surrogate code point.
const SURROGATE_HI: u32 = 0xDFFF;

/// ECMA-262 `WhiteSpace` and `LineTerminator`: the set `\s` matches.
pub(super) const ECMA_SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
/// ECMA-262 `\d`: ASCII digits only.
const ECMA_DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
/// ECMA-262 `\w`: ASCII word characters only (no `i` flag, so no Kelvin sign).
pub(super) const ECMA_WORD: &[(u32, u32)] =
    &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// ECMA-262 `LineTerminator`: what `.` does not match.
pub(super) const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];

/// A parsed pattern: a disjunction of alternatives.
#[derive(Debug)]
pub(super) struct Ast {
    /// Top-level alternatives, each a sequence of terms.
    pub(super) alternatives: Vec<Vec<Node>>,
    /// Whether the pattern needs a backtracking engine (lookaround, backreference).
    pub(super) needs_backtracking: bool,
}

/// One term of a pattern.
#[derive(Debug)]
pub(super) enum Node {
    /// One code point.
    Literal(char),
    /// Something that can never match a valid string, such as a lone surrogate.
    Never,
    /// `.`: any code point except a line terminator.
    Dot,
    /// A character class or class escape.
    Class(Class),
    /// `^`: start of input (no `m` flag).
    Start,
    /// `$`: end of input (no `m` flag), never before a final newline.
    End,
    /// `\b` (false) or `\B` (true), on ASCII word characters.
    WordBoundary {
        /// Whether this is `\B`.
        negated: bool,
    },
    /// A group of any kind, holding its alternatives.
    Group(GroupKind, Vec<Vec<Node>>),
    /// A quantified atom.
    Repeat(Box<Repeat>),
    /// A backreference to a capture group, numbered from 1.
    Backref(u32),
}

/// The kind of a parenthesised group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GroupKind {
    /// `(...)` or `(?<name>...)`.
    Capture,
    /// `(?:...)`.
    NonCapture,
    /// `(?=...)`.
    LookAhead,
    /// `(?!...)`.
    NegLookAhead,
    /// `(?<=...)`.
    LookBehind,
    /// `(?<!...)`.
    NegLookBehind,
}

/// A quantifier applied to an atom.
#[derive(Debug)]
pub(super) struct Repeat {
    /// The quantified atom.
    pub(super) node: Node,
    /// Least number of repetitions.
    pub(super) min: u32,
    /// Most repetitions; `None` is unbounded.
    pub(super) max: Option<u32>,
    /// False for a lazy quantifier (`*?`).
    pub(super) greedy: bool,
}

/// A character class: a set of code points plus Unicode property escapes.
#[derive(Debug, Default)]
pub(super) struct Class {
    /// `[^...]`.
    pub(super) negated: bool,
    /// Sorted, merged, surrogate-free code point ranges.
    pub(super) ranges: Vec<(u32, u32)>,
    /// Property escapes, kept as text for the engine to resolve.
    pub(super) props: Vec<Property>,
}

/// A `\p{...}` or `\P{...}` escape.
#[derive(Debug)]
pub(super) struct Property {
    /// `\P`.
    pub(super) negated: bool,
    /// The text between the braces, e.g. `Script=Greek`.
    pub(super) body: String,
}

/// Parses `source` as an ECMA-262 pattern with the `u` flag.
///
/// # Errors
/// A short lowercase reason when the pattern is not valid ECMA-262.
pub(super) fn parse(source: &str) -> Result<Ast, String> {
    let chars: Vec<char> = source.chars().collect();
    let (captures, names) = scan_groups(&chars)?;
    let mut parser = Parser {
        chars,
        pos: 0,
        captures,
        names,
        needs_backtracking: false,
    };
    let alternatives = parser.disjunction(0)?;
    if parser.pos < parser.chars.len() {
        return Err("unmatched ')'".into());
    }
    Ok(Ast {
        alternatives,
        needs_backtracking: parser.needs_backtracking,
    })
}

/// Counts capture groups and collects group names ahead of parsing, since
/// ECMA-262 allows backreferences to groups that appear later.
fn scan_groups(chars: &[char]) -> Result<(u32, Vec<(String, u32)>), String> {
    let mut count = 0u32;
    let mut names: Vec<(String, u32)> = Vec::new();
    let mut in_class = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                if chars.get(i + 1) != Some(&'?') {
                    count = count.saturating_add(1);
                } else if chars.get(i + 2) == Some(&'<')
                    && !matches!(chars.get(i + 3), Some('=' | '!'))
                {
                    count = count.saturating_add(1);
                    let start = i + 3;
                    let len = chars
                        .get(start..)
                        .and_then(|rest| rest.iter().position(|&c| c == '>'))
                        .ok_or("unterminated group name")?;
                    let name: String = chars
                        .get(start..start + len)
                        .unwrap_or(&[])
                        .iter()
                        .collect();
                    if !is_group_name(&name) {
                        return Err("invalid group name".into());
                    }
                    if names.iter().any(|(n, _)| *n == name) {
                        return Err("duplicate group name".into());
                    }
                    names.push((name, count));
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok((count, names))
}

/// ECMA-262 `RegExpIdentifierName`, without `\u` escapes.
fn is_group_name(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_alphabetic() || first == '$' || first == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '$' | '_' | '\u{200C}' | '\u{200D}'))
}

/// What one class atom stands for.
enum ClassAtom {
    /// A single code point (possibly a surrogate, which adds nothing).
    Char(u32),
    /// A class escape such as `\d` or `\p{L}`.
    Set(Class),
}

/// Recursive-descent parser state.
struct Parser {
    chars: Vec<char>,
    pos: usize,
    captures: u32,
    names: Vec<(String, u32)>,
    needs_backtracking: bool,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    /// `Disjunction`: stops before a `)` or at the end.
    fn disjunction(&mut self, depth: usize) -> Result<Vec<Vec<Node>>, String> {
        let mut alternatives = vec![Vec::new()];
        loop {
            match self.peek() {
                None | Some(')') => return Ok(alternatives),
                Some('|') => {
                    self.pos += 1;
                    alternatives.push(Vec::new());
                }
                Some(_) => {
                    let term = self.term(depth)?;
                    if let Some(last) = alternatives.last_mut() {
                        last.push(term);
                    }
                }
            }
        }
    }

    /// `Term`: an assertion, or an atom with an optional quantifier.
    fn term(&mut self, depth: usize) -> Result<Node, String> {
        let (atom, quantifiable) = self.atom(depth)?;
        let Some((min, max)) = self.quantifier()? else {
            return Ok(atom);
        };
        if !quantifiable {
            return Err("nothing to repeat".into());
        }
        let greedy = !self.eat('?');
        if matches!(self.peek(), Some('*' | '+' | '?')) || self.quantifier_ahead() {
            return Err("nothing to repeat".into());
        }
        Ok(Node::Repeat(Box::new(Repeat {
            node: atom,
            min,
            max,
            greedy,
        })))
    }

    /// Whether a `{n}`, `{n,}` or `{n,m}` quantifier starts here.
    fn quantifier_ahead(&self) -> bool {
        let mut i = self.pos;
        if self.chars.get(i) != Some(&'{') {
            return false;
        }
        i += 1;
        let digits = |i: &mut usize| {
            let start = *i;
            while self.chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            *i > start
        };
        if !digits(&mut i) {
            return false;
        }
        if self.chars.get(i) == Some(&',') {
            i += 1;
            digits(&mut i);
        }
        self.chars.get(i) == Some(&'}')
    }

    /// Parses a quantifier if one starts here.
    fn quantifier(&mut self) -> Result<Option<(u32, Option<u32>)>, String> {
        let bounds = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') if self.quantifier_ahead() => {
                self.pos += 1;
                let min = self.number();
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(self.number())
                    }
                } else {
                    Some(min)
                };
                if max.is_some_and(|max| max < min) {
                    return Err("numbers out of order in quantifier".into());
                }
                // `quantifier_ahead` guarantees the closing brace.
                self.pos += 1;
                return Ok(Some((min, max)));
            }
            _ => return Ok(None),
        };
        self.pos += 1;
        Ok(Some(bounds))
    }

    /// Decimal digits, saturating at `u32::MAX` (the engines reject such sizes).
    fn number(&mut self) -> u32 {
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d);
            self.pos += 1;
        }
        n
    }

    /// An atom or assertion, and whether a quantifier may follow it.
    fn atom(&mut self, depth: usize) -> Result<(Node, bool), String> {
        if self.quantifier_ahead() {
            return Err("nothing to repeat".into());
        }
        let Some(c) = self.next() else {
            return Err("unexpected end of pattern".into());
        };
        let node = match c {
            '^' => return Ok((Node::Start, false)),
            '$' => return Ok((Node::End, false)),
            '.' => Node::Dot,
            '(' => return self.group(depth),
            '[' => Node::Class(self.class()?),
            '*' | '+' | '?' => return Err("nothing to repeat".into()),
            '\\' => return self.atom_escape(),
            c => Node::Literal(c),
        };
        Ok((node, true))
    }

    /// A group after its `(`.
    fn group(&mut self, depth: usize) -> Result<(Node, bool), String> {
        if depth >= MAX_NEST {
            return Err("pattern nests too deeply".into());
        }
        let kind = if self.eat('?') {
            match (self.next(), self.peek()) {
                (Some(':'), _) => GroupKind::NonCapture,
                (Some('='), _) => GroupKind::LookAhead,
                (Some('!'), _) => GroupKind::NegLookAhead,
                (Some('<'), Some('=')) => {
                    self.pos += 1;
                    GroupKind::LookBehind
                }
                (Some('<'), Some('!')) => {
                    self.pos += 1;
                    GroupKind::NegLookBehind
                }
                (Some('<'), _) => {
                    // Validated and numbered by `scan_groups`.
                    while self.next().is_some_and(|c| c != '>') {}
                    GroupKind::Capture
                }
                _ => return Err("invalid group".into()),
            }
        } else {
            GroupKind::Capture
        };
        let alternatives = self.disjunction(depth + 1)?;
        if !self.eat(')') {
            return Err("unterminated group".into());
        }
        let quantifiable = matches!(kind, GroupKind::Capture | GroupKind::NonCapture);
        if !quantifiable {
            self.needs_backtracking = true;
        }
        Ok((Node::Group(kind, alternatives), quantifiable))
    }

    /// `AtomEscape` after its `\`.
    fn atom_escape(&mut self) -> Result<(Node, bool), String> {
        match self.peek() {
            Some('b') => {
                self.pos += 1;
                return Ok((Node::WordBoundary { negated: false }, false));
            }
            Some('B') => {
                self.pos += 1;
                return Ok((Node::WordBoundary { negated: true }, false));
            }
            Some('1'..='9') => {
                let n = self.number();
                if n > self.captures {
                    return Err("invalid backreference".into());
                }
                self.needs_backtracking = true;
                return Ok((Node::Backref(n), true));
            }
            Some('k') => {
                self.pos += 1;
                if !self.eat('<') {
                    return Err("invalid named reference".into());
                }
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '>') {
                    self.pos += 1;
                }
                let name: String = self
                    .chars
                    .get(start..self.pos)
                    .unwrap_or(&[])
                    .iter()
                    .collect();
                if !self.eat('>') {
                    return Err("invalid named reference".into());
                }
                let index = self
                    .names
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|&(_, i)| i)
                    .ok_or("reference to an undefined group name")?;
                self.needs_backtracking = true;
                return Ok((Node::Backref(index), true));
            }
            _ => {}
        }
        let node = match self.class_or_char_escape(false)? {
            ClassAtom::Set(class) => Node::Class(class),
            ClassAtom::Char(cp) => char::from_u32(cp).map_or(Node::Never, Node::Literal),
        };
        Ok((node, true))
    }

    /// `CharacterClassEscape` or `CharacterEscape` after a `\`.
    fn class_or_char_escape(&mut self, in_class: bool) -> Result<ClassAtom, String> {
        let Some(c) = self.next() else {
            return Err("\\ at end of pattern".into());
        };
        let set = |ranges: &[(u32, u32)], negated: bool| {
            let mut class = Class::default();
            for &(lo, hi) in ranges {
                class.add_range(lo, hi);
            }
            if negated {
                class.ranges = complement(&class.ranges);
            }
            ClassAtom::Set(class)
        };
        let cp = match c {
            'd' => return Ok(set(ECMA_DIGIT, false)),
            'D' => return Ok(set(ECMA_DIGIT, true)),
            'w' => return Ok(set(ECMA_WORD, false)),
            'W' => return Ok(set(ECMA_WORD, true)),
            's' => return Ok(set(ECMA_SPACE, false)),
            'S' => return Ok(set(ECMA_SPACE, true)),
            'p' | 'P' => return self.property(c == 'P').map(ClassAtom::Set),
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'v' => 0x0B,
            'b' if in_class => 0x08,
            'c' => match self.next() {
                Some(l) if l.is_ascii_alphabetic() => u32::from(l) % 32,
                _ => return Err("invalid control escape".into()),
            },
            '0' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => 0,
            'x' => {
                let hi = self.next().and_then(|c| c.to_digit(16));
                let lo = self.next().and_then(|c| c.to_digit(16));
                match (hi, lo) {
                    (Some(hi), Some(lo)) => hi * 16 + lo,
                    _ => return Err("invalid \\x escape".into()),
                }
            }
            'u' => self.unicode_escape()?,
            c if c.is_ascii() && !c.is_ascii_alphanumeric() => u32::from(c),
            _ => return Err("invalid escape".into()),
        };
        Ok(ClassAtom::Char(cp))
    }

    /// `\u` escapes after the `u`: `{H...}`, `HHHH`, or a surrogate pair of two `\uHHHH`.
    fn unicode_escape(&mut self) -> Result<u32, String> {
        if self.eat('{') {
            let mut cp: u32 = 0;
            let mut digits = 0;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                cp = cp.saturating_mul(16).saturating_add(d);
                digits += 1;
                self.pos += 1;
            }
            if digits == 0 || !self.eat('}') || cp > MAX_CP {
                return Err("invalid unicode escape".into());
            }
            return Ok(cp);
        }
        let lead = self.hex4().ok_or("invalid unicode escape")?;
        if (0xD800..0xDC00).contains(&lead)
            && self.peek() == Some('\\')
            && self.peek_at(1) == Some('u')
        {
            let save = self.pos;
            self.pos += 2;
            match self.hex4() {
                Some(trail) if (0xDC00..=0xDFFF).contains(&trail) => {
                    return Ok(0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00));
                }
                _ => self.pos = save,
            }
        }
        Ok(lead)
    }

    /// Exactly four hex digits.
    fn hex4(&mut self) -> Option<u32> {
        let mut v = 0;
        for _ in 0..4 {
            let d = self.peek()?.to_digit(16)?;
            self.pos += 1;
            v = v * 16 + d;
        }
        Some(v)
    }

    /// `\p{...}` after the `p`; the name is resolved by the engine (or by
    /// `regex-syntax` for a syntax-only check).
    fn property(&mut self, negated: bool) -> Result<Class, String> {
        if !self.eat('{') {
            return Err("invalid property escape".into());
        }
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=')
        {
            self.pos += 1;
        }
        let body: String = self
            .chars
            .get(start..self.pos)
            .unwrap_or(&[])
            .iter()
            .collect();
        if body.is_empty() || !self.eat('}') || body.matches('=').count() > 1 {
            return Err("invalid property escape".into());
        }
        if !property_known(&body) {
            return Err("unknown unicode property".into());
        }
        Ok(Class {
            negated: false,
            ranges: Vec::new(),
            props: vec![Property { negated, body }],
        })
    }

    /// A character class after its `[`.
    fn class(&mut self) -> Result<Class, String> {
        let mut class = Class {
            negated: self.eat('^'),
            ..Class::default()
        };
        loop {
            let atom = match self.next() {
                None => return Err("unterminated character class".into()),
                Some(']') => break,
                Some(c) => self.class_atom(c)?,
            };
            if self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None) {
                self.pos += 1;
                let Some(c) = self.next() else {
                    return Err("unterminated character class".into());
                };
                let second = self.class_atom(c)?;
                match (atom, second) {
                    (ClassAtom::Char(lo), ClassAtom::Char(hi)) => {
                        if lo > hi {
                            return Err("range out of order in character class".into());
                        }
                        class.add_range(lo, hi);
                    }
                    // Annex B: a class escape on either side makes the dash a literal.
                    (a, b) => {
                        class.add_atom(a);
                        class.add_range(0x2D, 0x2D);
                        class.add_atom(b);
                    }
                }
            } else {
                class.add_atom(atom);
            }
        }
        class.normalize();
        Ok(class)
    }

    /// `ClassAtom` whose first character `c` has been consumed.
    fn class_atom(&mut self, c: char) -> Result<ClassAtom, String> {
        if c != '\\' {
            return Ok(ClassAtom::Char(u32::from(c)));
        }
        if self.peek() == Some('-') {
            self.pos += 1;
            return Ok(ClassAtom::Char(0x2D));
        }
        self.class_or_char_escape(true)
    }
}

/// Whether `regex-syntax` knows the property; checked here so that a
/// syntax-only validation (`format: "regex"`) agrees with compilation.
fn property_known(body: &str) -> bool {
    let text = format!("\\p{{{body}}}");
    regex_syntax::Parser::new().parse(&text).is_ok()
}

impl Class {
    /// Adds a range, leaving out surrogates (they cannot occur in a `str`).
    fn add_range(&mut self, lo: u32, hi: u32) {
        if lo < SURROGATE_LO {
            self.ranges.push((lo, hi.min(SURROGATE_LO - 1)));
        }
        if hi > SURROGATE_HI {
            self.ranges.push((lo.max(SURROGATE_HI + 1), hi));
        }
    }

    fn add_atom(&mut self, atom: ClassAtom) {
        match atom {
            ClassAtom::Char(cp) => self.add_range(cp, cp),
            ClassAtom::Set(set) => {
                self.ranges.extend(set.ranges);
                self.props.extend(set.props);
            }
        }
    }

    /// Sorts and merges overlapping or adjacent ranges.
    fn normalize(&mut self) {
        self.ranges = normalized(std::mem::take(&mut self.ranges));
    }
}

/// Sorts and merges ranges.
fn normalized(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// The code points (surrogates excluded) not in the sorted, merged `ranges`.
pub(super) fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let ranges = normalized(ranges.to_vec());
    let mut out = Vec::with_capacity(ranges.len() + 2);
    let mut next = 0u32;
    let push = |lo: u32, hi: u32, out: &mut Vec<(u32, u32)>| {
        if lo < SURROGATE_LO {
            out.push((lo, hi.min(SURROGATE_LO - 1)));
        }
        if hi > SURROGATE_HI {
            out.push((lo.max(SURROGATE_HI + 1), hi));
        }
    };
    for (lo, hi) in ranges {
        if lo > next {
            push(next, lo - 1, &mut out);
        }
        next = hi.saturating_add(1);
    }
    if next <= MAX_CP {
        push(next, MAX_CP, &mut out);
    }
    out
}
