//! Unit tests for ECMA-262 pattern translation.

use std::time::{Duration, Instant};

use super::{DEFAULT_PATTERN_BUDGET, MatchOutcome, Matcher, Pattern, is_valid_syntax};

#[track_caller]
fn outcome(pattern: &str, subject: &str) -> MatchOutcome {
    match Pattern::new(pattern, DEFAULT_PATTERN_BUDGET) {
        Ok(p) => p.find(subject),
        Err(e) => panic!("{pattern:?} failed to compile: {e}"),
    }
}

#[track_caller]
fn matches(pattern: &str, subject: &str) {
    assert_eq!(
        outcome(pattern, subject),
        MatchOutcome::Match,
        "{pattern:?} on {subject:?}"
    );
}

#[track_caller]
fn rejects(pattern: &str, subject: &str) {
    assert_eq!(
        outcome(pattern, subject),
        MatchOutcome::NoMatch,
        "{pattern:?} on {subject:?}"
    );
}

#[track_caller]
fn invalid(pattern: &str) {
    assert!(
        Pattern::new(pattern, DEFAULT_PATTERN_BUDGET).is_err(),
        "{pattern:?} compiled"
    );
    assert!(
        !is_valid_syntax(pattern),
        "{pattern:?} passed the syntax check"
    );
}

#[test]
fn anchors_are_not_multiline() {
    rejects("^abc$", "abc\n");
    rejects("^abc$", "x\nabc");
    matches("^abc$", "abc");
    matches("abc", "xxabcxx");
    rejects("^abc$", "abcabc");
    rejects("a$|^b", "a\n");
}

#[test]
fn ascii_shorthand_classes() {
    matches(r"^\d$", "7");
    rejects(r"^\d$", "\u{07C0}");
    matches(r"^\D$", "\u{07C0}");
    matches(r"^\w$", "_");
    rejects(r"^\w$", "é");
    matches(r"^\W$", "é");
    for ws in [
        "\u{FEFF}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{2028}", "\u{202F}",
        "\u{3000}", "\u{B}",
    ] {
        matches(r"^\s$", ws);
        rejects(r"^\S$", ws);
    }
    rejects(r"^\s$", "\u{180E}");
    matches(r"[\D]", "a");
    matches(r"^[^\S]$", " ");
    rejects(r"^[^\S]$", "a");
}

#[test]
fn word_boundaries_are_ascii() {
    matches(r"\bfoo\b", "a foo b");
    // `é` is not an ECMA-262 word character, so there is a boundary next to it.
    matches(r"\bfoo\b", "éfooé");
    rejects(r"\bfoo\b", "_foo_");
    rejects(r"é\Bx", "éx");
    matches(r"é\B!", "é!");
    rejects(r"a\Bb", "a b");
    matches(r"a\Bb", "ab");
    // Same through the backtracking engine.
    matches(r"(?=f)\bfoo\b", "foo");
    matches(r"(?=f)\bfoo\b", "éfooé");
    rejects(r"(?=f)\bfoo\b", "afoo");
    matches(r"(?=a)a\Bb", "ab");
    rejects(r"(?=a)a\Bb", "a b");
}

#[test]
fn dot_excludes_line_terminators() {
    for lt in ["\n", "\r", "\u{2028}", "\u{2029}"] {
        rejects("^.$", lt);
        rejects("^a.b$", &format!("a{lt}b"));
    }
    matches("^.$", "\u{1F600}");
    matches("^.$", "\u{85}");
}

