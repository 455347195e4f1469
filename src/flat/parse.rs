//! The parser: one loop with an explicit stack of open containers (no recursion, so no
//! depth can overflow the thread's stack), the children of each container gathered on a
//! stack of slots and moved, contiguous, to the document's slots when it closes.

use super::{Document, Slot};
use std::fmt;

/// Inputs must be shorter than this many bytes: offsets and lengths are `u32`, and a key's
/// length leaves its top bit to a flag.
pub const MAX_INPUT: usize = (1 << 31) - 1;

// A value slot's tag: the kind in the low three bits (`Kind` as a number), flags above.
pub(super) const KIND_MASK: u32 = 0b111;
pub(super) const NULL: u32 = 0;
pub(super) const BOOL: u32 = 1;
pub(super) const NUMBER: u32 = 2;
pub(super) const STRING: u32 = 3;
pub(super) const ARRAY: u32 = 4;
pub(super) const OBJECT: u32 = 5;
/// A boolean's value.
pub(super) const TRUE: u32 = 1 << 3;
/// A string's (or, as the top bit, a key's) text is in the document's unescaped text.
pub(super) const ESCAPED: u32 = 1 << 3;
pub(super) const KEY_ESCAPED: u32 = 1 << 31;
/// A number's form, in bits 3 and 4: serde_json's `u64`, `i64` (negative) or `f64`.
pub(super) const POS_INT: u32 = 0;
pub(super) const NEG_INT: u32 = 1 << 3;
pub(super) const FLOAT: u32 = 2 << 3;
pub(super) const NUMBER_FORM: u32 = 3 << 3;
/// A number's text length, in the tag's top 24 bits (saturated: longer ones are rescanned).
pub(super) const TEXT_SHIFT: u32 = 8;
pub(super) const TEXT_SATURATED: u32 = u32::MAX >> TEXT_SHIFT;

/// Why a text is not one JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The text ends inside a value.
    UnexpectedEnd,
    /// A value (`{`, `[`, `"`, a number, `true`, `false`, `null`) was expected.
    ExpectedValue,
    /// An object key (a string) was expected.
    ExpectedKey,
    /// `:` was expected after an object key.
    ExpectedColon,
    /// `,` or `}` was expected in an object.
    ExpectedCommaOrBrace,
    /// `,` or `]` was expected in an array.
    ExpectedCommaOrBracket,
    /// A number does not follow the JSON grammar (`01`, `1.`, `-`, `1e`).
    InvalidNumber,
    /// A number's value is beyond `f64` (`1e400`), which serde_json refuses too.
    NumberOutOfRange,
    /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`.
    InvalidEscape,
    /// A `\u` escape of a UTF-16 surrogate that is not half of a pair.
    LoneSurrogate,
    /// A raw control character (below U+0020) inside a string.
    ControlCharacter,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// Something other than whitespace after the value.
    TrailingCharacters,
    /// More nested arrays and objects than the document's bound.
    TooDeep,
    /// An input of [`MAX_INPUT`] bytes or more.
    TooLarge,
}

impl ParseErrorKind {
    fn message(self) -> &'static str {
        match self {
            ParseErrorKind::UnexpectedEnd => "unexpected end of input",
            ParseErrorKind::ExpectedValue => "expected a value",
            ParseErrorKind::ExpectedKey => "expected an object key",
            ParseErrorKind::ExpectedColon => "expected `:`",
            ParseErrorKind::ExpectedCommaOrBrace => "expected `,` or `}`",
            ParseErrorKind::ExpectedCommaOrBracket => "expected `,` or `]`",
            ParseErrorKind::InvalidNumber => "invalid number",
            ParseErrorKind::NumberOutOfRange => "number out of range",
            ParseErrorKind::InvalidEscape => "invalid escape",
            ParseErrorKind::LoneSurrogate => "lone UTF-16 surrogate in a \\u escape",
            ParseErrorKind::ControlCharacter => "control character in a string",
            ParseErrorKind::InvalidUtf8 => "invalid UTF-8",
            ParseErrorKind::TrailingCharacters => "trailing characters",
            ParseErrorKind::TooDeep => "nested too deep",
            ParseErrorKind::TooLarge => "input too large",
        }
    }
}

/// Malformed JSON text: what is wrong and where (the byte offset, and the line and column,
/// both from 1, the column counted in bytes). No part of the input is quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub kind: ParseErrorKind,
    /// The offset of the offending byte (the input's length when it ended too soon).
    pub offset: usize,
    /// The line of `offset`, from 1.
    pub line: usize,
    /// The byte column of `offset` in its line, from 1.
    pub column: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {} (byte {})",
            self.kind.message(),
            self.line,
            self.column,
            self.offset
        )
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The error `kind` at `offset` in `input` (line and column counted here: errors are
    /// rare, so no parse pays for keeping them).
    pub(super) fn at(input: &[u8], kind: ParseErrorKind, offset: usize) -> ParseError {
        let before = input.get(..offset).unwrap_or(input);
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        ParseError {
            kind,
            offset,
            line,
            column: offset - line_start + 1,
        }
    }
}

/// The input as text, or the offset of its first byte that is not UTF-8.
pub(super) fn utf8(input: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(input)
        .map_err(|e| ParseError::at(input, ParseErrorKind::InvalidUtf8, e.valid_up_to()))
}

/// Parses `input` into `doc` (cleared by the caller).
pub(super) fn parse(doc: &mut Document, input: &str) -> Result<(), ParseError> {
    let b = input.as_bytes();
    if b.len() >= MAX_INPUT {
        return Err(ParseError::at(b, ParseErrorKind::TooLarge, 0));
    }
    let mut p = Parser { doc, input, b };
    p.run()
}

struct Parser<'p> {
    doc: &'p mut Document,
    input: &'p str,
    b: &'p [u8],
}

/// Bytes of a word that end a run of plain string text: `"`, `\` or a control character.
/// The lowest flagged byte is always right (higher ones may be false: borrows carry), and
/// only the lowest is used.
#[inline(always)]
fn special_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    zero(word ^ (ONES * u64::from(b'"')))
        | zero(word ^ (ONES * u64::from(b'\\')))
        | (word.wrapping_sub(ONES * 0x20) & !word & HIGH)
}

