//! `date-time`, `date`, `time` (RFC 3339 section 5.6) and `duration` (RFC 3339 appendix A).

/// Parses exactly `N` ASCII digits at `at` as a number.
fn digits<const N: usize>(b: &[u8], at: usize) -> Option<u32> {
    let field = b.get(at..at + N)?;
    field.iter().try_fold(0u32, |acc, &d| {
        d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
    })
}

fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// `full-date`: `YYYY-MM-DD` with a real day of that month.
fn full_date(b: &[u8]) -> bool {
    let (Some(year), Some(month), Some(day)) =
        (digits::<4>(b, 0), digits::<2>(b, 5), digits::<2>(b, 8))
    else {
        return false;
    };
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return false;
    }
    let last = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => return false,
    };
    (1..=last).contains(&day)
}

/// `full-time`: `HH:MM:SS[.frac](Z|+HH:MM|-HH:MM)`.
///
/// A leap second (`:60`) is only valid when the time, moved to UTC by its
/// offset, is 23:59:60 (RFC 3339 section 5.7).
fn full_time(b: &[u8]) -> bool {
    let (Some(hour), Some(minute), Some(second)) =
        (digits::<2>(b, 0), digits::<2>(b, 3), digits::<2>(b, 6))
    else {
        return false;
    };
    if b.get(2) != Some(&b':') || b.get(5) != Some(&b':') || hour > 23 || minute > 59 || second > 60
    {
        return false;
    }
    let mut at = 8;
    if b.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        if at == start {
            return false;
        }
    }
    let offset_minutes: i32 = match b.get(at) {
        Some(b'Z' | b'z') if b.len() == at + 1 => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let (Some(oh), Some(om)) = (digits::<2>(b, at + 1), digits::<2>(b, at + 4)) else {
                return false;
            };
            if b.len() != at + 6 || b.get(at + 3) != Some(&b':') || oh > 23 || om > 59 {
                return false;
            }
            let minutes = (oh * 60 + om) as i32;
            if sign == b'-' { -minutes } else { minutes }
        }
        _ => return false,
    };
    if second == 60 {
        let utc = ((hour * 60 + minute) as i32 - offset_minutes).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

/// RFC 3339 `date-time`; `T` and `Z` may be lower case (section 5.6, note).
pub(super) fn is_date_time(value: &str) -> bool {
    let b = value.as_bytes();
    match (b.get(..10), b.get(10), b.get(11..)) {
        (Some(date), Some(b'T' | b't'), Some(time)) => full_date(date) && full_time(time),
        _ => false,
    }
}

/// RFC 3339 `full-date`.
pub(super) fn is_date(value: &str) -> bool {
    full_date(value.as_bytes())
}

/// RFC 3339 `full-time` (an offset is required).
pub(super) fn is_time(value: &str) -> bool {
    full_time(value.as_bytes())
}

/// RFC 3339 appendix A `duration`:
///
/// ```text
/// duration = "P" (dur-date / dur-time / dur-week)
/// dur-date = (dur-day / dur-month / dur-year) [dur-time]
/// dur-time = "T" (dur-hour / dur-minute / dur-second)
/// ```
/// Units appear in order Y M D (date) and H M S (time), each optional but
/// with no gaps (`P1Y2D` and `PT1H2S` are invalid); weeks stand alone.
pub(super) fn is_duration(value: &str) -> bool {
    let Some(rest) = value.strip_prefix('P') else {
        return false;
    };
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    if date.is_empty() && time.is_none() {
        return false;
    }
    if let Some(weeks) = date.strip_suffix('W') {
        return time.is_none() && !weeks.is_empty() && weeks.bytes().all(|b| b.is_ascii_digit());
    }
    units(date, b"YMD") && time.is_none_or(|t| !t.is_empty() && units(t, b"HMS"))
}

/// Whether `s` is a run of `digits unit` pairs whose units are consecutive
/// entries of `order` (so `order` = YMD allows Y, YM, YMD, M, MD, D).
fn units(s: &str, order: &[u8]) -> bool {
    let b = s.as_bytes();
    let mut at = 0;
    let mut expected: Option<usize> = None;
    while at < b.len() {
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let Some(unit) = b.get(at) else {
            return false;
        };
        let Some(index) = order.iter().position(|u| u == unit) else {
            return false;
        };
        if at == start || expected.is_some_and(|e| e != index) {
            return false;
        }
        expected = Some(index + 1);
        at += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(is_date("2020-02-29"));
        assert!(!is_date("2021-02-29"));
        assert!(!is_date("2100-02-29"));
        assert!(is_date("2000-02-29"));
        assert!(!is_date("2020-1-01"));
        assert!(!is_date("2020-01-01\n"));
    }

    #[test]
    fn times_and_leap_seconds() {
        assert!(is_time("23:59:60Z"));
        assert!(is_time("15:59:60-08:00"));
        assert!(is_time("00:29:60-23:30"));
        assert!(!is_time("23:59:60+01:00"));
        assert!(!is_time("12:00:00"));
        assert!(!is_time("12:00:00.Z"));
        assert!(is_time("12:00:00.123456789z"));
        assert!(!is_time("01:02:03+24:00"));
        assert!(is_date_time("1963-06-19t08:30:06.283185z"));
        assert!(!is_date_time("1963-06-19 08:30:06Z"));
    }

    #[test]
    fn durations() {
        for ok in ["P4DT12H30M5S", "P2W", "PT36H", "P1M2D", "PT1M2S", "P01D"] {
            assert!(is_duration(ok), "{ok}");
        }
        for bad in [
            "P", "PT", "P1YT", "P1Y2D", "PT1H2S", "P1D2H", "P1WT1H", "P1Y2W", "PT0.5S", "P2D1Y",
        ] {
            assert!(!is_duration(bad), "{bad}");
        }
    }
}