#[test]
fn escapes() {
    matches(r"^\cC$", "\u{3}");
    matches(r"^\cc$", "\u{3}");
    matches(r"^\t\n\r\v\f$", "\t\n\r\u{B}\u{C}");
    matches(r"^\0$", "\0");
    matches(r"^\x41\u0042\u{43}$", "ABC");
    matches(r"^\uD83D\uDE00$", "\u{1F600}");
    matches(r"^[\uD83D\uDE00-\uD83D\uDE4F]$", "\u{1F610}");
    matches(r"^\/\.\*\+\?\(\)\[\]\{\}\|\^\$\\$", r"/.*+?()[]{}|^$\");
    matches(r"^[\-\&\%]+$", "-&%");
    // A lone surrogate can never match a valid string.
    rejects(r"\uD83D", "\u{1F600}");
    matches(r"^[^\uD83D]$", "a");
    invalid(r"\a");
    invalid(r"\e");
    invalid(r"\c1");
    invalid(r"\x4");
    invalid(r"\u12");
    invalid(r"\u{110000}");
    invalid(r"\01");
    invalid(r"\p");
    invalid(r"\p{NotAProperty}");
    invalid("\\");
}

#[test]
fn properties() {
    matches(r"^\p{L}+$", "héllo");
    matches(r"^\p{Letter}$", "é");
    matches(r"^\p{Lu}$", "É");
    rejects(r"^\p{Lu}$", "é");
    matches(r"^\P{L}$", "1");
    matches(r"^\p{Script=Greek}$", "α");
    matches(r"^\p{sc=Grek}$", "α");
    matches(r"^\p{scx=Grek}$", "α");
    matches(r"^\p{General_Category=Decimal_Number}$", "৪");
    matches(r"^[\p{L}\d]+$", "a1é");
    matches(r"^\p{digit}+$", "৪২");
    matches(r"^\p{ASCII}$", "a");
    matches(r"^\p{Any}$", "\u{10FFFF}");
}

#[test]
fn classes() {
    rejects("[]", "a");
    rejects("[]", "");
    matches("[^]", "\n");
    rejects("[^]", "");
    matches("^[a-c]+$", "abcab");
    matches(r"^[\w-.]+$", "a-b.c");
    matches(r"^[.-\w]+$", "a-b.c");
    matches(r"^[\b]$", "\u{8}");
    // `[]` is an empty class, so this can never match.
    rejects("^[]a]$", "a]");
    invalid("[z-a]");
    invalid("[a");
    invalid(r"[\B]");
    invalid(r"[\1]");
}

#[test]
fn quantifiers_and_literal_braces() {
    matches("^a{2}$", "aa");
    rejects("^a{2}$", "aaa");
    matches("^a{2,}$", "aaaa");
    matches("^a{1,2}b$", "aab");
    matches("^a{,2}$", "a{,2}");
    matches("^{$", "{");
    matches("^a{$", "a{");
    matches("^}$", "}");
    matches("^]$", "]");
    matches("^x{a}$", "x{a}");
    matches("^a*?b$", "aab");
    invalid("a{2,1}");
    invalid("*a");
    invalid("a**");
    invalid("a{2}{3}");
    invalid("{2}");
    invalid("^*");
    invalid(r"\b+");
    invalid("(?=a)*");
}

#[test]
fn groups_and_backreferences() {
    matches("^(a)\\1$", "aa");
    rejects("^(a)\\1$", "ab");
    matches("^(?<x>a)\\k<x>$", "aa");
    matches("^(?:ab)+$", "abab");
    // A reference to a group that did not take part matches the empty string.
    matches("^(?:(a)|b)\\1$", "b");
    matches("^\\1(a)$", "a");
    matches("(?<=a+)b", "aab");
    rejects("(?<=a+)b", "b");
    matches("(?<!a)b", "b");
    matches("^(?=.*\\d)\\w+$", "ab1");
    rejects("^(?=.*\\d)\\w+$", "abc");
    rejects("^(?!a)", "a");
    // Backreference followed by a digit is not `\10`.
    matches("^(a)\\1{2}0$", "aaa0");
    invalid("(?P<name>x)");
    invalid("(?P<n>a)(?P=n)");
    invalid("(?#comment)a");
    invalid("(?i)abc");
    invalid("(?ims)abc");
    invalid("^(abc]");
    invalid("(a");
    invalid("a)");
    invalid("\\2(a)");
    invalid("\\k<x>");
    invalid("(?<x>a)(?<x>b)");
    invalid("(?<1>a)");
}

#[test]
fn non_bmp() {
    matches("^🐲*$", "");
    matches("^🐲*$", "🐲🐲");
    rejects("^🐲*$", "🐉");
    matches("^[🐲-🐳]$", "🐳");
    matches(r"^\u{1F432}$", "🐲");
}

/// How a pattern is run, as its matcher's debug form.
fn kind(pattern: &str) -> String {
    format!(
        "{:?}",
        Pattern::new(pattern, DEFAULT_PATTERN_BUDGET).map(|p| p.matcher)
    )
}

#[test]
fn fast_paths_are_exact() {
    assert!(kind("abc").contains("Contains"));
    assert!(kind("^abc").contains("StartsWith"));
    assert!(kind("abc$").contains("EndsWith"));
    assert!(kind("^abc$").contains("Equals"));
    assert!(kind("^[a-z]{2,3}$").contains("Run"));
    assert!(kind("^.*$").contains("Run"));
    assert!(kind("a|b").contains("Linear") || kind("a|b").contains("Deferred"));
    matches("", "");
    matches("", "x");
    matches("^$", "");
    rejects("^$", "\n");
    matches("^[a-z]{2,3}$", "abc");
    rejects("^[a-z]{2,3}$", "abcd");
    rejects("^[a-z]{2,3}$", "a");
    rejects("^[a-z]{2,3}$", "aB");
    matches("^[^a]{2}$", "é\u{1F600}");
    rejects("^.*$", "a\nb");
    matches("^.*$", "");
    matches(r"^[ \r\n\t\S]+$", "a b\u{1F600}");
    rejects(r"^[ \r\n\t\S]+$", "a\u{A0}b");
    let _ = Matcher::Contains(Box::from(""));
}

#[test]
fn character_runs_count_ascii_then_decode() {
    // ASCII members are checked by table, the rest decoded from the first wide byte on;
    // the bounds count characters across both parts.
    let p = r"^[a-z\u00e9]{2,3}$";
    assert!(kind(p).contains("Run"), "{}", kind(p));
    matches(p, "a\u{e9}");
    matches(p, "aa\u{e9}");
    matches(p, "\u{e9}\u{e9}\u{e9}");
    rejects(p, "aaa\u{e9}");
    rejects(p, "aaaa");
    rejects(p, "\u{e9}");
    rejects(p, "a\u{e9}A");
    rejects(p, "a\u{e8}");
    rejects("^[a-z]+$", "ab\u{e9}");
    rejects("^[a-z]{0,2}$", "abc");
    matches("^[a-z]{0,2}$", "");
    // Two bytes, one character: the byte length alone must not decide the minimum.
    rejects("^.{2,}$", "\u{e9}");
    matches("^.{2,}$", "\u{e9}\u{e9}");
    rejects("^.{1,2}$", "a\u{e9}\u{e9}");
    rejects("^.+$", "ab\ncd");
    rejects("^.+$", "ab\u{2028}");
    matches("^.+$", "ab\u{7f}\u{80}");
    // Control and high ASCII bytes map to their own entries, not to a neighbour's.
    matches("^[\\x00-\\x7f]+$", "\u{0}\u{7f}");
    rejects("^[\\x00-\\x7e]+$", "\u{7f}");
}

#[test]
fn nesting_is_bounded() {
    let deep = "(".repeat(100_000) + &")".repeat(100_000);
    invalid(&deep);
    let deep = "[".repeat(100_000);
    invalid(&deep);
    // Within the bound, run on a small stack to catch recursion that is too heavy.
    let ok = "(?:".repeat(super::parse::MAX_NEST) + "a" + &")".repeat(super::parse::MAX_NEST);
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || Pattern::new(&ok, DEFAULT_PATTERN_BUDGET).map(|p| p.find("a")))
        .map(|h| h.join());
    assert!(matches!(handle, Ok(Ok(Ok(MatchOutcome::Match)))));
}

