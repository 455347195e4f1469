//! JSON semantics the keywords share: types, numeric comparison, equality, string length.
//!
//! JSON Schema compares numbers by value, not by representation: `1` and `1.0` are equal,
//! `1.0` is an integer, and `multipleOf` works on the decimal the schema author wrote.

use serde_json::{Number, Value};
use std::cmp::Ordering;

/// The JSON type of an instance, as JSON Schema names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonType {
    /// `null`
    Null,
    /// `true` or `false`
    Boolean,
    /// A number with a fractional part (or too large to tell).
    Number,
    /// A number with no fractional part (`1`, `1.0`).
    Integer,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// Every type, in a fixed order (a set's iteration order).
    pub(crate) const ALL: [JsonType; 7] = [
        JsonType::Null,
        JsonType::Boolean,
        JsonType::Integer,
        JsonType::Number,
        JsonType::String,
        JsonType::Array,
        JsonType::Object,
    ];

    /// The name used in schemas (`"integer"`, `"object"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }

    /// Parses a schema type name.
    pub(crate) fn from_name(name: &str) -> Option<JsonType> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "number" => JsonType::Number,
            "integer" => JsonType::Integer,
            "string" => JsonType::String,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            _ => return None,
        })
    }

    /// The type of an instance; numbers with no fractional part are `Integer`.
    pub fn of(value: &Value) -> JsonType {
        match value {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Number(n) => {
                if is_integer(n) {
                    JsonType::Integer
                } else {
                    JsonType::Number
                }
            }
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Flag bit above the seven type bits: draft-4 integer semantics.
const STRICT_INTEGERS: u8 = 1 << 7;

/// A set of JSON types, as the `type` keyword lists them.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct TypeSet(u8);

impl TypeSet {
    /// The empty set.
    pub const fn empty() -> TypeSet {
        TypeSet(0)
    }

    /// Every type.
    pub(crate) const fn all() -> TypeSet {
        TypeSet(0x7f)
    }

    /// The types of either set (with draft-4 integer typing if either has it).
    pub(crate) const fn union(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0)
    }

    /// The types an instance may have to be in both sets (`"number"` admits integers).
    pub(crate) fn intersect(self, other: TypeSet) -> TypeSet {
        let widen = |t: TypeSet| {
            if t.contains(JsonType::Number) {
                t.with(JsonType::Integer)
            } else {
                t
            }
        };
        TypeSet(widen(self).0 & widen(other).0 & 0x7f)
    }

    /// The set holding the type of `value` (a number of any kind counts as `number`).
    pub(crate) fn of_value(value: &Value) -> TypeSet {
        match JsonType::of(value) {
            JsonType::Integer => TypeSet::empty().with(JsonType::Number),
            ty => TypeSet::empty().with(ty),
        }
    }

    /// Whether some instance has a type in both sets (`"number"` admits integers).
    pub(crate) fn overlaps(self, other: TypeSet) -> bool {
        let widen = |t: TypeSet| {
            if t.contains(JsonType::Number) {
                t.with(JsonType::Integer)
            } else {
                t
            }
        };
        widen(self).0 & widen(other).0 & 0x7f != 0
    }

    /// The set with `ty` taken out (exactly: `number` does not take out `integer`).
    pub(crate) const fn without(self, ty: JsonType) -> TypeSet {
        TypeSet(self.0 & !ty.bit())
    }

    /// The set with `ty` added.
    pub const fn with(self, ty: JsonType) -> TypeSet {
        TypeSet(self.0 | ty.bit())
    }

    /// The one kind of instance (an index into [`INSTANCE_KINDS`]) the set admits, when
    /// it admits the instances of one kind and all of them: `number` (with `integer` or
    /// not), `string`, `array`, ... alone. `None` for `integer` alone and for more.
    pub(crate) fn single_kind(self) -> Option<u8> {
        let set = if self.contains(JsonType::Number) {
            self.without(JsonType::Integer)
        } else {
            self
        };
        if set.is_strict() || set.contains(JsonType::Integer) || set.0.count_ones() != 1 {
            return None;
        }
        INSTANCE_KINDS
            .iter()
            .position(|&k| set.contains(k))
            .map(|k| k as u8)
    }

    /// Whether the set names `ty` exactly.
    pub const fn contains(self, ty: JsonType) -> bool {
        self.0 & ty.bit() != 0
    }

    /// The types of the instances the set rejects, when a set can say so: `None` for
    /// integers without numbers (the rest, numbers with a fraction, is no set of types)
    /// and for draft-4 integer typing.
    pub(crate) fn complement(self) -> Option<TypeSet> {
        if self.is_strict()
            || (self.contains(JsonType::Integer) && !self.contains(JsonType::Number))
        {
            return None;
        }
        let rest = TypeSet(!self.0 & 0x7f);
        Some(if self.contains(JsonType::Number) {
            rest.without(JsonType::Integer)
        } else {
            rest
        })
    }

    /// Whether an instance of type `ty` satisfies `type` with this set
    /// (`"number"` admits integers).
    #[inline]
    pub(crate) fn admits(self, ty: JsonType) -> bool {
        self.contains(ty) || (ty == JsonType::Integer && self.contains(JsonType::Number))
    }

    /// The same set, where integers written with a fraction (`1.0`) count as numbers only
    /// (draft 4 semantics).
    pub(crate) const fn strict_integers(self) -> TypeSet {
        TypeSet(self.0 | STRICT_INTEGERS)
    }

    /// The set without draft-4 integer typing where that cannot change an answer: it
    /// tells only for `integer` without `number` (with `number`, or with no number type,
    /// `1.0` gets the same answer either way).
    pub(crate) const fn relaxed(self) -> TypeSet {
        if self.contains(JsonType::Integer) && !self.contains(JsonType::Number) {
            self
        } else {
            TypeSet(self.0 & !STRICT_INTEGERS)
        }
    }

    /// Whether `1.0` must not count as an integer.
    #[inline]
    pub(crate) const fn is_strict(self) -> bool {
        self.0 & STRICT_INTEGERS != 0
    }

    /// The types in the set, in a fixed order.
    pub fn iter(self) -> impl Iterator<Item = JsonType> {
        JsonType::ALL.into_iter().filter(move |t| self.contains(*t))
    }
}

impl std::fmt::Debug for TypeSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.iter().map(JsonType::as_str))
            .finish()
    }
}

