//! ECMA-262 regular expressions for `pattern`, `patternProperties` and `format: "regex"`.
//!
//! JSON Schema gives patterns the meaning of ECMA-262 with the `u` flag and
//! unanchored search (`RegExp.prototype.test`). Neither Rust engine speaks that
//! dialect, so a pattern goes through three steps:
//!
//! 1. [`parse`] reads the ECMA-262 syntax into a small AST, rejecting what
//!    ECMA-262 rejects (`\a`, `(?i)`, `(?P<n>..)`, `{2,1}`, ...) and bounding
//!    nesting depth.
//! 2. A few shapes common in tool schemas skip the engines entirely: a plain
//!    literal (optionally anchored) becomes `contains`/`starts_with`/
//!    `ends_with`/`==`, and `^[set]{m,n}$` becomes a loop over the characters.
//! 3. [`emit`] writes the rest in engine syntax with every ECMA-262 difference
//!    spelled out: `\d`, `\w`, `\s`, `.` as explicit ranges, `\b` on ASCII
//!    word characters, `^`/`$` as `\A`/`\z` (so `$` never matches before a
//!    final newline), surrogate pairs joined into one code point. Patterns
//!    without lookaround or backreferences go to the `regex` crate (linear
//!    time); the rest go to `fancy-regex`, bounded by a backtracking budget.
//!
//! # Allocation
//! Matching with the `regex` crate does not allocate in steady state: its
//! per-thread search caches live in the regex's internal pool. `fancy-regex`
//! does allocate on every match attempt that reaches its backtracking VM
//! (its stack of saved positions and capture slots are fresh `Vec`s per
//! call), so only patterns that need lookaround or backreferences pay that.
//!
//! # Known differences from ECMA-262
//! - Captures are not reset between iterations of a quantifier, which only
//!   changes what a later backreference sees.
//! - `\p{..}` names follow `regex-syntax` (Unicode's loose matching), so it
//!   accepts spellings such as `\p{digit}` that ECMA-262 would reject; the
//!   official test suite expects that one to work.

mod emit;
mod parse;

use std::fmt;

/// Default bound on backtracking steps per match for patterns that need the
/// backtracking engine: pathological patterns give up in a few milliseconds
/// in release builds, while ordinary ones never get near it.
pub(crate) const DEFAULT_PATTERN_BUDGET: usize = 100_000;

/// Approximate cap on the compiled size of one pattern, so that a huge
/// pattern (`a{100000}{100000}`) is a compile error instead of a memory blowup.
const SIZE_LIMIT: usize = 8 << 20;

/// Cap on the lazy DFA's cache for one pattern.
const DFA_SIZE_LIMIT: usize = 2 << 20;

/// Cap on a pattern's size with every counted repetition written out, in units of about
/// one automaton state (one UTF-8 byte of a literal, one range of a class): checked on the
/// AST before any engine is built, since the engines' own limits are reached only after
/// they have spent the memory (`(?:a{65535}){65535}` is 20 bytes and four billion
/// states). A state costs 16 bytes or more, so this keeps to `SIZE_LIMIT`.
const MAX_EXPANDED: u64 = (SIZE_LIMIT / 16) as u64;

/// What a property class (`\p{..}`) is taken to cost in [`expanded_size`].
const PROPERTY_STATES: usize = 256;

/// The size of `alternatives` with every counted repetition written out, in units of
/// about one automaton state; saturates.
fn expanded_size(alternatives: &[Vec<parse::Node>]) -> u64 {
    use parse::Node;
    fn node(n: &Node) -> u64 {
        match n {
            Node::Literal(c) => c.len_utf8() as u64,
            // (`.` is the complement of four code points: a handful of UTF-8 states.)
            Node::Dot => 8,
            // (A property class compiles to hundreds of UTF-8 states: `\p{L}` to about 500;
            // weighed less, `\p{L}{100000}` passed here and took seconds to refuse.)
            Node::Class(class) => {
                (class.ranges.len() + PROPERTY_STATES * class.props.len()).max(1) as u64
            }
            Node::Group(_, alts) => 1 + expanded_size(alts),
            Node::Repeat(r) => {
                // `X{n,m}` is written out as `m` copies, `X{n,}` as `n` copies and a loop.
                let copies = r.max.unwrap_or(r.min.saturating_add(1)).max(1);
                node(&r.node).saturating_mul(u64::from(copies))
            }
            _ => 1,
        }
    }
    alternatives
        .iter()
        .flatten()
        .fold(0u64, |acc, n| acc.saturating_add(node(n)))
}

/// A budget that pattern work is counted toward: the evaluation's step budget (see
/// `validate::Budget`), so that a call's pattern work is bounded with the rest of it.
pub(crate) trait Meter {
    /// Takes `steps` from the budget; `false` once it is exceeded.
    fn charge(&self, steps: u64) -> bool;
}

/// No budget but the pattern's own: for tests.
#[cfg(test)]
pub(crate) struct Unmetered;

#[cfg(test)]
impl Meter for Unmetered {
    fn charge(&self, _: u64) -> bool {
        true
    }
}

/// Bytes of subject per step charged for a search (every engine's work grows with the
/// subject); shorter subjects are not charged, so the common path only compares a length.
const BYTES_PER_STEP: usize = 64;

/// Backtracking steps of a first, quick attempt at a match: most matches of ordinary
/// patterns end within it. A match that needs more is tried again with the whole
/// `pattern_budget`; each attempt is charged its limit, one evaluation step per
/// backtracking step, before it runs.
const QUICK_BACKTRACKS: usize = 256;