#[test]
fn huge_patterns_are_errors() {
    assert!(Pattern::new("a{100000}{100000}", DEFAULT_PATTERN_BUDGET).is_err());
    assert!(Pattern::new("(?:\\w{1000}){1000}", DEFAULT_PATTERN_BUDGET).is_err());
}

#[test]
fn pathological_patterns_are_bounded() {
    let a = "a".repeat(100_000);
    let word_space = "ab ".repeat(33_333) + "!";
    let cases: [(&str, String); 6] = [
        ("^(a+)+$", format!("{a}!")),
        ("(a|aa)*c", a.clone()),
        ("(a*)*b", a.clone()),
        (r"^(\w+\s?)*$", word_space.clone()),
        (r"(a+)+\1b", a.clone()),
        (r"^(?=(a+)+$)b", format!("{a}!")),
    ];
    for (pattern, subject) in &cases {
        let start = Instant::now();
        let result = Pattern::new(pattern, DEFAULT_PATTERN_BUDGET).map(|p| p.find(subject));
        let elapsed = start.elapsed();
        assert!(result.is_ok(), "{pattern:?} did not compile");
        assert!(
            elapsed < Duration::from_secs(5),
            "{pattern:?} took {elapsed:?}"
        );
    }
    // The backtracking case gives up rather than answering wrongly.
    let p = Pattern::new(r"(a+)+\1b", DEFAULT_PATTERN_BUDGET).map(|p| p.find(&a));
    assert!(matches!(
        p,
        Ok(MatchOutcome::BudgetExceeded | MatchOutcome::NoMatch)
    ));
}