/// The kinds of instance `Value` tells apart, in the order of [`kind_index`].
pub(crate) const INSTANCE_KINDS: [JsonType; 6] = [
    JsonType::Null,
    JsonType::Boolean,
    JsonType::Number,
    JsonType::String,
    JsonType::Array,
    JsonType::Object,
];

/// The index of the instance's kind in [`INSTANCE_KINDS`].
#[inline(always)]
pub(crate) fn kind_index(instance: &Value) -> usize {
    match instance {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// Whether a number has no fractional part.
#[inline]
pub(crate) fn is_integer(n: &Number) -> bool {
    if n.is_i64() || n.is_u64() {
        return true;
    }
    n.as_f64().is_some_and(is_integral)
}

/// Whether a float has no fractional part, without `f64::trunc`: that is a library call
/// on x86-64's baseline, and LLVM hoists it (speculatable) out of loops where it guards
/// one rare case, so every instance of any type paid for it.
#[inline(always)]
pub(crate) fn is_integral(f: f64) -> bool {
    // From 2^52 up every float is an integer; below, the conversion to i64 is exact
    // for integers and truncates anything else.
    const EVERY_FLOAT_INTEGRAL: f64 = 4_503_599_627_370_496.0;
    if !f.is_finite() {
        return false;
    }
    f.abs() >= EVERY_FLOAT_INTEGRAL || (f as i64) as f64 == f
}

/// A number in the form comparisons need: exact integers where serde_json has them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    /// An integer that fits `i128` exactly (every `i64` and `u64`).
    Int(i128),
    /// Anything else.
    Float(f64),
}

impl Num {
    /// Converts a serde_json number.
    #[inline]
    pub(crate) fn of(n: &Number) -> Num {
        if let Some(i) = n.as_i64() {
            Num::Int(i128::from(i))
        } else if let Some(u) = n.as_u64() {
            Num::Int(i128::from(u))
        } else {
            Num::Float(n.as_f64().unwrap_or(f64::NAN))
        }
    }
}

/// Compares two numbers by value, exactly, even across integer and float forms.
#[inline]
pub(crate) fn cmp_num(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Num::Int(x), Num::Float(y)) => cmp_int_float(x, y),
        (Num::Float(x), Num::Int(y)) => cmp_int_float(y, x).reverse(),
    }
}