/// How a match attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatchOutcome {
    /// The pattern matches somewhere in the subject.
    Match,
    /// The pattern matches nowhere in the subject.
    NoMatch,
    /// The backtracking engine ran out of its step budget.
    BudgetExceeded,
}

impl MatchOutcome {
    fn from_bool(matched: bool) -> MatchOutcome {
        if matched {
            MatchOutcome::Match
        } else {
            MatchOutcome::NoMatch
        }
    }
}

/// A compiled pattern.
#[derive(Debug)]
pub(crate) struct Pattern {
    matcher: Matcher,
    /// The first bytes a non-empty match can start with (see [`Lead`]).
    lead: Lead,
}

/// A set of bytes that every non-empty subject a pattern matches starts with: tested
/// before the matcher runs, it turns most keys away from `patternProperties` such as
/// `^[@$_#]` or `^x-` in a load and a shift, where the call into the matcher costs forty
/// instructions. Every byte, when the pattern's start is not known.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Lead([u64; 4]);

impl Lead {
    const ANY: Lead = Lead([u64::MAX; 4]);

    fn has(&self, byte: u8) -> bool {
        self.0[usize::from(byte >> 6)] >> (byte & 63) & 1 == 1
    }

    fn with(mut self, byte: u8) -> Lead {
        self.0[usize::from(byte >> 6)] |= 1 << (byte & 63);
        self
    }

    /// The first bytes of the characters of a run's set.
    fn of_run(run: &CharRun) -> Lead {
        let mut lead = Lead([0; 4]);
        for byte in 0..128u8 {
            if run.ascii[usize::from(byte)] {
                lead = lead.with(byte);
            }
        }
        if !run.wide.is_empty() {
            // (Any lead byte of a longer UTF-8 sequence: a superset is enough.)
            for byte in 0xC2..=0xF4u8 {
                lead = lead.with(byte);
            }
        }
        lead
    }

    /// The first bytes a non-empty subject matched by `matcher` can start with.
    fn of(matcher: &Matcher) -> Lead {
        let text = |s: &str| {
            s.as_bytes()
                .first()
                .map_or(Lead::ANY, |&b| Lead([0; 4]).with(b))
        };
        match matcher {
            Matcher::StartsWith(s) | Matcher::Equals(s) => text(s),
            // A whole-subject run: a non-empty subject starts with a member, even when
            // the run may be empty.
            Matcher::Run(run) => Lead::of_run(run),
            Matcher::RunAt(run, RunPlace::Start) if run.min > 0 => Lead::of_run(run),
            Matcher::Steps(steps) if !steps.prefix.is_empty() => text(&steps.prefix),
            Matcher::Steps(steps) => match steps.runs.first() {
                Some(run) if run.min > 0 => Lead::of_run(run),
                _ => Lead::ANY,
            },
            // A conjunction: each part that must match narrows the set.
            Matcher::All(parts) => {
                parts
                    .iter()
                    .filter(|(must, _)| *must)
                    .fold(Lead::ANY, |acc, (_, part)| {
                        let part = Lead::of(part);
                        Lead(std::array::from_fn(|i| acc.0[i] & part.0[i]))
                    })
            }
            _ => Lead::ANY,
        }
    }
}

impl fmt::Debug for Lead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Lead::ANY {
            return f.write_str("Lead(any)");
        }
        let bytes: Vec<u8> = (0..=255u8).filter(|&b| self.has(b)).collect();
        f.debug_tuple("Lead").field(&bytes).finish()
    }
}

/// The cheapest exact way found to run a pattern.
enum Matcher {
    /// An unanchored literal (also the empty pattern).
    Contains(Box<str>),
    /// `^literal`.
    StartsWith(Box<str>),
    /// `literal$`.
    EndsWith(Box<str>),
    /// `^literal$`.
    Equals(Box<str>),
    /// `^X{min,max}$` where `X` is a set of code points.
    Run(CharRun),
    /// `^X{min,}`, `X{min,}$` or `X{min,}` (no other anchor): `min` characters of the set
    /// at the start, at the end, or anywhere in a row.
    RunAt(CharRun, RunPlace),
    /// `^X{a,b}Y{c,d}...`, maybe `$`-anchored: runs of sets in a row, each taken as long
    /// as it goes (see [`Steps`]).
    Steps(Box<Steps>),
    /// Linear-time engine.
    Linear(regex::Regex),
    /// A small pattern as a fully built DFA: no cache to fetch, no setup per search, which
    /// dominates on the short strings instances hold.
    Dfa(Box<DfaMatcher>),
    /// Backtracking engine for lookaround and backreferences.
    Backtracking(Box<Backtracker>),
    /// A small pattern whose engine is built on first use: building a regex engine costs
    /// far more than checking the syntax, and many patterns of a large schema never run.
    Deferred(Box<Deferred>),
    /// An engine that could not be built (never expected for deferred patterns).
    Failed,
    /// Every part must match (`true`) or must not match (`false`).
    All(Box<[(bool, Matcher)]>),
}

/// A dense DFA, with the linear engine kept for the searches it gives up on (none are
/// expected: no quit bytes are configured).
struct DfaMatcher {
    dfa: regex_automata::dfa::dense::DFA<Vec<u32>>,
    /// Where every search starts: at offset 0, with nothing behind it.
    start: regex_automata::util::primitives::StateID,
    text: Box<str>,
    fallback: std::sync::OnceLock<Matcher>,
}