/// The first `"`, `\` or control character at or after `i` (or the end), eight bytes a step.
#[inline(always)]
fn find_special(b: &[u8], mut i: usize) -> usize {
    while let Some(word) = b.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
        let found = special_bytes(u64::from_le_bytes(*word));
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}

#[inline(always)]
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\r' | b'\t')
}

/// Where a string was put: (start, length, in the unescaped text).
type Place = (usize, usize, bool);

impl Parser<'_> {
    #[cold]
    #[inline(never)]
    fn err(&self, kind: ParseErrorKind, at: usize) -> ParseError {
        ParseError::at(self.b, kind, at)
    }

    #[inline(always)]
    fn ws(&self, mut i: usize) -> usize {
        while let Some(&c) = self.b.get(i) {
            if !is_ws(c) {
                break;
            }
            i += 1;
        }
        i
    }

    fn run(&mut self) -> Result<(), ParseError> {
        let mut i = self.ws(0);
        'value: loop {
            // A value starts at `i`.
            let Some(&c) = self.b.get(i) else {
                return Err(self.err(ParseErrorKind::UnexpectedEnd, i));
            };
            match c {
                b'{' | b'[' => {
                    let object = c == b'{';
                    if self.doc.frames.len() >= self.doc.max_depth as usize {
                        return Err(self.err(ParseErrorKind::TooDeep, i));
                    }
                    i = self.ws(i + 1);
                    let close = if object { b'}' } else { b']' };
                    if self.b.get(i) == Some(&close) {
                        let slot = Slot {
                            word: 0,
                            at: self.doc.slots.len() as u32,
                            tag: if object { OBJECT } else { ARRAY },
                        };
                        self.doc.stack.push(slot);
                        self.doc.values += 1;
                        i += 1;
                    } else {
                        let height = self.doc.stack.len() as u32;
                        self.doc.frames.push((height, object));
                        if object {
                            i = self.key(i)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    let (next, (at, len, escaped)) = self.string(i)?;
                    let tag = STRING | if escaped { ESCAPED } else { 0 };
                    self.doc.stack.push(Slot {
                        word: len as u64,
                        at: at as u32,
                        tag,
                    });
                    // (As `json::count_values` counts: one more per 4,096 bytes.)
                    self.doc.values += 1 + (len / 4096) as u64;
                    i = next;
                }
                b't' => i = self.literal(i, b"true", BOOL | TRUE)?,
                b'f' => i = self.literal(i, b"false", BOOL)?,
                b'n' => i = self.literal(i, b"null", NULL)?,
                b'-' | b'0'..=b'9' => i = self.number(i)?,
                _ => return Err(self.err(ParseErrorKind::ExpectedValue, i)),
            }
            // After a value: a comma, the end of its container, or the end of the text.
            loop {
                i = self.ws(i);
                let Some(&(_, object)) = self.doc.frames.last() else {
                    if i < self.b.len() {
                        return Err(self.err(ParseErrorKind::TrailingCharacters, i));
                    }
                    let root = self.doc.stack.pop().unwrap_or_default();
                    self.doc.slots.push(root);
                    return Ok(());
                };
                match self.b.get(i) {
                    Some(b',') => {
                        i = self.ws(i + 1);
                        if object {
                            i = self.key(i)?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if object => self.close(true),
                    Some(b']') if !object => self.close(false),
                    Some(_) if object => {
                        return Err(self.err(ParseErrorKind::ExpectedCommaOrBrace, i));
                    }
                    Some(_) => return Err(self.err(ParseErrorKind::ExpectedCommaOrBracket, i)),
                    None => return Err(self.err(ParseErrorKind::UnexpectedEnd, i)),
                }
                i += 1;
            }
        }
    }

    /// A key at `i`, its `:` and the whitespace after: returns where its value starts.
    #[inline(always)]
    fn key(&mut self, i: usize) -> Result<usize, ParseError> {
        match self.b.get(i) {
            Some(b'"') => {}
            Some(_) => return Err(self.err(ParseErrorKind::ExpectedKey, i)),
            None => return Err(self.err(ParseErrorKind::UnexpectedEnd, i)),
        }
        let (next, (at, len, escaped)) = self.string(i)?;
        // (From the bytes: a `&str` of the name would check two char boundaries.)
        let source = if escaped {
            self.doc.text.as_bytes()
        } else {
            self.b
        };
        let summary = crate::names::summary_of_bytes(source.get(at..at + len).unwrap_or_default());
        self.doc.stack.push(Slot {
            word: summary,
            at: at as u32,
            tag: len as u32 | if escaped { KEY_ESCAPED } else { 0 },
        });
        let i = self.ws(next);
        match self.b.get(i) {
            Some(b':') => Ok(self.ws(i + 1)),
            Some(_) => Err(self.err(ParseErrorKind::ExpectedColon, i)),
            None => Err(self.err(ParseErrorKind::UnexpectedEnd, i)),
        }
    }

    /// Closes the innermost container: its children move from the stack to the slots,
    /// and its own slot takes their place on the stack.
    fn close(&mut self, object: bool) {
        let Some((height, _)) = self.doc.frames.pop() else {
            return;
        };
        let height = height as usize;
        // (Two entries or more: four slots.)
        if object && self.doc.stack.len() >= height + 4 {
            self.dedup(height);
        }
        let doc = &mut *self.doc;
        let start = doc.slots.len();
        let children = doc.stack.get(height..).unwrap_or_default();
        doc.slots.extend_from_slice(children);
        let count = if object {
            children.len() / 2
        } else {
            children.len()
        };
        doc.stack.truncate(height);
        if object && count > super::LARGE_OBJECT {
            index_entries(self.input, doc, start, count);
        }
        doc.stack.push(Slot {
            word: count as u64,
            at: start as u32,
            tag: if object { OBJECT } else { ARRAY },
        });
        doc.values += 1;
    }

    /// Makes the entries of the object on the stack from `height` distinct by name: of
    /// a repeated name, the first entry keeps its place and takes the last one's value
    /// (serde_json keeps the last value). `maybe_repeated` rules out a repeat in O(n) for
    /// most objects; otherwise the entries are sorted by (summary, name, place), which
    /// bounds the work by O(n log n) comparisons whatever names a hostile input chooses.
    ///
    /// Out of line, as are the other paths most small documents never take (a large
    /// object's index, a float's conversion): inlined, they made the parser's set-up
    /// larger for every call.
    #[inline(never)]
    fn dedup(&mut self, height: usize) {
        let input = self.input;
        let Document {
            stack,
            keys,
            text,
            slots,
            walk,
            values,
            ..
        } = &mut *self.doc;
        let text: &str = text;
        let entries = stack.get(height..).unwrap_or_default();
        let n = entries.len() / 2;
        if n < 2 {
            return;
        }
        let key_at = |i: u32| key_str(input, text, &entries[2 * i as usize]);
        if !maybe_repeated(entries, key_at) {
            return;
        }
        keys.clear();
        keys.extend(
            entries
                .chunks_exact(2)
                .enumerate()
                .map(|(i, e)| (e[0].word, i as u32)),
        );
        keys.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| key_at(a.1).cmp(key_at(b.1)))
                .then(a.1.cmp(&b.1))
        });
        let same = |a: (u64, u32), b: (u64, u32)| a.0 == b.0 && key_at(a.1) == key_at(b.1);
        if !keys.windows(2).any(|w| same(w[0], w[1])) {
            return;
        }
        // A repeat. Each sorted entry's summary becomes whether it starts a group of
        // equal names (from the end, so that each comparison reads untouched entries).
        for k in (1..keys.len()).rev() {
            keys[k].0 = u64::from(!same(keys[k - 1], keys[k]));
        }
        if let Some(first) = keys.first_mut() {
            first.0 = 1;
        }
        // Each group, in place order, gives its first entry the last one's value and
        // marks the others gone (a start past any input's).
        let mut g = 0;
        while g < keys.len() {
            let mut end = g + 1;
            while end < keys.len() && keys[end].0 == 0 {
                end += 1;
            }
            if end - g > 1 {
                let first = keys[g].1 as usize;
                let last = keys[end - 1].1 as usize;
                // (Every value of the group but the last is dropped, and uncounted.)
                for &(_, i) in &keys[g..end - 1] {
                    let dropped = stack[height + 2 * i as usize + 1];
                    *values -= subtree_values(slots, walk, dropped);
                }
                stack[height + 2 * first + 1] = stack[height + 2 * last + 1];
                for &(_, i) in &keys[g + 1..end] {
                    stack[height + 2 * i as usize].at = GONE;
                }
            }
            g = end;
        }
        let mut kept = height;
        for i in 0..n {
            let at = height + 2 * i;
            if stack[at].at != GONE {
                stack.copy_within(at..at + 2, kept);
                kept += 2;
            }
        }
        stack.truncate(kept);
    }

    /// `true`, `false` or `null` at `i`.
    #[inline(always)]
    fn literal(&mut self, i: usize, word: &[u8], tag: u32) -> Result<usize, ParseError> {
        let end = i + word.len();
        match self.b.get(i..end) {
            Some(found) if found == word => {
                self.doc.stack.push(Slot {
                    word: 0,
                    at: i as u32,
                    tag,
                });
                self.doc.values += 1;
                Ok(end)
            }
            _ => {
                // (Where the text stops matching, or ends.)
                let matched = self
                    .b
                    .get(i..)
                    .unwrap_or_default()
                    .iter()
                    .zip(word)
                    .take_while(|(a, b)| a == b)
                    .count();
                let at = i + matched;
                let kind = if at >= self.b.len() {
                    ParseErrorKind::UnexpectedEnd
                } else {
                    ParseErrorKind::ExpectedValue
                };
                Err(self.err(kind, at))
            }
        }
    }

    /// A number at `i`: its text checked against the grammar, its value as serde_json
    /// gives it (an integer that fits `u64`, a negative one that fits `i64`, else `f64`).
    #[inline(always)]
    fn number(&mut self, start: usize) -> Result<usize, ParseError> {
        let b = self.b;
        let mut i = start;
        let negative = b.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let mut significand: u64 = 0;
        let mut overflow = false;
        match b.get(i) {
            Some(b'0') => {
                i += 1;
                // (One leading zero only.)
                if let Some(b'0'..=b'9') = b.get(i) {
                    return Err(self.err(ParseErrorKind::InvalidNumber, i));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(&c @ b'0'..=b'9') = b.get(i) {
                    match significand
                        .checked_mul(10)
                        .and_then(|s| s.checked_add(u64::from(c - b'0')))
                    {
                        Some(s) => significand = s,
                        None => overflow = true,
                    }
                    i += 1;
                }
            }
            Some(_) => return Err(self.err(ParseErrorKind::InvalidNumber, i)),
            None => return Err(self.err(ParseErrorKind::UnexpectedEnd, i)),
        }
        let mut float = overflow;
        if b.get(i) == Some(&b'.') {
            i = self.digits(i + 1)?;
            float = true;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            i = self.digits(i)?;
            float = true;
        }
        let len = (i - start) as u32;
        let (form, word) = if float {
            let text = b.get(start..i).unwrap_or_default();
            let f = if serde_json_rounds_correctly() {
                std::str::from_utf8(text)
                    .ok()
                    .and_then(|t| t.parse::<f64>().ok())
                    .filter(|f| f.is_finite())
            } else {
                serde_json_float(text)
            };
            let Some(f) = f else {
                return Err(self.err(ParseErrorKind::NumberOutOfRange, start));
            };
            (FLOAT, f.to_bits())
        } else if !negative {
            (POS_INT, significand)
        } else if significand == 0 || significand > 1 << 63 {
            // (`-0` is the float `-0.0`, and below `i64::MIN` a float: serde_json's forms.)
            (FLOAT, (-(significand as f64)).to_bits())
        } else {
            (NEG_INT, (significand as i64).wrapping_neg() as u64)
        };
        self.doc.stack.push(Slot {
            word,
            at: start as u32,
            tag: NUMBER | form | (len.min(TEXT_SATURATED) << TEXT_SHIFT),
        });
        self.doc.values += 1;
        Ok(i)
    }

    /// One or more digits at `i`: returns where they end.
    #[inline(always)]
    fn digits(&self, mut i: usize) -> Result<usize, ParseError> {
        match self.b.get(i) {
            Some(b'0'..=b'9') => {}
            Some(_) => return Err(self.err(ParseErrorKind::InvalidNumber, i)),
            None => return Err(self.err(ParseErrorKind::UnexpectedEnd, i)),
        }
        while let Some(b'0'..=b'9') = self.b.get(i) {
            i += 1;
        }
        Ok(i)
    }

    /// A string whose opening quote is at `i`: returns where it ends and where its text
    /// is (borrowed from the input when it has no escape).
    #[inline(always)]
    fn string(&mut self, i: usize) -> Result<(usize, Place), ParseError> {
        let start = i + 1;
        let end = find_special(self.b, start);
        match self.b.get(end) {
            Some(b'"') => Ok((end + 1, (start, end - start, false))),
            Some(b'\\') => self.unescape(start, end),
            Some(_) => Err(self.err(ParseErrorKind::ControlCharacter, end)),
            None => Err(self.err(ParseErrorKind::UnexpectedEnd, end)),
        }
    }

    /// The rest of a string with escapes, from `start` (its first byte) and `i` (its
    /// first backslash), unescaped into the document's text.
    #[cold]
    fn unescape(&mut self, start: usize, mut i: usize) -> Result<(usize, Place), ParseError> {
        let at = self.doc.text.len();
        self.doc
            .text
            .push_str(self.input.get(start..i).unwrap_or_default());
        loop {
            match self.b.get(i) {
                Some(b'"') => {
                    let len = self.doc.text.len() - at;
                    return Ok((i + 1, (at, len, true)));
                }
                Some(b'\\') => {
                    let c = match self.b.get(i + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let (c, next) = self.unicode(i + 2)?;
                            self.doc.text.push(c);
                            i = next;
                            continue;
                        }
                        Some(_) => return Err(self.err(ParseErrorKind::InvalidEscape, i + 1)),
                        None => return Err(self.err(ParseErrorKind::UnexpectedEnd, i + 1)),
                    };
                    self.doc.text.push(c);
                    i += 2;
                }
                Some(&c) if c < 0x20 => {
                    return Err(self.err(ParseErrorKind::ControlCharacter, i));
                }
                Some(_) => {
                    let end = find_special(self.b, i);
                    self.doc
                        .text
                        .push_str(self.input.get(i..end).unwrap_or_default());
                    i = end;
                }
                None => return Err(self.err(ParseErrorKind::UnexpectedEnd, i)),
            }
        }
    }

    /// The character of a `\u` escape whose four hex digits start at `i` (with the low
    /// surrogate's escape after a high one): returns it and where the escape ends.
    fn unicode(&self, i: usize) -> Result<(char, usize), ParseError> {
        let high = self.hex4(i)?;
        let code = match high {
            0xD800..=0xDBFF => {
                if self.b.get(i + 4..i + 6) != Some(b"\\u") {
                    return Err(self.lone(i + 4));
                }
                let low = self.hex4(i + 6)?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.err(ParseErrorKind::LoneSurrogate, i + 6));
                }
                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return char::from_u32(code)
                    .map(|c| (c, i + 10))
                    .ok_or_else(|| self.err(ParseErrorKind::LoneSurrogate, i));
            }
            0xDC00..=0xDFFF => return Err(self.err(ParseErrorKind::LoneSurrogate, i)),
            code => code,
        };
        char::from_u32(code)
            .map(|c| (c, i + 4))
            .ok_or_else(|| self.err(ParseErrorKind::LoneSurrogate, i))
    }

    /// A high surrogate not followed by `\u`: the end of the text, or a lone surrogate.
    fn lone(&self, at: usize) -> ParseError {
        let rest = self.b.get(at..).unwrap_or_default();
        if rest.len() < 2 && b"\\u".starts_with(rest) {
            return self.err(ParseErrorKind::UnexpectedEnd, self.b.len());
        }
        self.err(ParseErrorKind::LoneSurrogate, at)
    }

    fn hex4(&self, i: usize) -> Result<u32, ParseError> {
        let mut code = 0;
        for k in i..i + 4 {
            let digit = match self.b.get(k) {
                Some(&c @ b'0'..=b'9') => c - b'0',
                Some(&c @ b'a'..=b'f') => c - b'a' + 10,
                Some(&c @ b'A'..=b'F') => c - b'A' + 10,
                Some(_) => return Err(self.err(ParseErrorKind::InvalidEscape, k)),
                None => return Err(self.err(ParseErrorKind::UnexpectedEnd, k)),
            };
            code = code * 16 + u32::from(digit);
        }
        Ok(code)
    }
}