fn cmp_int_float(i: i128, f: f64) -> Ordering {
    if f.is_nan() {
        return Ordering::Equal;
    }
    // Beyond ±2^127 the float is out of i128 range, so the sign decides.
    if f >= 1.7e38 {
        return Ordering::Less;
    }
    if f <= -1.7e38 {
        return Ordering::Greater;
    }
    let fi = f.trunc();
    let fi_int = fi as i128;
    match i.cmp(&fi_int) {
        Ordering::Equal => {
            let frac = f - fi;
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        other => other,
    }
}

/// A signature for enum tables that numbers equal by value share (`1`, `1.0` and `-0.0`
/// with `0`): an integral value in the `i64` or `u64` range as that integer, any other
/// float by its bits; spread by `names::mix`.
pub(crate) fn number_signature(n: &Number) -> u64 {
    // (Integers, the commonest, inline; floats by a call, so that their tests are not
    // computed beside the integer path.)
    let key = if let Some(i) = n.as_i64() {
        i as u64
    } else if let Some(u) = n.as_u64() {
        u
    } else {
        float_key(n.as_f64().unwrap_or(f64::NAN))
    };
    crate::names::mix(key)
}

/// A signature for enum tables of any value, equal for values `equal` calls equal: a
/// string's and a number's as [`crate::names::signature`] and [`number_signature`] give
/// them; an array's or an object's from its kind and length only. Nothing nested is read,
/// so the work is a few instructions however large or deep the value is; the table's
/// equality test tells apart what the signature does not (reading nested values or an
/// object's names cost more than the probes it saved).
pub(crate) fn value_signature(v: &Value) -> u64 {
    use crate::names::mix;
    match v {
        Value::String(s) => crate::names::signature(s),
        Value::Number(n) => number_signature(n),
        Value::Null => mix(NULL_SEED),
        Value::Bool(b) => mix(BOOL_SEED ^ u64::from(*b)),
        Value::Array(items) => mix(ARRAY_SEED ^ items.len() as u64),
        Value::Object(map) => mix(OBJECT_SEED ^ map.len() as u64),
    }
}

/// Keys drawn once per process for the tables hostile input fills (long `enum`s): an
/// attacker who cannot see them cannot choose values that share a slot.
pub(crate) fn table_state() -> &'static ahash::RandomState {
    static STATE: std::sync::OnceLock<ahash::RandomState> = std::sync::OnceLock::new();
    STATE.get_or_init(ahash::RandomState::new)
}

/// The signature of a value in a long `enum`'s table, equal for values `equal` calls
/// equal: exact for numbers and short strings (as [`value_signature`]); for longer strings,
/// arrays and objects a keyed hash of the whole content, since their [`value_signature`]
/// reads only their ends or their length and a schema could give thousands of values one.
pub(crate) fn enum_signature(v: &Value) -> u64 {
    match v {
        Value::String(s) => string_enum_signature(s),
        Value::Array(_) | Value::Object(_) => hash_value(v, table_state()),
        _ => value_signature(v),
    }
}

/// [`enum_signature`] of a string.
#[inline(always)]
pub(crate) fn string_enum_signature(s: &str) -> u64 {
    if s.len() < crate::names::EXACT_BELOW {
        crate::names::signature(s)
    } else {
        table_state().hash_one(s)
    }
}

/// The slot of signature `sig` in a table (masked by the caller): keyed, so that distinct
/// signatures an attacker picks do not crowd one run of slots.
#[inline(always)]
pub(crate) fn table_slot(sig: u64) -> usize {
    table_state().hash_one(sig) as usize
}

/// Seeds that keep kinds apart in [`value_signature`] and [`hash_value`] (the kind's name
/// in ASCII; a length or a flag is joined to the last three).
const NULL_SEED: u64 = 0x6e75_6c6c;
const BOOL_SEED: u64 = 0x626f_6f6c;
const ARRAY_SEED: u64 = 0x6172_7261_7900_0000;
const OBJECT_SEED: u64 = 0x6f62_6a65_6374_0000;