/// Patterns up to this long (translated) are tried as a dense DFA first. (`\s`, `\S` and
/// `.` translate to long explicit classes: FHIR's `^[^\s]+(\s[^\s]+)*$` is 320 bytes, and
/// its DFA is small; `DENSE_SIZE_LIMIT` bounds the rest.)
const DENSE_MAX_LEN: usize = 1024;

/// A dense DFA larger than this is not worth its memory: the linear engine runs instead.
const DENSE_SIZE_LIMIT: usize = 256 << 10;

/// The backtracking engine in two sizes: a quick attempt limited to [`QUICK_BACKTRACKS`],
/// and, built when first needed, one with the whole budget per match.
struct Backtracker {
    quick: fancy_regex::Regex,
    budget: usize,
    full: std::sync::OnceLock<Option<fancy_regex::Regex>>,
}

/// Where an unanchored run must be found.
#[derive(Debug, Clone, Copy)]
enum RunPlace {
    Start,
    End,
    Anywhere,
}

/// What a deferred engine is built from.
struct Deferred {
    /// The translated pattern, known to be valid for the engine.
    text: Box<str>,
    backtracking: bool,
    budget: usize,
    built: std::sync::OnceLock<Matcher>,
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Matcher::Contains(s) => f.debug_tuple("Contains").field(s).finish(),
            Matcher::StartsWith(s) => f.debug_tuple("StartsWith").field(s).finish(),
            Matcher::EndsWith(s) => f.debug_tuple("EndsWith").field(s).finish(),
            Matcher::Equals(s) => f.debug_tuple("Equals").field(s).finish(),
            Matcher::Run(run) => f.debug_tuple("Run").field(run).finish(),
            Matcher::RunAt(run, at) => f.debug_tuple("RunAt").field(run).field(at).finish(),
            Matcher::Steps(steps) => f
                .debug_tuple("Steps")
                .field(&steps.prefix)
                .field(&steps.runs)
                .field(&steps.suffix)
                .finish(),
            Matcher::Linear(re) => f.debug_tuple("Linear").field(&re.as_str()).finish(),
            Matcher::Dfa(d) => f.debug_tuple("Dfa").field(&d.text).finish(),
            Matcher::Backtracking(b) => f
                .debug_tuple("Backtracking")
                .field(&b.quick.as_str())
                .finish(),
            Matcher::Deferred(d) => f.debug_tuple("Deferred").field(&d.text).finish(),
            Matcher::Failed => f.write_str("Failed"),
            Matcher::All(parts) => f.debug_tuple("All").field(parts).finish(),
        }
    }
}

/// A whole-subject run of characters from one set, with a length range.
struct CharRun {
    /// Membership of each byte value that is an ASCII code point (`false` from 128 on):
    /// one load per byte, with no branch on which half of a bit set it is in (that branch
    /// mispredicts on names that mix letters and digits).
    ascii: Box<[bool; 256]>,
    /// Sorted, disjoint ranges of non-ASCII members.
    wide: Box<[(u32, u32)]>,
    /// Fewest characters.
    min: u64,
    /// Most characters; `None` is unbounded.
    max: Option<u64>,
}

impl fmt::Debug for CharRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The ASCII members as ranges of code points, like the wide ones.
        let mut ascii = Vec::new();
        for c in 0..128u32 {
            if self.ascii[c as usize] {
                match ascii.last_mut() {
                    Some((_, hi)) if *hi + 1 == c => *hi = c,
                    _ => ascii.push((c, c)),
                }
            }
        }
        f.debug_struct("CharRun")
            .field("ascii", &ascii)
            .field("wide", &self.wide)
            .field("min", &self.min)
            .field("max", &self.max)
            .finish()
    }
}

impl CharRun {
    fn new(set: &[(u32, u32)], min: u32, max: Option<u32>) -> CharRun {
        let mut ascii = Box::new([false; 256]);
        let mut wide = Vec::new();
        for &(lo, hi) in set {
            for c in lo..=hi.min(127) {
                ascii[c as usize] = true;
            }
            if hi >= 128 {
                wide.push((lo.max(128), hi));
            }
        }
        CharRun {
            ascii,
            wide: wide.into_boxed_slice(),
            min: u64::from(min),
            max: max.map(u64::from),
        }
    }