/// Every `pattern` and `patternProperties` key in the shared corpora compiles.
#[test]
fn corpus_patterns_compile() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let mut files = Vec::new();
    collect_json(&root.join("corpus/mcp-tools"), &mut files);
    if let Ok(entries) = std::fs::read_dir(root.join("bench/corpus")) {
        for entry in entries.flatten() {
            let schema = entry.path().join("schema.json");
            if schema.is_file() {
                files.push(schema);
            }
        }
    }
    assert!(
        !files.is_empty(),
        "no corpus found under {}",
        root.display()
    );
    let mut patterns = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        collect_patterns(&value, &mut patterns);
    }
    assert!(!patterns.is_empty());
    let failures: Vec<_> = patterns
        .iter()
        .filter_map(|p| {
            Pattern::new(p, DEFAULT_PATTERN_BUDGET)
                .err()
                .map(|e| format!("{p:?}: {e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "corpus patterns failed:\n{}",
        failures.join("\n")
    );
}

fn collect_json(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_json(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn collect_patterns(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("pattern", serde_json::Value::String(p)) => out.push(p.clone()),
                    ("patternProperties", serde_json::Value::Object(props)) => {
                        out.extend(props.keys().cloned());
                    }
                    _ => {}
                }
                collect_patterns(child, out);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_patterns(v, out)),
        _ => {}
    }
}

#[test]
fn leading_lookaheads_run_as_a_conjunction() {
    let p = r"^(?=.*\d)(?!.*x)[a-z0-9]+$";
    let kind = format!(
        "{:?}",
        Pattern::new(p, DEFAULT_PATTERN_BUDGET).map(|p| p.matcher)
    );
    assert!(kind.contains("All"), "{kind}");
    matches(p, "abc1");
    rejects(p, "abc");
    rejects(p, "ax1");
    rejects(p, "ABC1");
    // The cspell shape: two lookaheads and a rest.
    let p = r"^(?=[^!*,;{}[\]~\n]+$)(?=(.*\w)).+$";
    matches(p, "hello");
    rejects(p, "a,b");
    rejects(p, "!!");
    rejects(p, "");
    rejects(p, "ab\n");
    rejects(p, "--");
    matches(p, "-a-");
    // A lookahead of one alternative is spliced in: `(?=[...]+$)` and `.+$` are runs.
    let shape = self::kind(p);
    assert_eq!(shape.matches("Run(").count(), 2, "{shape}");
    // With alternatives inside, the group stays.
    let p = r"^(?=ab$|c)(?!cd).";
    matches(p, "ab");
    matches(p, "ce");
    rejects(p, "cd");
    rejects(p, "abc");
    // Lookbehind or backreferences keep the backtracking engine.
    let kind = format!(
        "{:?}",
        Pattern::new(r"^(?=(a))\1", DEFAULT_PATTERN_BUDGET).map(|p| p.matcher)
    );
    assert!(!kind.contains("All"), "{kind}");
    matches(r"^(?=(a))\1", "a");
}

#[test]
fn runs_anchored_on_one_side_or_none_agree_with_a_regex_engine() {
    assert!(kind("^[@$_#]").contains("RunAt"));
    assert!(kind("[0-9]{2}$").contains("RunAt"));
    assert!(kind("(.+)").contains("RunAt"));
    assert!(kind("(?:abc)").contains("Contains"));
    // Patterns whose ECMA-262 and `regex` readings agree on the subjects below (no line
    // terminator other than `\n`, explicit ASCII classes).
    let patterns = [
        "^[@$_#]",
        "[0-9]{2}",
        "[0-9]{2,}",
        "[a-z]{2,3}$",
        "^[^a]{2}",
        "(.*)",
        "(.+)",
        ".*",
        ".{3}",
        "(?:abc)",
        "(abc)$",
        "^(x)",
        "^[a-z]*",
        "[a-z]+$",
    ];
    let subjects = [
        "",
        "@a",
        "a@",
        "12",
        "1a2",
        "123",
        "abc",
        "xabc",
        "abcx",
        "x",
        "aaa",
        "ab1",
        "\n",
        "a\nbc",
        "é\u{1F600}",
        "#",
        "bbé",
        "AbC",
    ];
    for p in patterns {
        let reference = regex::Regex::new(p).unwrap();
        for s in subjects {
            let expected = if reference.is_match(s) {
                MatchOutcome::Match
            } else {
                MatchOutcome::NoMatch
            };
            assert_eq!(outcome(p, s), expected, "{p:?} on {s:?}");
        }
    }
}

#[test]
fn whole_string_runs_agree_with_a_regex_engine() {
    // ASCII subjects take a byte path (both halves of the bit set, bounds from the
    // length); others decode characters.
    let patterns = [
        "^[a-z]{2,3}$",
        "^[A-Z_@]+$",
        "^[!-~]{0,4}$",
        "^[^~]{3}$",
        "^[?@]{1,2}$",
        "^[\\x00-\\x7f]{2}$",
    ];
    let subjects = [
        "",
        "ab",
        "abcd",
        "A_@",
        "?",
        "@?",
        "?@?",
        "~~",
        "a~b",
        "abc",
        "\u{7f}\u{7f}",
        "é",
        "éa",
        "A\u{1F600}",
        "\t\n",
    ];
    for p in patterns {
        assert!(kind(p).contains("Run"), "{p}");
        let reference = regex::Regex::new(p).unwrap();
        for s in subjects {
            let expected = if reference.is_match(s) {
                MatchOutcome::Match
            } else {
                MatchOutcome::NoMatch
            };
            assert_eq!(outcome(p, s), expected, "{p:?} on {s:?}");
        }
    }
}

/// `\s` and `\S` translate to long explicit classes: a pattern of a few of them (FHIR's
/// `code`) is still short enough as a DFA, and runs as one once built.
#[test]
fn whitespace_classes_run_as_a_dense_dfa() {
    let pat = Pattern::new(r"^[^\s]+(\s[^\s]+)*$", 1000).unwrap();
    assert_eq!(pat.find("usual"), MatchOutcome::Match);
    assert_eq!(pat.find("two  spaces"), MatchOutcome::NoMatch);
    assert_eq!(pat.find("a\u{3000}b"), MatchOutcome::Match);
    assert_eq!(pat.find(" lead"), MatchOutcome::NoMatch);
    let Matcher::Deferred(d) = &pat.matcher else {
        panic!("expected a deferred engine, got {:?}", pat.matcher);
    };
    assert!(
        matches!(d.built.get(), Some(Matcher::Dfa(_))),
        "{:?}",
        d.built.get()
    );
}

/// The engine a pattern gets without the fast paths: the `regex` crate's own search (or
/// the backtracking engine), not the hand-run DFA, so that the fast paths and the DFA walk
/// are both checked against a search written elsewhere.
fn general(pattern: &str) -> Matcher {
    let ast = super::parse::parse(pattern).unwrap();
    let text = super::emit::emit(&ast.alternatives, ast.needs_backtracking);
    if ast.needs_backtracking {
        super::build(&text, true, DEFAULT_PATTERN_BUDGET).unwrap()
    } else {
        super::build_linear(&text).unwrap()
    }
}

/// Every string of up to three characters of `alphabet`, 2,000 pseudo-random ones of up to
/// twelve, and each one-character change of `sample`.
fn subjects(alphabet: &str, sample: &str) -> Vec<String> {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut out = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..3 {
        last = last
            .iter()
            .flat_map(|s| chars.iter().map(move |c| format!("{s}{c}")))
            .collect();
        out.extend(last.iter().cloned());
    }
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n
    };
    for _ in 0..2000 {
        let len = next(13);
        out.push((0..len).map(|_| chars[next(chars.len())]).collect());
    }
    let sample: Vec<char> = sample.chars().collect();
    for i in 0..sample.len() {
        for &c in &chars {
            let mut s = sample.clone();
            s[i] = c;
            out.push(s.iter().collect());
            s.remove(i);
            out.push(s.iter().collect());
        }
    }
    out.push(sample.iter().collect());
    out
}