/// Whether the entries (key, value slots) of an object may repeat a name: false is sure.
/// Each key's summary sets one bit of a 512-bit filter; a key whose bit is already set is
/// compared with the keys before it, and a repeat found, or more comparisons than a few
/// per key (a full filter, or names that share a summary), answers true (the caller then
/// sorts). Most objects cost a multiply and a few bit operations per key.
#[inline(always)]
fn maybe_repeated<'a>(entries: &[Slot], key_at: impl Fn(u32) -> &'a str) -> bool {
    let n = entries.len() / 2;
    let mut seen = [0u64; 8];
    let mut budget = 4 * n + 32;
    for j in 0..n {
        let summary = entries[2 * j].word;
        let bit = (crate::names::mix(summary) >> 55) as usize;
        let (word, mask) = (bit / 64, 1u64 << (bit % 64));
        if seen[word] & mask != 0 {
            if budget < j {
                return true;
            }
            budget -= j;
            for i in 0..j {
                if entries[2 * i].word == summary
                    && crate::names::same_found(key_at(i as u32), key_at(j as u32))
                {
                    return true;
                }
            }
        }
        seen[word] |= mask;
    }
    false
}

/// How many values `root` holds, itself included, counted as the parser counts them
/// (`json::count_values`'s rule): for the values a repeated key drops. A walk with an
/// explicit stack (`walk`, reused), whatever the depth.
fn subtree_values(slots: &[Slot], walk: &mut Vec<Slot>, root: Slot) -> u64 {
    walk.clear();
    walk.push(root);
    let mut count = 0u64;
    while let Some(slot) = walk.pop() {
        count += 1;
        let per = match slot.tag & KIND_MASK {
            STRING => {
                count += slot.word / 4096;
                continue;
            }
            ARRAY => 1,
            OBJECT => 2,
            _ => continue,
        };
        let start = slot.at as usize;
        let children = slots
            .get(start..start + slot.word as usize * per)
            .unwrap_or_default();
        // (An object's values: every second slot.)
        walk.extend(children.iter().skip(per - 1).step_by(per));
    }
    count
}