    fn contains(&self, c: char) -> bool {
        let c = u32::from(c);
        if c < 128 {
            return self.ascii[c as usize];
        }
        self.wide
            .binary_search_by(|&(lo, hi)| {
                if hi < c {
                    std::cmp::Ordering::Less
                } else if lo > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }

    /// Whether no character is in both sets.
    fn disjoint(&self, other: &CharRun) -> bool {
        let ascii = (0..128).all(|b| !(self.ascii[b] && other.ascii[b]));
        let (mut a, mut b) = (self.wide.iter().peekable(), other.wide.iter().peekable());
        while let (Some(&&(alo, ahi)), Some(&&(blo, bhi))) = (a.peek(), b.peek()) {
            if alo <= bhi && blo <= ahi {
                return false;
            }
            if ahi < bhi {
                a.next();
            } else {
                b.next();
            }
        }
        ascii
    }

    /// Whether `min` characters of the set follow one another at `at` (more may follow:
    /// the pattern does not anchor the other side).
    fn found(&self, subject: &str, at: RunPlace) -> bool {
        let min = self.min;
        if min == 0 {
            return true;
        }
        let enough = |chars: &mut dyn Iterator<Item = char>| {
            let mut count = 0;
            for c in chars {
                if !self.contains(c) {
                    return false;
                }
                count += 1;
                if count == min {
                    return true;
                }
            }
            false
        };
        match at {
            RunPlace::Start => enough(&mut subject.chars()),
            RunPlace::End => enough(&mut subject.chars().rev()),
            RunPlace::Anywhere => {
                let mut count = 0;
                for c in subject.chars() {
                    count = if self.contains(c) { count + 1 } else { 0 };
                    if count == min {
                        return true;
                    }
                }
                false
            }
        }
    }

    fn matches(&self, subject: &str) -> bool {
        let bytes = subject.as_bytes();
        // A string has no more characters than bytes.
        if (bytes.len() as u64) < self.min {
            return false;
        }
        // ASCII members one table load each, with no decoding; the first byte that is not
        // one is either outside the set (ASCII) or starts the decoding of the rest.
        let at = self.ascii_members(bytes);
        match bytes.get(at) {
            // One byte a character: the length is the count.
            None => self.max.is_none_or(|max| bytes.len() as u64 <= max),
            Some(&b) if b < 128 => false,
            Some(_) => self.matches_from(subject, at),
        }
    }

    /// How many bytes at the start of `bytes` are ASCII members: eight at a time with no
    /// branch per byte, then one by one.
    #[inline]
    fn ascii_members(&self, bytes: &[u8]) -> usize {
        let table = &*self.ascii;
        let member = |b: u8| table[usize::from(b)];
        let mut words = bytes.chunks_exact(8);
        let mut at = 0;
        for w in &mut words {
            let all = member(w[0])
                & member(w[1])
                & member(w[2])
                & member(w[3])
                & member(w[4])
                & member(w[5])
                & member(w[6])
                & member(w[7]);
            if !all {
                break;
            }
            at += 8;
        }
        at + bytes[at..].iter().take_while(|&&b| member(b)).count()
    }

    /// [`CharRun::matches`] for a subject whose first `at` bytes are ASCII members.
    #[cold]
    fn matches_from(&self, subject: &str, at: usize) -> bool {
        // (A byte from 128 on after ASCII bytes starts a character: `at` is a boundary.)
        let (mut count, rest) = match subject.get(at..) {
            Some(rest) => (at as u64, rest),
            None => (0, subject),
        };
        if self.max.is_some_and(|max| count > max) {
            return false;
        }
        for c in rest.chars() {
            if !self.contains(c) {
                return false;
            }
            count += 1;
            if self.max.is_some_and(|max| count > max) {
                return false;
            }
        }
        count >= self.min
    }
}

/// A pattern anchored at the start that is a sequence of runs (`^#[0-9a-fA-F]{6}$`,
/// `^[^:]+:[^:]+$`, `^\{\{\w[\w.-]*\}\}$`), matched by taking each run as long as it
/// goes, with no backtracking and no engine call (a DFA search costs more to set up than
/// such a pattern costs to check on the short strings instances hold). Single characters
/// at the start, and at the end of a `$`-anchored pattern, are compared as text.
///
/// Taking a run greedily is exact only when the rest could not have used what it took:
/// [`Steps::new`] accepts a sequence only when each run of variable length shares no
/// member with the runs after it, up to and including the first that needs a character.
/// A match must then end the run where the greedy one ends it: the next character is
/// either past its maximum or outside its set.
struct Steps {
    prefix: Box<str>,
    runs: Box<[CharRun]>,
    /// Text the subject ends with (empty unless `end`).
    suffix: Box<str>,
    /// `$` at the end: nothing may follow the last run.
    end: bool,
}

/// A term as a set of code points and how many of them, before it becomes a [`CharRun`].
type Term = (Vec<(u32, u32)>, u32, Option<u32>);

impl Steps {
    /// Most terms in a sequence taken this way (a longer one goes to an engine).
    const MAX_TERMS: usize = 32;

    fn new(mut terms: Vec<Term>, end: bool) -> Option<Steps> {
        if terms.len() > Steps::MAX_TERMS {
            return None;
        }
        let single = |term: &Term| match term {
            (set, 1, Some(1)) if set.len() == 1 && set[0].0 == set[0].1 => char::from_u32(set[0].0),
            _ => None,
        };
        let lead = terms.iter().take_while(|t| single(t).is_some()).count();
        let prefix: String = terms.drain(..lead).filter_map(|t| single(&t)).collect();
        let mut suffix = Vec::new();
        while end && let Some(c) = terms.last().and_then(single) {
            suffix.push(c);
            terms.pop();
        }
        let suffix: String = suffix.into_iter().rev().collect();
        let runs: Vec<CharRun> = terms
            .iter()
            .map(|(set, min, max)| CharRun::new(set, *min, *max))
            .collect();
        for (i, run) in runs.iter().enumerate() {
            if run.max == Some(run.min) {
                continue;
            }
            for next in &runs[i + 1..] {
                if !run.disjoint(next) {
                    return None;
                }
                if next.min > 0 {
                    break;
                }
            }
        }
        Some(Steps {
            prefix: prefix.into(),
            runs: runs.into_boxed_slice(),
            suffix: suffix.into(),
            end,
        })
    }

    // (Out of line: inlined, its loop made `find_with` save more registers for every
    // pattern; krakend's start runs +0.6%.)
    #[inline(never)]
    fn matches(&self, subject: &str) -> bool {
        let (from, to) = (
            self.prefix.len(),
            subject.len().wrapping_sub(self.suffix.len()),
        );
        // (Inline compares: the ends are a character or two, where a `memcmp` call costs
        // more than the comparison.)
        let ends = |range: std::ops::Range<usize>, text: &str| {
            subject
                .get(range)
                .is_some_and(|part| crate::names::same(part, text))
        };
        if subject.len() < from + self.suffix.len()
            || !ends(0..from, &self.prefix)
            || !ends(to..subject.len(), &self.suffix)
        {
            return false;
        }
        // (Both ends are boundaries: the subject starts with the prefix, ends with the suffix.)
        let Some(subject) = subject.get(from..to) else {
            return false;
        };
        let bytes = subject.as_bytes();
        let mut at = 0;
        for run in self.runs.iter() {
            let max = run.max.unwrap_or(u64::MAX);
            let mut count = 0;
            if run.max.is_none() {
                // Unbounded: ASCII members eight bytes a step first.
                let n = run.ascii_members(bytes.get(at..).unwrap_or_default());
                at += n;
                count = n as u64;
            }
            while count < max {
                match bytes.get(at) {
                    Some(&b) if run.ascii[usize::from(b)] => at += 1,
                    Some(&b) if b >= 128 && !run.wide.is_empty() => {
                        // (`at` is a boundary: every step taken was a whole character.)
                        match subject.get(at..).and_then(|rest| rest.chars().next()) {
                            Some(c) if run.contains(c) => at += c.len_utf8(),
                            _ => break,
                        }
                    }
                    _ => break,
                }
                count += 1;
            }
            if count < run.min {
                return false;
            }
        }
        !self.end || at == bytes.len()
    }
}

// The validator shares compiled schemas across threads.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Pattern>();
};

impl Pattern {
    /// Compiles an ECMA-262 pattern; `budget` bounds backtracking steps per match.
    ///
    /// # Errors
    /// A short lowercase reason when the pattern is not valid ECMA-262, nests
    /// deeper than the parser allows, or compiles too large.
    pub(crate) fn new(source: &str, budget: usize) -> Result<Pattern, String> {
        let ast = parse::parse(source)?;
        let ast = match split_leading_lookaheads(ast, budget)? {
            Ok(matcher) => return Ok(Pattern::of(matcher)),
            Err(ast) => ast,
        };
        Ok(Pattern::of(engine(
            ast.alternatives,
            ast.needs_backtracking,
            budget,
        )?))
    }