/// `number_signature`'s key of a float: an integral one as the integer it equals.
#[inline(never)]
fn float_key(f: f64) -> u64 {
    const I64_END: f64 = 9_223_372_036_854_775_808.0; // 2^63
    const U64_END: f64 = 18_446_744_073_709_551_616.0; // 2^64
    // (Integral by a round trip through the integer, in range: no libm call.)
    if (-I64_END..I64_END).contains(&f) && (f as i64) as f64 == f {
        (f as i64) as u64
    } else if (I64_END..U64_END).contains(&f) && (f as u64) as f64 == f {
        f as u64
    } else {
        f.to_bits()
    }
}

/// Whether two numbers are equal by value.
#[inline(always)]
pub(crate) fn num_eq(a: &Number, b: &Number) -> bool {
    // Two integers of one form, or two floats, compare as they are (the commonest: enum
    // and const values are written as the instances are); across forms, by value.
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if a.is_f64() && b.is_f64() {
        return a.as_f64() == b.as_f64();
    }
    num_eq_across(a, b)
}

/// `num_eq` of numbers of different forms (out of line: inlined, its float conversions
/// were hoisted out of the loops that call `num_eq`, and run for integers too).
#[inline(never)]
fn num_eq_across(a: &Number, b: &Number) -> bool {
    cmp_num(Num::of(a), Num::of(b)) == Ordering::Equal
}

/// JSON equality as JSON Schema defines it: numbers by value, objects ignoring key order.
///
/// Deep values cannot overflow the stack: every [`GROW_EVERY`] levels, the walk moves to
/// a fresh stack segment when little is left.
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    equal_at(a, b, 0)
}

/// Levels of nesting between two checks of the stack left (a level's frame is small; the
/// red zone below holds this many with room to spare). Asking at every level cost more
/// than comparing small objects.
const GROW_EVERY: u32 = 32;

/// `f`, one level deeper than `depth`: on a fresh stack segment if needed, checked every
/// `GROW_EVERY` levels.
#[inline(always)]
fn deeper<R>(depth: u32, f: impl FnOnce() -> R) -> R {
    if depth % GROW_EVERY == GROW_EVERY - 1 {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
    } else {
        f()
    }
}

fn equal_at(a: &Value, b: &Value, depth: u32) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => num_eq(x, y),
        (Value::String(x), Value::String(y)) => crate::names::same(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len()
                && deeper(depth, || {
                    x.iter().zip(y).all(|(p, q)| equal_at(p, q, depth + 1))
                })
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && deeper(depth, || objects_equal(x, y, depth + 1))
        }
        _ => false,
    }
}

/// Two objects of equal length: walked side by side while their keys agree in order (a
/// sorted map's are, whenever the key sets are equal), each key looked up once they do not
/// (a map that keeps insertion order).
fn objects_equal(
    x: &serde_json::Map<String, Value>,
    y: &serde_json::Map<String, Value>,
    depth: u32,
) -> bool {
    let mut others = y.iter();
    for (k, v) in x {
        match others.next() {
            Some((l, w)) if crate::names::same(k, l) => {
                if !equal_at(v, w, depth) {
                    return false;
                }
            }
            _ => {
                return x
                    .iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equal_at(v, w, depth)));
            }
        }
    }
    true
}

/// A hash consistent with [`equal`]: equal values hash alike (numbers by value, objects
/// in any key order).
///
/// Strings, numbers and the joins of parts go through `state`, a keyed hash: with keys
/// drawn per process, an instance cannot be made of many distinct values that collide
/// (which would make `uniqueItems` compare them pairwise). Each part is one call on a
/// word or two, not a stream of writes per value (17% fewer instructions than a
/// `Hasher` stream on arrays of small objects).
pub(crate) fn hash_value(value: &Value, state: &ahash::RandomState) -> u64 {
    hash_at(value, state, 0)
}

fn hash_at(value: &Value, state: &ahash::RandomState, depth: u32) -> u64 {
    match value {
        Value::Null => NULL_SEED,
        Value::Bool(b) => BOOL_SEED ^ u64::from(*b),
        // (Equal by value, equal signatures: `1`, `1.0`.)
        Value::Number(n) => state.hash_one((0x6e75_6d62u32, number_signature(n))),
        Value::String(s) => state.hash_one(s.as_str()),
        Value::Array(items) => deeper(depth, || {
            items
                .iter()
                .fold(ARRAY_SEED ^ items.len() as u64, |h, item| {
                    state.hash_one((h, hash_at(item, state, depth + 1)))
                })
        }),
        Value::Object(map) => {
            // Order-independent: a sum of the entries' hashes.
            let sum = deeper(depth, || {
                map.iter().fold(0u64, |sum, (k, v)| {
                    let entry = state.hash_one((k.as_str(), hash_at(v, state, depth + 1)));
                    sum.wrapping_add(entry)
                })
            });
            state.hash_one((OBJECT_SEED ^ map.len() as u64, sum))
        }
    }
}