/// Sorts the entries of the large object whose `count` entries start at slot `start`
/// (already distinct by name) by (summary, name) into `doc.index`, for
/// `FlatObject::get`'s binary search.
#[inline(never)]
fn index_entries(input: &str, doc: &mut Document, start: usize, count: usize) {
    let Document {
        slots,
        text,
        index,
        large,
        ..
    } = doc;
    let entries = slots.get(start..).unwrap_or_default();
    let key = |i: u32| {
        let slot = &entries[2 * i as usize];
        (slot.word, key_str(input, text, slot))
    };
    let offset = index.len();
    index.extend(0..count as u32);
    if let Some(part) = index.get_mut(offset..) {
        part.sort_unstable_by(|&a, &b| key(a).cmp(&key(b)));
    }
    large.push((start as u32, offset as u32));
}

/// Marks an entry removed by `dedup` (no key starts there: inputs are shorter).
const GONE: u32 = u32::MAX;

/// The text of a string at `place`.
#[inline(always)]
fn place_str<'a>(input: &'a str, text: &'a str, (at, len, escaped): Place) -> &'a str {
    let source = if escaped { text } else { input };
    source.get(at..at + len).unwrap_or_default()
}

/// The name of a key slot.
#[inline(always)]
pub(super) fn key_str<'a>(input: &'a str, text: &'a str, key: &Slot) -> &'a str {
    let escaped = key.tag & KEY_ESCAPED != 0;
    let len = (key.tag & !KEY_ESCAPED) as usize;
    place_str(input, text, (key.at as usize, len, escaped))
}

