//! Dialects: which keywords mean what, by draft and by the vocabularies a meta-schema lists.

use crate::options::Draft;

/// Vocabulary flags (2019-09 and 2020-12 meta-schemas can switch vocabularies off).
pub(crate) mod vocab {
    pub(crate) const APPLICATOR: u16 = 1 << 0;
    pub(crate) const UNEVALUATED: u16 = 1 << 1;
    pub(crate) const VALIDATION: u16 = 1 << 2;
    pub(crate) const FORMAT_ASSERTION: u16 = 1 << 3;
    pub(crate) const CONTENT: u16 = 1 << 4;
    pub(crate) const META_DATA: u16 = 1 << 5;
    pub(crate) const FORMAT_ANNOTATION: u16 = 1 << 6;
    /// What a standard meta-schema enables.
    pub(crate) const ALL_STANDARD: u16 =
        APPLICATOR | UNEVALUATED | VALIDATION | CONTENT | META_DATA | FORMAT_ANNOTATION;
}

/// The dialect in force for a schema resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dialect {
    pub(crate) draft: Draft,
    pub(crate) vocab: u16,
}

impl Dialect {
    pub(crate) fn standard(draft: Draft) -> Dialect {
        Dialect {
            draft,
            vocab: vocab::ALL_STANDARD,
        }
    }

    #[inline]
    pub(crate) fn has(self, flag: u16) -> bool {
        self.vocab & flag != 0
    }

    /// Before 2019-09, `$ref` makes its siblings ignored.
    pub(crate) fn ref_overrides_siblings(self) -> bool {
        matches!(self.draft, Draft::Draft4 | Draft::Draft6 | Draft::Draft7)
    }

    /// The keyword that gives a resource its URI.
    pub(crate) fn id_keyword(self) -> &'static str {
        if self.draft == Draft::Draft4 {
            "id"
        } else {
            "$id"
        }
    }

    pub(crate) fn at_least(self, draft: Draft) -> bool {
        rank(self.draft) >= rank(draft)
    }
}

fn rank(d: Draft) -> u8 {
    match d {
        Draft::Draft4 => 4,
        Draft::Draft6 => 6,
        Draft::Draft7 => 7,
        Draft::Draft201909 => 8,
        Draft::Draft202012 => 9,
    }
}

/// The draft a standard meta-schema URI names (with or without the empty fragment).
pub(crate) fn draft_of_uri(uri: &str) -> Option<Draft> {
    let uri = uri.strip_suffix('#').unwrap_or(uri);
    Some(match uri {
        "http://json-schema.org/draft-04/schema" | "https://json-schema.org/draft-04/schema" => {
            Draft::Draft4
        }
        "http://json-schema.org/draft-06/schema" | "https://json-schema.org/draft-06/schema" => {
            Draft::Draft6
        }
        "http://json-schema.org/draft-07/schema" | "https://json-schema.org/draft-07/schema" => {
            Draft::Draft7
        }
        "https://json-schema.org/draft/2019-09/schema"
        | "http://json-schema.org/draft/2019-09/schema" => Draft::Draft201909,
        "https://json-schema.org/draft/2020-12/schema"
        | "http://json-schema.org/draft/2020-12/schema" => Draft::Draft202012,
        _ => return None,
    })
}

/// The vocabulary flag of a vocabulary URI, and the draft it belongs to.
pub(crate) fn vocab_of_uri(uri: &str) -> Option<(Draft, Option<u16>)> {
    let (draft, rest) = if let Some(rest) =
        uri.strip_prefix("https://json-schema.org/draft/2020-12/vocab/")
    {
        (Draft::Draft202012, rest)
    } else if let Some(rest) = uri.strip_prefix("https://json-schema.org/draft/2019-09/vocab/") {
        (Draft::Draft201909, rest)
    } else {
        return None;
    };
    let flag = match rest {
        "core" => None,
        "applicator" => Some(if draft == Draft::Draft201909 {
            vocab::APPLICATOR | vocab::UNEVALUATED
        } else {
            vocab::APPLICATOR
        }),
        "unevaluated" => Some(vocab::UNEVALUATED),
        "validation" => Some(vocab::VALIDATION),
        "format-annotation" | "format" => Some(vocab::FORMAT_ANNOTATION),
        "format-assertion" => Some(vocab::FORMAT_ASSERTION),
        "content" => Some(vocab::CONTENT),
        "meta-data" => Some(vocab::META_DATA),
        _ => return None,
    };
    Some((draft, flag))
}