#[test]
fn sequences_of_runs_agree_with_the_engine() {
    // (pattern, whether it is taken as a sequence of runs, alphabet, a matching subject)
    let cases = [
        ("^#[0-9a-fA-F]{6}$", true, "#0aFg:", "#00ff0A"),
        ("^[^:]+:[^:]+$", true, "ab:é\n", "a:b"),
        (r"^\{\{\w[\w.-]*\}\}$", true, "{}a_.-é", "{{a.b-c}}"),
        ("^(-?[a-zA-Z]{2})$", true, "-aZ1é", "-ab"),
        (r"^\d{4}-\d{2}-\d{2}$", true, "0-9a", "2024-01-31"),
        ("^[a-z][a-z0-9]{0,3}$", true, "a0Zé", "ab12"),
        ("^[1-9][0-9]*$", true, "019a", "109"),
        ("^a*b?c", true, "abcx", "aabc"),
        ("^x?[é😀]+y$", true, "xyé😀e", "xé😀y"),
        ("^(?:ab)+c$", false, "abc", "ababc"),
        ("^.b*$", true, "ab\n😀", "😀bb"),
        ("^[a-c]{2,3}[d-f]{1,2}$", true, "acdfx", "abcde"),
        // Characters at either end are compared as text, so a run before the last may
        // share its members.
        ("^a*a$", true, "ab", "aaa"),
        ("^ab[c-e]*ba$", true, "abcex", "abceba"),
        ("^a(b)c$", true, "abcx", "abc"),
        ("^x[a-c]*", true, "xabd", "xab"),
        ("^a*[ab]b?$", false, "ab", "aab"),
        ("^[a-z]+[0-9]?[a-z]$", false, "a0", "ab0c"),
        ("^[0-9]{1,}.[0-9]{1,}$", false, "0.a", "1.2"),
        ("^[a-z]+[0-9]?-$", true, "a0-", "ab0-"),
    ];
    for (pattern, taken, alphabet, sample) in cases {
        let shape = kind(pattern);
        assert_eq!(shape.contains("Steps"), taken, "{pattern}: {shape}");
        let fast = Pattern::new(pattern, DEFAULT_PATTERN_BUDGET).unwrap();
        let reference = general(pattern);
        assert_eq!(
            fast.find(sample),
            MatchOutcome::Match,
            "{pattern} on {sample:?}"
        );
        for s in subjects(alphabet, sample) {
            assert_eq!(
                fast.find(&s),
                super::find_with(&reference, &s, &super::Unmetered),
                "{pattern} on {s:?}"
            );
        }
    }
}