/// The text of a string value slot.
#[inline(always)]
pub(super) fn string_str<'a>(input: &'a str, text: &'a str, slot: &Slot) -> &'a str {
    let escaped = slot.tag & ESCAPED != 0;
    place_str(input, text, (slot.at as usize, slot.word as usize, escaped))
}

/// The text of a number value slot, as written.
pub(super) fn number_text<'a>(input: &'a str, slot: &Slot) -> &'a str {
    let start = slot.at as usize;
    let len = slot.tag >> TEXT_SHIFT;
    let end = if len < TEXT_SATURATED {
        start + len as usize
    } else {
        // (A number of 16 MiB or more: found again.)
        let b = input.as_bytes();
        let mut end = start;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = b.get(end) {
            end += 1;
        }
        end
    };
    input.get(start..end).unwrap_or_default()
}

/// Whether serde_json, as built into this program, reads floats correctly rounded: its
/// `float_roundtrip` feature, off in this crate, may be switched on by any other crate of
/// the build (jsonschema-rs does). Asked once, by reading a text the two ways read apart.
#[inline(always)]
fn serde_json_rounds_correctly() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    static MODE: AtomicU8 = AtomicU8::new(0);
    match MODE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let probe = serde_json::from_str::<serde_json::Value>("9007199254740991.0");
            let correct = probe.ok().and_then(|v| v.as_f64()) == Some(9_007_199_254_740_991.0);
            MODE.store(if correct { 2 } else { 1 }, Ordering::Relaxed);
            correct
        }
    }
}

