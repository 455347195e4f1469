//! The numeric formats code generators emit (schemars, OpenAPI): each names the range of
//! a machine type, `uint8` the integers 0 to 255, `float` the finite numbers an `f32`
//! holds. They constrain numbers only, as every format constrains one type.

use serde_json::Number;

/// The numeric formats, for the list of known formats.
pub(crate) fn is_numeric_format(name: &str) -> bool {
    range(name).is_some() || matches!(name, "float" | "double")
}

/// The inclusive integer range a format names; `int`/`uint` are `isize`/`usize`, taken
/// as 64 bits (what schemars emits them for on the machines MCP servers run on).
fn range(name: &str) -> Option<(i128, i128)> {
    Some(match name {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "int128" => (i128::MIN, i128::MAX),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        // u128::MAX does not fit an i128: the upper bound is checked as a float below.
        "uint128" => (0, i128::MAX),
        _ => return None,
    })
}

/// Whether `n` is within the numeric format `name`; `None` when `name` is not one.
/// An integer format admits integers only (`1.0` is the integer 1, as in JSON Schema).
pub(crate) fn check_number(name: &str, n: &Number) -> Option<bool> {
    if name == "double" {
        // Every JSON number serde_json holds is a finite f64.
        return Some(true);
    }
    if name == "float" {
        let f = n.as_f64()?;
        return Some(f.is_finite() && f.abs() <= f64::from(f32::MAX));
    }
    let (lo, hi) = range(name)?;
    if let Some(i) = n.as_i64() {
        return Some((lo..=hi).contains(&i128::from(i)));
    }
    if let Some(u) = n.as_u64() {
        return Some((lo..=hi).contains(&i128::from(u)));
    }
    let f = n.as_f64()?;
    if f.fract() != 0.0 || !f.is_finite() {
        return Some(false);
    }
    // Beyond 2^63 a float is exact only at coarse steps: compare as floats, upper bound
    // exclusive at the power of two above the type's maximum.
    let upper = if name == "uint128" {
        2f64.powi(128)
    } else {
        hi as f64 + 1.0
    };
    Some(f >= lo as f64 && f < upper)
}

#[cfg(test)]
mod tests {
    use super::check_number;
    use serde_json::{Number, json};

    fn n(v: serde_json::Value) -> Number {
        match v {
            serde_json::Value::Number(n) => n,
            _ => unreachable!(),
        }
    }

    #[test]
    fn integer_formats_are_their_ranges() {
        let cases = [
            ("uint8", json!(0), true),
            ("uint8", json!(255), true),
            ("uint8", json!(256), false),
            ("uint8", json!(-1), false),
            ("int8", json!(-128), true),
            ("int8", json!(-129), false),
            ("int8", json!(127), true),
            ("int8", json!(128), false),
            ("uint16", json!(65535), true),
            ("uint16", json!(65536), false),
            ("int16", json!(-32768), true),
            ("int16", json!(32768), false),
            ("uint32", json!(4294967295u64), true),
            ("uint32", json!(4294967296u64), false),
            ("int32", json!(-2147483648i64), true),
            ("int32", json!(2147483648u64), false),
            ("uint64", json!(u64::MAX), true),
            ("uint64", json!(-1), false),
            ("uint64", json!(1.8446744073709552e19), false),
            ("uint", json!(u64::MAX), true),
            ("int64", json!(i64::MIN), true),
            ("int64", json!(u64::MAX), false),
            ("int", json!(i64::MAX), true),
            ("int128", json!(u64::MAX), true),
            ("int128", json!(1e30), true),
            ("int128", json!(1e39), false),
            ("uint128", json!(1e38), true),
            ("uint128", json!(-1), false),
            ("uint128", json!(1e39), false),
            ("uint8", json!(2.0), true),
            ("uint8", json!(2.5), false),
            ("int64", json!(0.5), false),
        ];
        for (format, value, want) in cases {
            assert_eq!(
                check_number(format, &n(value.clone())),
                Some(want),
                "{format} {value}"
            );
        }
    }

    #[test]
    fn float_formats() {
        assert_eq!(check_number("float", &n(json!(3.4e38))), Some(true));
        assert_eq!(check_number("float", &n(json!(3.5e38))), Some(false));
        assert_eq!(check_number("float", &n(json!(-1))), Some(true));
        assert_eq!(check_number("double", &n(json!(1e308))), Some(true));
        assert_eq!(check_number("email", &n(json!(1))), None);
    }
}