    fn of(matcher: Matcher) -> Pattern {
        Pattern {
            lead: Lead::of(&matcher),
            matcher,
        }
    }
}

/// The cheapest matcher for a parsed pattern: a fast path, a deferred engine, or a
/// built one.
fn engine(
    alternatives: Vec<Vec<parse::Node>>,
    needs_backtracking: bool,
    budget: usize,
) -> Result<Matcher, String> {
    {
        let ast = parse::Ast {
            alternatives,
            needs_backtracking,
        };
        if let Some(matcher) = fast_path(&ast.alternatives) {
            return Ok(matcher);
        }
        // Every engine below writes counted repetitions out: refuse before one does.
        if expanded_size(&ast.alternatives) > MAX_EXPANDED {
            return Err(TOO_LARGE.into());
        }
        let text = emit::emit(&ast.alternatives, ast.needs_backtracking);
        // Engines fail to build only on size limits, which short patterns without counted
        // repetition or property classes cannot reach: those are built on first use.
        if deferrable(&text) {
            return Ok(Matcher::Deferred(Box::new(Deferred {
                text: text.into(),
                backtracking: ast.needs_backtracking,
                budget,
                built: std::sync::OnceLock::new(),
            })));
        }
        build(&text, ast.needs_backtracking, budget)
    }
}

/// Whether a sequence needs a backtracking engine: lookaround or a backreference.
fn needs_backtracking(nodes: &[parse::Node]) -> bool {
    use parse::{GroupKind, Node};
    nodes.iter().any(|n| match n {
        Node::Backref(_) => true,
        Node::Group(kind, alts) => {
            !matches!(kind, GroupKind::Capture | GroupKind::NonCapture)
                || alts.iter().any(|a| needs_backtracking(a))
        }
        Node::Repeat(r) => needs_backtracking(std::slice::from_ref(&r.node)),
        _ => false,
    })
}

/// `^(?=A)(?!B)C`, with nothing else needing backtracking, is `^A` and not `^B` and `^C`:
/// lookaheads at the anchored start all look from position 0. Each part then runs on the
/// linear-time engine instead of the backtracking one.
///
/// Returns the conjunction, or the pattern unchanged (`Err`) when it has another shape.
#[allow(clippy::type_complexity)]
fn split_leading_lookaheads(
    ast: parse::Ast,
    budget: usize,
) -> Result<Result<Matcher, parse::Ast>, String> {
    use parse::{GroupKind, Node};
    let shape_fits = ast.needs_backtracking
        && ast.alternatives.len() == 1
        && matches!(ast.alternatives[0].first(), Some(Node::Start))
        && matches!(
            ast.alternatives[0].get(1),
            Some(Node::Group(
                GroupKind::LookAhead | GroupKind::NegLookAhead,
                _
            ))
        );
    if !shape_fits {
        return Ok(Err(ast));
    }
    let seq = &ast.alternatives[0];
    let lookaheads = seq[1..]
        .iter()
        .take_while(|n| {
            matches!(
                n,
                Node::Group(GroupKind::LookAhead | GroupKind::NegLookAhead, _)
            )
        })
        .count();
    let rest = &seq[1 + lookaheads..];
    let inner_ok = seq[1..=lookaheads].iter().all(|n| match n {
        Node::Group(_, alts) => alts.iter().all(|a| !needs_backtracking(a)),
        _ => false,
    });
    if !inner_ok || needs_backtracking(rest) {
        return Ok(Err(ast));
    }
    let mut seq = ast.alternatives.into_iter().next().unwrap_or_default();
    let rest: Vec<Node> = seq.split_off(1 + lookaheads);
    let mut parts = Vec::with_capacity(lookaheads + 1);
    for node in seq.into_iter().skip(1) {
        if let Node::Group(kind, mut alts) = node {
            // `^(?:X)` is `^X`: with one alternative, its nodes go in as they are, so
            // that the fast paths see them (`(?=[a-z]+$)` is a run of letters).
            let anchored = if alts.len() == 1 {
                let mut nodes = vec![Node::Start];
                nodes.append(&mut alts[0]);
                nodes
            } else {
                vec![Node::Start, Node::Group(GroupKind::NonCapture, alts)]
            };
            parts.push((
                kind == GroupKind::LookAhead,
                engine(vec![anchored], false, budget)?,
            ));
        }
    }
    if !rest.is_empty() {
        let mut anchored = vec![Node::Start];
        anchored.extend(rest);
        parts.push((true, engine(vec![anchored], false, budget)?));
    }
    Ok(Ok(Matcher::All(parts.into_boxed_slice())))
}

impl Pattern {
    /// Unanchored search, as ECMA-262 `RegExp.prototype.test` (flags: `u`), with no budget
    /// but the pattern's own.
    #[cfg(test)]
    pub(crate) fn find(&self, subject: &str) -> MatchOutcome {
        self.find_in(subject, &Unmetered)
    }