/// Number of Unicode code points in `s` (what `minLength`/`maxLength` count).
#[inline]
pub(crate) fn char_count(s: &str) -> usize {
    // Count the bytes that start a code point: every byte but the continuations
    // (0b10xxxxxx), the bytes below -64 read as `i8`. A plain loop with an 8-bit count,
    // which the compiler turns into sixteen-lane vector compares and adds; hence runs of
    // 255 bytes, whose count cannot wrap.
    s.as_bytes()
        .chunks(255)
        .map(|run| usize::from(run.iter().fold(0u8, |n, &b| n + u8::from(b as i8 >= -64))))
        .sum()
}

/// A decimal `mantissa × 10^exponent` equal to the number: an integer as it is, a float
/// as its shortest round-trip text form reads (the form serde_json prints), written by
/// `zmij` into a stack buffer and read in one pass.
pub(crate) fn decimal(n: &Number) -> Option<(u128, i32)> {
    if let Some(u) = n.as_u64() {
        return Some((u128::from(u), 0));
    }
    if let Some(i) = n.as_i64() {
        return Some((u128::from(i.unsigned_abs()), 0));
    }
    let f = n.as_f64().filter(|f| f.is_finite())?;
    let mut buf = zmij::Buffer::new();
    read_decimal(buf.format_finite(f).as_bytes())
}

/// Reads `-?digits(.digits)?([eE][+-]?digits)?` as `mantissa × 10^exponent`.
fn read_decimal(text: &[u8]) -> Option<(u128, i32)> {
    let text = text.strip_prefix(b"-").unwrap_or(text);
    let mut mantissa: u128 = 0;
    let mut fraction: i32 = 0;
    let mut dot = false;
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa
                    .checked_mul(10)?
                    .checked_add(u128::from(b - b'0'))?;
                fraction += i32::from(dot);
            }
            b'.' if !dot => dot = true,
            b'e' | b'E' => break,
            _ => return None,
        }
        i += 1;
    }
    let exponent = match text.get(i + 1..) {
        Some(rest) if i < text.len() => std::str::from_utf8(rest).ok()?.parse::<i32>().ok()?,
        _ => 0,
    };
    Some((mantissa, exponent.checked_sub(fraction)?))
}

/// Whether `value` is an integer multiple of `divisor` (`divisor > 0`).
///
/// Works on the decimal forms, so `0.0075` is a multiple of `0.0001` even though the
/// binary floating-point quotient is not a whole number.
///
/// The divisor's [`decimal`] is given, found once when the schema compiles.
pub(crate) fn is_multiple_of_decimal(
    value: &Number,
    divisor: &Number,
    divisor_decimal: Option<(u128, i32)>,
) -> bool {
    if let (Some(v), Some(d)) = (value.as_u64(), divisor.as_u64()) {
        return d != 0 && v % d == 0;
    }
    if let (Some(v), Some(d)) = (value.as_i64(), divisor.as_i64()) {
        return d != 0 && v % d == 0;
    }
    if let (Some((vm, ve)), Some((dm, de))) = (decimal(value), divisor_decimal) {
        if dm == 0 {
            return false;
        }
        if vm == 0 {
            return true;
        }
        if ve >= de {
            // value = vm·10^(ve-de) in units of 10^de; reduce modulo dm step by step.
            let mut rem = vm % dm;
            for _ in 0..(ve - de) {
                if rem == 0 {
                    break;
                }
                rem = match rem.checked_mul(10) {
                    Some(x) => x % dm,
                    // dm < 2^128/10 always holds for mantissas read from f64/u64 text.
                    None => return false,
                };
            }
            return rem == 0;
        }
        // divisor = dm·10^(de-ve) in units of 10^ve.
        let shift = u32::try_from(de - ve).unwrap_or(u32::MAX);
        return match 10u128.checked_pow(shift).and_then(|p| p.checked_mul(dm)) {
            Some(big) => vm % big == 0,
            // The divisor exceeds the value's magnitude, and the value is not zero.
            None => false,
        };
    }
    // Fallback for forms the decimal reader cannot take: float arithmetic.
    let (v, d) = (
        value.as_f64().unwrap_or(f64::NAN),
        divisor.as_f64().unwrap_or(f64::NAN),
    );
    is_integral(v / d)
}

