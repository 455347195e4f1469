//! Checkers for the `format` keyword.
//!
//! Each format of JSON Schema 2020-12 (section 7.3 of the validation
//! vocabulary) is checked against the grammar of the RFC it names. Checkers
//! work on the bytes (or chars) of the value by hand: none of them allocates
//! or builds a regex, since a format check runs once per instance value.
//!
//! | format | file | grammar |
//! | --- | --- | --- |
//! | `date-time`, `date`, `time`, `duration` | [`datetime`] | RFC 3339 section 5.6, appendix A |
//! | `email`, `idn-email` | [`email`] | RFC 5321 section 4.1.2, RFC 6531 section 3.3 |
//! | `hostname`, `idn-hostname` | [`hostname`] | RFC 1123, RFC 5890-5893 (IDNA2008) |
//! | `ipv4`, `ipv6` | [`ip`] | RFC 2673 dotted-quad, RFC 4291 section 2.2 |
//! | `uri`, `uri-reference`, `iri`, `iri-reference` | [`uri`] | RFC 3986, RFC 3987 |
//! | `uri-template` | [`uri_template`] | RFC 6570 |
//! | `json-pointer`, `relative-json-pointer` | [`pointer`] | RFC 6901, draft-handrews-relative-json-pointer-01 |
//! | `uuid` | [`uuid`] | RFC 4122 string representation |
//! | `regex` | [`crate::pattern`] | ECMA-262 pattern syntax |
//! | `ip` (schemars' `IpAddr`) | [`ip`] | `ipv4` or `ipv6` |
//! | `int8` … `int128`, `int`, `uint8` … `uint128`, `uint`, `float`, `double` | [`numeric`] | the range of the machine type named (schemars, OpenAPI); numbers only |

mod datetime;
mod email;
mod hostname;
mod idna;
mod idna_tables;
mod ip;
mod numeric;
mod pointer;
mod uri;
mod uri_template;
mod uuid;

#[cfg(test)]
mod suite;

/// Checks `value` against the built-in format `name`.
///
/// Returns `None` when the format is unknown (an annotation only), else whether it conforms.
pub(crate) fn check(name: &str, value: &str) -> Option<bool> {
    Some(match name {
        "date-time" => datetime::is_date_time(value),
        "date" => datetime::is_date(value),
        "time" => datetime::is_time(value),
        "duration" => datetime::is_duration(value),
        "email" => email::is_email(value),
        "idn-email" => email::is_idn_email(value),
        "hostname" => hostname::is_hostname(value),
        "idn-hostname" => hostname::is_idn_hostname(value),
        "ipv4" => ip::is_ipv4(value),
        "ipv6" => ip::is_ipv6(value),
        "uri" => uri::is_uri(value),
        "uri-reference" => uri::is_uri_reference(value),
        "iri" => uri::is_iri(value),
        "iri-reference" => uri::is_iri_reference(value),
        "uri-template" => uri_template::is_uri_template(value),
        "json-pointer" => pointer::is_json_pointer(value),
        "relative-json-pointer" => pointer::is_relative_json_pointer(value),
        "uuid" => uuid::is_uuid(value),
        "regex" => crate::pattern::is_valid_syntax(value),
        "ip" => ip::is_ipv4(value) || ip::is_ipv6(value),
        // A numeric format says nothing about a string.
        name if numeric::is_numeric_format(name) => true,
        _ => return None,
    })
}

/// Whether `name` is a format of JSON Schema 2020-12 itself, which every validator knows
/// (not one of the code generators' formats this crate checks too).
pub(crate) fn is_standard(name: &str) -> bool {
    check(name, "").is_some() && !numeric::is_numeric_format(name) && name != "ip"
}

/// Checks the number `value` against the built-in format `name`: `None` when the format
/// does not constrain numbers (it is unknown, or constrains strings).
pub(crate) fn check_number(name: &str, value: &serde_json::Number) -> Option<bool> {
    numeric::check_number(name, value)
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn unknown_formats_are_annotations() {
        assert_eq!(check("color", "red"), None);
        assert_eq!(check("unknown", "x"), None);
        assert_eq!(check("", "x"), None);
        assert_eq!(check("Date", "2020-01-01"), None);
    }

    #[test]
    fn known_formats_answer() {
        assert_eq!(check("date", "2020-01-01"), Some(true));
        assert_eq!(check("regex", "^(abc]"), Some(false));
        assert_eq!(check("regex", "(?<=a+)b"), Some(true));
    }
}