/// The `f64` serde_json gives a number's text (checked against the grammar) without its
/// `float_roundtrip` feature (with it, the standard library's correctly rounded parse is
/// used instead): the two representations must hold the same value, or a `const` or
/// `enum` written in a schema (read by serde_json) could differ from the same text in an
/// instance. serde_json's way is fast
/// and may be a unit in the last place off the nearest float: the decimal digits are
/// gathered in a `u64` until the next would overflow it (later digits of the integer part
/// count in the exponent, later digits of the fraction are dropped; a fraction digit is
/// still taken after the integer part overflowed, if it fits), then the `u64` is
/// converted, and multiplied or divided once by a power of ten (several divisions below
/// 1e-308). `None` when the value overflows `f64` (serde_json refuses those numbers too).
#[inline(never)]
fn serde_json_float(text: &[u8]) -> Option<f64> {
    let negative = text.first() == Some(&b'-');
    let mut digits = text.iter().copied().skip(usize::from(negative)).peekable();
    // Whether `s * 10 + d` overflows `u64`.
    let overflows = |s: u64, d: u64| s >= u64::MAX / 10 && (s > u64::MAX / 10 || d > u64::MAX % 10);
    let mut significand: u64 = 0;
    let mut exponent: i32 = 0;
    let mut dropping = false;
    while let Some(&c @ b'0'..=b'9') = digits.peek() {
        let d = u64::from(c - b'0');
        if dropping || overflows(significand, d) {
            dropping = true;
            exponent = exponent.saturating_add(1);
        } else {
            significand = significand * 10 + d;
        }
        digits.next();
    }
    if digits.peek() == Some(&b'.') {
        digits.next();
        let mut dropping = false;
        while let Some(&c @ b'0'..=b'9') = digits.peek() {
            let d = u64::from(c - b'0');
            if dropping || overflows(significand, d) {
                dropping = true;
            } else {
                significand = significand * 10 + d;
                exponent -= 1;
            }
            digits.next();
        }
    }
    if let Some(b'e' | b'E') = digits.peek() {
        digits.next();
        let positive = match digits.peek() {
            Some(b'-') => {
                digits.next();
                false
            }
            Some(b'+') => {
                digits.next();
                true
            }
            _ => true,
        };
        let mut e: i32 = 0;
        for c in digits {
            let d = i32::from(c.wrapping_sub(b'0'));
            if e >= i32::MAX / 10 && (e > i32::MAX / 10 || d > i32::MAX % 10) {
                // (An exponent past `i32`: zero, or out of range.)
                if significand != 0 && positive {
                    return None;
                }
                return Some(if negative { -0.0 } else { 0.0 });
            }
            e = e * 10 + d;
        }
        exponent = if positive {
            exponent.saturating_add(e)
        } else {
            exponent.saturating_sub(e)
        };
    }
    let mut f = significand as f64;
    loop {
        match POW10.get(exponent.unsigned_abs() as usize) {
            Some(&pow) => {
                if exponent >= 0 {
                    f *= pow;
                    if f.is_infinite() {
                        return None;
                    }
                } else {
                    f /= pow;
                }
                break;
            }
            None => {
                if f == 0.0 {
                    break;
                }
                if exponent >= 0 {
                    return None;
                }
                f /= 1e308;
                exponent += 308;
            }
        }
    }
    Some(if negative { -f } else { f })
}