/// A pseudo-random draw below `n` (xorshift from `seed`): the same draws on every run.
fn draws(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    }
}

/// Sequences of runs drawn at random from a small grammar (characters, classes, `.`,
/// quantifiers, groups, both anchors or one) answer as the engine built without fast
/// paths does, whether or not they are taken as sequences.
#[test]
fn random_sequences_agree_with_the_engine() {
    let mut next = draws(0x2545_F491_4F6C_DD1D);
    let atoms = [
        "a", "b", "-", ".", "[ab]", "[^a]", "[a-c]", r"\d", "[é]", "x", "[^-]",
    ];
    let counts = ["", "", "?", "*", "+", "{2}", "{1,3}", "{0,2}", "{2,}"];
    let alphabet: Vec<char> = "ab-cx1é\n".chars().collect();
    let mut taken = 0;
    for _ in 0..1500 {
        let mut pattern = String::from("^");
        for _ in 0..1 + next(5) {
            let atom = atoms[next(atoms.len())];
            let count = counts[next(counts.len())];
            if next(6) == 0 {
                pattern.push_str(&format!("({atom}{count})"));
            } else {
                pattern.push_str(&format!("{atom}{count}"));
            }
        }
        if next(3) > 0 {
            pattern.push('$');
        }
        let fast = Pattern::new(&pattern, DEFAULT_PATTERN_BUDGET).unwrap();
        taken += usize::from(matches!(fast.matcher, Matcher::Steps(_)));
        let reference = general(&pattern);
        for _ in 0..300 {
            let subject: String = (0..next(8))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let expected = super::find_with(&reference, &subject, &super::Unmetered);
            assert_eq!(fast.find(&subject), expected, "{pattern} on {subject:?}");
            assert_eq!(
                fast.find_name(&subject, &super::Unmetered),
                expected,
                "{pattern} on {subject:?}"
            );
        }
    }
    // (Most draws are sequences the fast path takes.)
    assert!(taken > 300, "{taken} of 1,500 taken as sequences");
}