    /// Unanchored search, its work counted toward `meter`: a step per [`BYTES_PER_STEP`]
    /// bytes of subject, and the backtracking steps a match may take; `BudgetExceeded`
    /// when the meter runs out.
    #[inline]
    pub(crate) fn find_in<M: Meter + ?Sized>(&self, subject: &str, meter: &M) -> MatchOutcome {
        let steps = subject.len() / BYTES_PER_STEP;
        if steps > 0 && !meter.charge(steps as u64) {
            return MatchOutcome::BudgetExceeded;
        }
        find_with(&self.matcher, subject, meter)
    }

    /// [`Pattern::find`] for a property name against `patternProperties`, where most names
    /// do not match: their first byte turns most away before the matcher runs. (Not for
    /// `pattern`, whose strings mostly match and would pay for the test.)
    #[inline]
    /// Whether the pattern cannot match the property name `name` (its first byte is not
    /// one a match can start with): known without running the matcher, so the compiler
    /// may ask it of every declared name.
    pub(crate) fn rules_out_name(&self, name: &str) -> bool {
        name.as_bytes().first().is_some_and(|&b| !self.lead.has(b))
    }

    pub(crate) fn find_name<M: Meter + ?Sized>(&self, name: &str, meter: &M) -> MatchOutcome {
        if let Some(&first) = name.as_bytes().first()
            && !self.lead.has(first)
        {
            return MatchOutcome::NoMatch;
        }
        self.find_in(name, meter)
    }
}

/// Patterns longer than this are built when the schema compiles.
const DEFER_MAX_LEN: usize = 4096;

/// Patterns whose counted repetitions add up to more than this are built when the schema
/// compiles.
const DEFER_MAX_COUNT: u32 = 100;

/// Whether translated text is small enough that building its engine cannot hit a size
/// limit: short, no property classes, no large counted repetition (`\x{..}` escapes are
/// not repetitions).
fn deferrable(text: &str) -> bool {
    if text.len() > DEFER_MAX_LEN || text.contains("\\p") || text.contains("\\P") {
        return false;
    }
    let bytes = text.as_bytes();
    // The sum of every count bounds nested repetition too (`((a{9}){9}){9}`).
    let mut total: u32 = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' && !(i >= 2 && bytes[i - 2] == b'\\' && bytes[i - 1] == b'x') {
            let mut n: u32 = 0;
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'}' {
                if bytes[j].is_ascii_digit() {
                    n = n
                        .saturating_mul(10)
                        .saturating_add(u32::from(bytes[j] - b'0'));
                } else {
                    n = 0;
                }
                if n > DEFER_MAX_COUNT {
                    return false;
                }
                j += 1;
            }
            total = total.saturating_add(n);
            if total > DEFER_MAX_COUNT {
                return false;
            }
            i = j;
        }
        i += 1;
    }
    true
}

/// Cap on the backtracking engine's own program, in instructions.
const MAX_PROG_SIZE: usize = MAX_EXPANDED as usize;

/// The reason given for a pattern past a size limit.
const TOO_LARGE: &str = "pattern compiles too large";

/// Builds the engine for translated text.
fn build(text: &str, needs_backtracking: bool, budget: usize) -> Result<Matcher, String> {
    {
        let matcher = if needs_backtracking {
            let quick = build_backtracking(text, budget.min(QUICK_BACKTRACKS))?;
            Matcher::Backtracking(Box::new(Backtracker {
                quick,
                budget,
                full: std::sync::OnceLock::new(),
            }))
        } else if let Some((dfa, start)) = dense_dfa(text) {
            Matcher::Dfa(Box::new(DfaMatcher {
                dfa,
                start,
                text: text.into(),
                fallback: std::sync::OnceLock::new(),
            }))
        } else {
            build_linear(text)?
        };
        Ok(matcher)
    }
}