/// The powers of ten a float is scaled by, as the compiler reads their literals.
#[rustfmt::skip]
static POW10: [f64; 309] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46,
    1e47, 1e48, 1e49, 1e50, 1e51, 1e52, 1e53, 1e54, 1e55, 1e56, 1e57, 1e58, 1e59, 1e60, 1e61,
    1e62, 1e63, 1e64, 1e65, 1e66, 1e67, 1e68, 1e69, 1e70, 1e71, 1e72, 1e73, 1e74, 1e75, 1e76,
    1e77, 1e78, 1e79, 1e80, 1e81, 1e82, 1e83, 1e84, 1e85, 1e86, 1e87, 1e88, 1e89, 1e90, 1e91,
    1e92, 1e93, 1e94, 1e95, 1e96, 1e97, 1e98, 1e99, 1e100, 1e101, 1e102, 1e103, 1e104, 1e105,
    1e106, 1e107, 1e108, 1e109, 1e110, 1e111, 1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118,
    1e119, 1e120, 1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127, 1e128, 1e129, 1e130, 1e131,
    1e132, 1e133, 1e134, 1e135, 1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143, 1e144,
    1e145, 1e146, 1e147, 1e148, 1e149, 1e150, 1e151, 1e152, 1e153, 1e154, 1e155, 1e156, 1e157,
    1e158, 1e159, 1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169, 1e170,
    1e171, 1e172, 1e173, 1e174, 1e175, 1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183,
    1e184, 1e185, 1e186, 1e187, 1e188, 1e189, 1e190, 1e191, 1e192, 1e193, 1e194, 1e195, 1e196,
    1e197, 1e198, 1e199, 1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207, 1e208, 1e209,
    1e210, 1e211, 1e212, 1e213, 1e214, 1e215, 1e216, 1e217, 1e218, 1e219, 1e220, 1e221, 1e222,
    1e223, 1e224, 1e225, 1e226, 1e227, 1e228, 1e229, 1e230, 1e231, 1e232, 1e233, 1e234, 1e235,
    1e236, 1e237, 1e238, 1e239, 1e240, 1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247, 1e248,
    1e249, 1e250, 1e251, 1e252, 1e253, 1e254, 1e255, 1e256, 1e257, 1e258, 1e259, 1e260, 1e261,
    1e262, 1e263, 1e264, 1e265, 1e266, 1e267, 1e268, 1e269, 1e270, 1e271, 1e272, 1e273, 1e274,
    1e275, 1e276, 1e277, 1e278, 1e279, 1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287,
    1e288, 1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300,
    1e301, 1e302, 1e303, 1e304, 1e305, 1e306, 1e307, 1e308
];