#[test]
fn hand_run_dfa_agrees_with_the_engine() {
    // Random patterns with alternation, optional and repeated groups, anchors anywhere,
    // word boundaries and non-ASCII members, run by `dfa_find` and by the `regex` crate.
    let mut next = draws(0x5851_F42D_4C95_7F2D);
    let atoms = [
        "a", "b", ".", "[ab]", "[^a]", r"\d", r"\w", r"\s", "é", r"\b", "^", "$", "(a|bc)",
        "(?:é|b)",
    ];
    let counts = ["", "", "?", "*", "+", "{2}", "{0,2}"];
    let alphabet: Vec<char> = "ab c1é\n_".chars().collect();
    let mut built = 0;
    for _ in 0..1500 {
        let mut pattern = String::new();
        for _ in 0..1 + next(5) {
            if next(7) == 0 {
                pattern.push('|');
            }
            pattern.push_str(atoms[next(atoms.len())]);
            let count = counts[next(counts.len())];
            if !pattern.ends_with(['^', '$']) && !pattern.ends_with(r"\b") {
                pattern.push_str(count);
            }
        }
        let Ok(ast) = super::parse::parse(&pattern) else {
            continue;
        };
        let text = super::emit::emit(&ast.alternatives, ast.needs_backtracking);
        let dfa = super::build(&text, ast.needs_backtracking, DEFAULT_PATTERN_BUDGET).unwrap();
        if !matches!(dfa, Matcher::Dfa(_)) {
            continue;
        }
        built += 1;
        let reference = super::build_linear(&text).unwrap();
        for _ in 0..200 {
            let subject: String = (0..next(9))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            assert_eq!(
                super::find_with(&dfa, &subject, &super::Unmetered),
                super::find_with(&reference, &subject, &super::Unmetered),
                "{pattern} on {subject:?}"
            );
        }
    }
    assert!(built > 1000, "{built} of 1,500 built as a dense DFA");
}

#[test]
fn first_bytes_turn_away_only_names_that_cannot_match() {
    // (pattern, the first bytes its lead admits; `None` for every byte)
    let cases: [(&str, Option<&[u8]>); 12] = [
        ("^[@$_#]", Some(b"#$@_")),
        ("^x-", Some(b"x")),
        ("^abc$", Some(b"a")),
        ("^$", None),
        ("^[a-c]*$", Some(b"abc")),
        ("^[a-c]*", None),
        ("^\\d{2}-\\d+$", Some(b"0123456789")),
        ("^[a-c]*:", None),
        // Non-ASCII members admit every lead byte of a longer UTF-8 sequence.
        ("^[aé]+", Some(&LEAD_A_AND_WIDE)),
        ("^(?=a)[a-z]+$", Some(b"a")),
        ("abc", None),
        ("[ab]$", None),
    ];
    for (pattern, expected) in cases {
        let pat = Pattern::new(pattern, DEFAULT_PATTERN_BUDGET).unwrap();
        let admitted: Vec<u8> = (0..=255u8).filter(|&b| pat.lead.has(b)).collect();
        let every: Vec<u8> = (0..=255u8).collect();
        assert_eq!(admitted, expected.unwrap_or(&every), "{pattern}");
        let reference = general(pattern);
        for subject in subjects("abcx-é:0#@_", "x-abc") {
            assert_eq!(
                pat.find_name(&subject, &super::Unmetered),
                super::find_with(&reference, &subject, &super::Unmetered),
                "{pattern} on {subject:?}"
            );
        }
    }
}

/// `a`, then 0xC2 to 0xF4.
const LEAD_A_AND_WIDE: [u8; 52] = {
    let mut bytes = [b'a'; 52];
    let mut i = 1;
    while i < 52 {
        bytes[i] = 0xC1 + i as u8;
        i += 1;
    }
    bytes
};