/// The backtracking engine, limited to `limit` backtracking steps per match.
fn build_backtracking(text: &str, limit: usize) -> Result<fancy_regex::Regex, String> {
    fancy_regex::RegexBuilder::new(text)
        .backtrack_limit(limit)
        .delegate_size_limit(SIZE_LIMIT)
        .delegate_dfa_size_limit(DFA_SIZE_LIMIT)
        .max_prog_size(MAX_PROG_SIZE)
        .build()
        .map_err(|e| lowercase_reason(&e.to_string()))
}

/// The linear-time engine of the `regex` crate.
fn build_linear(text: &str) -> Result<Matcher, String> {
    let re = regex::RegexBuilder::new(text)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(u32::try_from(4 * parse::MAX_NEST + 16).unwrap_or(u32::MAX))
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => TOO_LARGE.to_string(),
            e => lowercase_reason(&e.to_string()),
        })?;
    Ok(Matcher::Linear(re))
}

/// A dense DFA for a short pattern, when one fits the size limit (and the pattern needs
/// nothing a DFA lacks, such as a Unicode word boundary).
fn dense_dfa(
    text: &str,
) -> Option<(
    regex_automata::dfa::dense::DFA<Vec<u32>>,
    regex_automata::util::primitives::StateID,
)> {
    use regex_automata::dfa::{Automaton, StartKind, dense};
    use regex_automata::util::start;
    if text.len() > DENSE_MAX_LEN {
        return None;
    }
    let dfa = dense::Builder::new()
        // (The NFA too: the dense builder has no limit on it by default.)
        .thompson(
            regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(DENSE_SIZE_LIMIT)),
        )
        .syntax(
            regex_automata::util::syntax::Config::new()
                .nest_limit(u32::try_from(4 * parse::MAX_NEST + 16).unwrap_or(u32::MAX)),
        )
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Unanchored)
                // (`dfa_find` steps byte by byte; accelerated states would only add
                // special states for it to pass through.)
                .accelerate(false)
                .dfa_size_limit(Some(DENSE_SIZE_LIMIT))
                .determinize_size_limit(Some(DENSE_SIZE_LIMIT)),
        )
        .build(text)
        .ok()?;
    let start = dfa
        .start_state(&start::Config::new().anchored(regex_automata::Anchored::No))
        .ok()?;
    Some((dfa, start))
}

fn find_with<M: Meter + ?Sized>(matcher: &Matcher, subject: &str, meter: &M) -> MatchOutcome {
    {
        match matcher {
            Matcher::Contains(s) => MatchOutcome::from_bool(subject.contains(&**s)),
            Matcher::StartsWith(s) => MatchOutcome::from_bool(subject.starts_with(&**s)),
            Matcher::EndsWith(s) => MatchOutcome::from_bool(subject.ends_with(&**s)),
            Matcher::Equals(s) => MatchOutcome::from_bool(subject == &**s),
            Matcher::Run(run) => MatchOutcome::from_bool(run.matches(subject)),
            Matcher::RunAt(run, at) => MatchOutcome::from_bool(run.found(subject, *at)),
            Matcher::Steps(steps) => MatchOutcome::from_bool(steps.matches(subject)),
            Matcher::All(parts) => {
                for (must, part) in parts.iter() {
                    match find_with(part, subject, meter) {
                        MatchOutcome::Match if *must => {}
                        MatchOutcome::NoMatch if !*must => {}
                        MatchOutcome::BudgetExceeded => return MatchOutcome::BudgetExceeded,
                        _ => return MatchOutcome::NoMatch,
                    }
                }
                MatchOutcome::Match
            }
            // The other engines out of line: their searches need many registers, which
            // every call of this function would otherwise save and restore.
            Matcher::Linear(re) => MatchOutcome::from_bool(linear_match(re, subject)),
            Matcher::Dfa(d) => dfa_find(d, subject, meter),
            Matcher::Backtracking(b) => backtracking_find(b, subject, meter),
            Matcher::Deferred(d) => deferred_find(d, subject, meter),
            Matcher::Failed => MatchOutcome::BudgetExceeded,
        }
    }
}

#[inline(never)]
fn linear_match(re: &regex::Regex, subject: &str) -> bool {
    re.is_match(subject)
}

/// Runs the DFA over the subject by hand. Every search starts at offset 0 with nothing
/// behind it, so the start state is fixed and found once, when the DFA is built; the
/// library's search would find it again and set up its input on every call, which costs
/// more than the walk itself on the short strings instances hold.
#[inline(never)]
fn dfa_find<M: Meter + ?Sized>(d: &DfaMatcher, subject: &str, meter: &M) -> MatchOutcome {
    use regex_automata::dfa::Automaton;
    let dfa = &d.dfa;
    let mut state = d.start;
    for &byte in subject.as_bytes() {
        state = dfa.next_state(state, byte);
        if dfa.is_special_state(state) {
            // Matches are reported one byte late: a match state means one ended before
            // this byte, and any match will do.
            if dfa.is_match_state(state) {
                return MatchOutcome::Match;
            }
            if dfa.is_dead_state(state) {
                return MatchOutcome::NoMatch;
            }
            if dfa.is_quit_state(state) {
                return dfa_fallback(d, subject, meter);
            }
        }
    }
    MatchOutcome::from_bool(dfa.is_match_state(dfa.next_eoi_state(state)))
}

#[cold]
fn dfa_fallback<M: Meter + ?Sized>(d: &DfaMatcher, subject: &str, meter: &M) -> MatchOutcome {
    let fallback = d
        .fallback
        .get_or_init(|| build_linear(&d.text).unwrap_or(Matcher::Failed));
    find_with(fallback, subject, meter)
}