/// Objects up to this many keys are searched by a scan (see [`has_key`]).
const SCAN_KEYS: usize = 8;

/// Whether object `o` has the key `name`. A small serde_json map is scanned with inline
/// byte compares, the lengths first (its own search calls `memcmp` at every probe); a
/// flat object's entries are scanned by summary.
#[inline(always)]
pub(crate) fn has<'a, O: crate::flat::Object<'a>>(o: O, name: &str) -> bool {
    o.lookup(name).is_some()
}

/// The value of `o`'s key `name`, found as [`has`] finds it.
#[inline(always)]
pub(crate) fn lookup<'a, O: crate::flat::Object<'a>>(o: O, name: &str) -> Option<O::Value> {
    o.lookup(name)
}

/// [`lookup`] of a name whose summary was computed at compile time (`None`: computed here
/// when the representation needs it).
#[inline(always)]
pub(crate) fn lookup_in<'a, O: crate::flat::Object<'a>>(
    o: O,
    name: &str,
    summary: Option<&u64>,
) -> Option<O::Value> {
    match summary {
        Some(&summary) => o.get(name, summary),
        None => o.lookup(name),
    }
}

/// [`lookup_in`] as a call (see [`lookup_key`]).
#[inline(never)]
pub(crate) fn lookup_key_in<'a, O: crate::flat::Object<'a>>(
    o: O,
    name: &str,
    summary: Option<&u64>,
) -> Option<O::Value> {
    lookup_in(o, name, summary)
}

/// Whether `o` has every one of `names` (`summaries`: theirs, computed at compile time, or
/// empty).
#[inline(always)]
pub(crate) fn has_all<'a, O: crate::flat::Object<'a>>(
    o: O,
    names: &[std::sync::Arc<str>],
    summaries: &[u64],
) -> bool {
    o.has_all(names, summaries)
}

/// [`lookup`] as a call, for the paths that look one key up per object (a tag, a
/// condition's key): inlined there, it was left out of line where it is inlined now.
#[inline(never)]
pub(crate) fn lookup_key<'a, O: crate::flat::Object<'a>>(o: O, name: &str) -> Option<O::Value> {
    lookup(o, name)
}

/// Whether `o` has one of `names` as a key: a small object's keys are gone through once,
/// each compared inline with every name; a larger one is searched per name.
#[inline]
pub(crate) fn has_any<'a, O: crate::flat::Object<'a>>(o: O, names: &[std::sync::Arc<str>]) -> bool {
    if o.len() <= SCAN_KEYS {
        o.entries()
            .any(|(k, _, _)| names.iter().any(|name| crate::names::same(k, name)))
    } else {
        names.iter().any(|name| has(o, name))
    }
}

/// How many values `root` holds, itself included, a string counting one more per 4,096
/// bytes: patterns are charged a step per 64 bytes they search (see `pattern::Meter`), so
/// a long string's budget pays for about sixteen searches of it. Iterative
/// (instances may be deep), and holding one iterator per level, not one entry per value.
pub(crate) fn count_values(root: &Value) -> usize {
    enum Level<'a> {
        Items(std::slice::Iter<'a, Value>),
        Members(serde_json::map::Values<'a>),
    }
    let mut count = 0usize;
    let mut levels: Vec<Level<'_>> = Vec::new();
    let mut next = Some(root);
    loop {
        if let Some(v) = next.take() {
            count += 1;
            match v {
                Value::Array(items) => levels.push(Level::Items(items.iter())),
                Value::Object(members) => levels.push(Level::Members(members.values())),
                Value::String(text) => count += text.len() / 4096,
                _ => {}
            }
        }
        let Some(level) = levels.last_mut() else {
            return count;
        };
        next = match level {
            Level::Items(it) => it.next(),
            Level::Members(it) => it.next(),
        };
        if next.is_none() {
            levels.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn n(v: Value) -> Number {
        match v {
            Value::Number(n) => n,
            _ => unreachable!(),
        }
    }

    fn is_multiple_of(value: &Number, divisor: &Number) -> bool {
        is_multiple_of_decimal(value, divisor, decimal(divisor))
    }

    /// The decimal read from the number's text as serde_json prints it (its `Display`),
    /// the reference `decimal` must agree with.
    fn decimal_of_display(n: &Number) -> Option<(u128, i32)> {
        let text = n.to_string();
        let text = text.trim_start_matches('-');
        let (digits, exp) = match text.split_once(['e', 'E']) {
            Some((d, e)) => (d, e.parse::<i32>().ok()?),
            None => (text, 0),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        let mantissa = format!("{int}{frac}").parse::<u128>().ok()?;
        Some((mantissa, exp - frac.len() as i32))
    }

    #[test]
    fn integral_floats_agree_with_trunc() {
        // Around every power of two where the conversion or the spacing of floats
        // changes, both signs, and the values between.
        let mut floats = vec![0.0, -0.0, 0.5, 1.0, 1.5, 1e300, -1e300, 5e-324, 1e-300];
        for e in 0..70 {
            let p = 2f64.powi(e);
            for f in [p, p + 0.5, p - 0.5, p * 1.5, p + 1.0, p - 1.0] {
                floats.push(f);
                floats.push(-f);
            }
            // The float just below and just above.
            floats.push(f64::from_bits(p.to_bits() - 1));
            floats.push(f64::from_bits(p.to_bits() + 1));
        }
        for f in floats {
            assert_eq!(is_integral(f), f.trunc() == f, "{f:e}");
        }
        assert!(!is_integral(f64::NAN));
        assert!(!is_integral(f64::INFINITY));
        assert!(!is_integral(f64::NEG_INFINITY));
    }

    #[test]
    fn decimals_agree_with_the_printed_form() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut floats = vec![
            0.1,
            0.07,
            19.99,
            1e-7,
            1e21,
            1e22,
            123456789.125,
            5e-324,
            1.7976931348623157e308,
            -0.0,
            -2.5,
            0.30000000000000004,
            1e15,
            1e16,
            1e17,
        ];
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            floats.push(f64::from_bits(state));
            // Short decimals too, as prices and coordinates are written.
            floats.push((state % 1_000_000) as f64 / 10f64.powi((state >> 40) as i32 % 8));
        }
        let mut checked = 0;
        for f in floats {
            let Some(number) = Number::from_f64(f) else {
                continue;
            };
            assert_eq!(decimal(&number), decimal_of_display(&number), "{f:e}");
            checked += 1;
        }
        assert!(checked > 30_000);
        for v in [
            json!(0),
            json!(7),
            json!(-7),
            json!(u64::MAX),
            json!(i64::MIN),
        ] {
            let number = n(v);
            assert_eq!(decimal(&number), decimal_of_display(&number), "{number}");
        }
    }

    #[test]
    fn multiple_of_decimals() {
        assert!(is_multiple_of(&n(json!(0.07)), &n(json!(0.01))));
        assert!(!is_multiple_of(
            &n(json!(0.30000000000000004)),
            &n(json!(0.1))
        ));
        assert!(is_multiple_of(&n(json!(-2.5)), &n(json!(0.5))));
        assert!(!is_multiple_of(&n(json!(1e-7)), &n(json!(1e-6))));
        assert!(is_multiple_of(&n(json!(0.0075)), &n(json!(0.0001))));
        assert!(is_multiple_of(&n(json!(19.99)), &n(json!(0.01))));
        assert!(!is_multiple_of(&n(json!(0.00751)), &n(json!(0.0001))));
        assert!(is_multiple_of(&n(json!(1e308)), &n(json!(0.5))));
        assert!(is_multiple_of(&n(json!(1)), &n(json!(1e-308))));
        assert!(is_multiple_of(&n(json!(10)), &n(json!(2.5))));
        assert!(!is_multiple_of(&n(json!(7)), &n(json!(2))));
        assert!(is_multiple_of(&n(json!(-4)), &n(json!(2))));
    }

    #[test]
    fn numbers_compare_across_forms() {
        assert_eq!(cmp_num(Num::Int(1), Num::Float(1.0)), Ordering::Equal);
        assert_eq!(cmp_num(Num::Int(1), Num::Float(1.5)), Ordering::Less);
        assert_eq!(cmp_num(Num::Int(-1), Num::Float(-1.5)), Ordering::Greater);
        assert_eq!(
            cmp_num(Num::Int(i128::from(u64::MAX)), Num::Float(1e30)),
            Ordering::Less
        );
    }

    #[test]
    fn equality_ignores_representation() {
        assert!(equal(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!equal(&json!([1]), &json!([true])));
        assert!(!equal(&json!(0), &json!(false)));
    }

    #[test]
    fn single_kinds() {
        let set = |types: &[JsonType]| types.iter().fold(TypeSet::empty(), |s, &t| s.with(t));
        assert_eq!(set(&[JsonType::String]).single_kind(), Some(3));
        assert_eq!(set(&[JsonType::Number]).single_kind(), Some(2));
        assert_eq!(
            set(&[JsonType::Number, JsonType::Integer]).single_kind(),
            Some(2)
        );
        assert_eq!(set(&[JsonType::Null]).single_kind(), Some(0));
        assert_eq!(set(&[JsonType::Object]).single_kind(), Some(5));
        assert_eq!(set(&[JsonType::Integer]).single_kind(), None);
        assert_eq!(set(&[JsonType::String, JsonType::Null]).single_kind(), None);
        assert_eq!(TypeSet::all().single_kind(), None);
        assert_eq!(TypeSet::empty().single_kind(), None);
        assert_eq!(
            set(&[JsonType::Number]).strict_integers().single_kind(),
            None
        );
    }

    #[test]
    fn code_points() {
        assert_eq!(char_count("💩a"), 2);
        assert_eq!(char_count(""), 0);
        // Strings of 0 to 9,000 bytes (past many runs of 255 bytes) of one- to
        // four-byte characters, against the standard library's count: every length up to
        // 700, then every 37th character.
        let alphabet = [
            'a',
            'é',
            'ß',
            '漢',
            '字',
            '🙂',
            '\u{7f}',
            '\u{80}',
            '\u{10FFFF}',
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut text = String::new();
        for step in 0u32.. {
            if text.len() >= 9000 {
                break;
            }
            if text.len() <= 700 || step % 37 == 0 {
                assert_eq!(
                    char_count(&text),
                    text.chars().count(),
                    "{} bytes",
                    text.len()
                );
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push(alphabet[(state % alphabet.len() as u64) as usize]);
        }
        // Text of one-byte characters only, where every byte counts: the lengths around a
        // run's end, where the counter is full.
        for n in [254, 255, 256, 510, 511, 4096, 9000] {
            assert_eq!(char_count(&"a".repeat(n)), n);
        }
    }

    #[test]
    fn keys_are_found_in_small_and_large_objects() {
        for size in [0usize, 1, 3, SCAN_KEYS, SCAN_KEYS + 1, 40] {
            let o: serde_json::Map<String, Value> = (0..size)
                .map(|i| (format!("key{i}"), Value::Null))
                .collect();
            for i in 0..size {
                assert!(has(&o, &format!("key{i}")), "{size} {i}");
            }
            for absent in ["", "key", "key00", "kez0", "key0 ", "\u{e9}"] {
                assert!(!has(&o, absent), "{size} {absent:?}");
            }
        }
    }

    #[test]
    fn values_are_counted_at_any_depth() {
        assert_eq!(count_values(&json!(1)), 1);
        assert_eq!(count_values(&json!([])), 1);
        assert_eq!(count_values(&json!({"a": [1, 2, {"b": null}], "c": {}})), 7);
        let mut deep = json!(0);
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep, json!(1)]);
        }
        assert_eq!(count_values(&deep), 200_001);
        // (Dropped level by level: the default drop would recurse 100,000 deep.)
        while let Value::Array(mut items) = deep {
            deep = items.swap_remove(0);
        }
    }

    #[test]
    fn any_of_several_names_is_found_in_small_and_large_objects() {
        let names: Vec<std::sync::Arc<str>> = vec!["date".into(), "timestamp".into()];
        let small = json!({"property": 1, "timestamp": 2});
        let Value::Object(small) = small else {
            unreachable!()
        };
        assert!(has_any(&small, &names));
        assert!(!has_any(&small, &names[..1]));
        let mut large = serde_json::Map::new();
        for i in 0..20 {
            large.insert(format!("k{i}"), json!(i));
        }
        assert!(!has_any(&large, &names));
        large.insert("date".into(), json!(0));
        assert!(has_any(&large, &names));
        assert!(!has_any(&large, &[]));
    }
}