#[inline(never)]
fn backtracking_find<M: Meter + ?Sized>(b: &Backtracker, subject: &str, meter: &M) -> MatchOutcome {
    let quick = b.budget.min(QUICK_BACKTRACKS);
    if !meter.charge(quick as u64) {
        return MatchOutcome::BudgetExceeded;
    }
    // The only runtime error fancy-regex reports is the budget.
    if let Ok(matched) = b.quick.is_match(subject) {
        return MatchOutcome::from_bool(matched);
    }
    if b.budget <= quick || !meter.charge(b.budget as u64) {
        return MatchOutcome::BudgetExceeded;
    }
    // (Built from text that built before, under the same limits.)
    let full = b
        .full
        .get_or_init(|| build_backtracking(b.quick.as_str(), b.budget).ok());
    match full.as_ref().map(|re| re.is_match(subject)) {
        Some(Ok(matched)) => MatchOutcome::from_bool(matched),
        _ => MatchOutcome::BudgetExceeded,
    }
}

#[inline(never)]
fn deferred_find<M: Meter + ?Sized>(d: &Deferred, subject: &str, meter: &M) -> MatchOutcome {
    // Cannot fail for a deferred text (see `engine`); if it ever did, the pattern decides
    // nothing and reports its budget as exhausted.
    let built = d
        .built
        .get_or_init(|| build(&d.text, d.backtracking, d.budget).unwrap_or(Matcher::Failed));
    match built {
        // (What most deferred patterns become, without a second pass through the match.)
        Matcher::Dfa(dfa) => dfa_find(dfa, subject, meter),
        built => find_with(built, subject, meter),
    }
}

/// Whether `source` is a valid ECMA-262 pattern, without compiling it
/// (for `format: "regex"`, which must stay cheap per instance).
pub(crate) fn is_valid_syntax(source: &str) -> bool {
    parse::parse(source).is_ok()
}

/// First line of an engine error, lowercased, as a short reason.
fn lowercase_reason(message: &str) -> String {
    let line = message
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(message);
    let line = line.trim().trim_start_matches("error:").trim();
    line.to_lowercase()
}

/// Recognises patterns that need no regex engine at all.
fn fast_path(alternatives: &[Vec<parse::Node>]) -> Option<Matcher> {
    use parse::Node;
    let [nodes] = alternatives else {
        return None;
    };
    let (start, rest) = match nodes.split_first() {
        Some((Node::Start, rest)) => (true, rest),
        _ => (false, nodes.as_slice()),
    };
    let (end, middle) = match rest.split_last() {
        Some((Node::End, middle)) => (true, middle),
        _ => (false, rest),
    };
    // A lone group around the rest (`(.*)`, `(?:abc)`) changes nothing for a test.
    let middle: &[Node] = match middle {
        [Node::Group(parse::GroupKind::Capture | parse::GroupKind::NonCapture, alts)]
            if alts.len() == 1 =>
        {
            &alts[0]
        }
        other => other,
    };
    let literal: Option<String> = middle
        .iter()
        .map(|n| match n {
            Node::Literal(c) => Some(*c),
            _ => None,
        })
        .collect();
    if let Some(literal) = literal {
        let literal = literal.into_boxed_str();
        return Some(match (start, end) {
            (false, false) => Matcher::Contains(literal),
            (true, false) => Matcher::StartsWith(literal),
            (false, true) => Matcher::EndsWith(literal),
            (true, true) => Matcher::Equals(literal),
        });
    }
    let [node] = middle else {
        if !start {
            return None;
        }
        let mut terms = Vec::new();
        return terms_of(middle, &mut terms)
            .and_then(|()| Steps::new(terms, end))
            .map(|steps| Matcher::Steps(Box::new(steps)));
    };
    let (set, min, max) = term_of(node)?;
    let run = CharRun::new(&set, min, max);
    Some(match (start, end) {
        (true, true) => Matcher::Run(run),
        // One side free: the first `min` repetitions decide, whatever follows.
        (true, false) => Matcher::RunAt(run, RunPlace::Start),
        (false, true) => Matcher::RunAt(run, RunPlace::End),
        (false, false) => Matcher::RunAt(run, RunPlace::Anywhere),
    })
}

/// The set and counts of a term: a character, a class or `.`, maybe quantified.
fn term_of(node: &parse::Node) -> Option<Term> {
    use parse::Node;
    let (atom, min, max) = match node {
        Node::Repeat(r) => (&r.node, r.min, r.max),
        atom => (atom, 1, Some(1)),
    };
    let set = match atom {
        Node::Literal(c) => vec![(u32::from(*c), u32::from(*c))],
        Node::Dot => parse::complement(parse::LINE_TERMINATORS),
        Node::Class(class) if class.props.is_empty() => {
            if class.negated {
                parse::complement(&class.ranges)
            } else {
                class.ranges.clone()
            }
        }
        _ => return None,
    };
    Some((set, min, max))
}

/// The terms of a sequence, groups of one alternative opened (`^(-?[a-z]{2})$`); `None`
/// when one is something else.
fn terms_of(nodes: &[parse::Node], terms: &mut Vec<Term>) -> Option<()> {
    use parse::{GroupKind, Node};
    for node in nodes {
        match node {
            Node::Group(GroupKind::Capture | GroupKind::NonCapture, alts) if alts.len() == 1 => {
                terms_of(&alts[0], terms)?;
            }
            node => terms.push(term_of(node)?),
        }
        if terms.len() > Steps::MAX_TERMS {
            return None;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests;
