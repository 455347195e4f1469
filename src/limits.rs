//! Caps that bound what compiling a schema may cost.

/// Caps enforced while a schema compiles; a schema past either cap is refused.
///
/// They are counted the way the MCP SDKs count them, so that a schema they accept is
/// accepted here and the reverse: the root value is at depth 1, every value inside an
/// object or array (member or item, scalars included) is one deeper than its container,
/// and every JSON object anywhere in the document counts as one subschema.
///
/// Every value counts too: a document may hold at most
/// [`Limits::VALUES_PER_SUBSCHEMA`] times `max_subschemas` values (1,000,000 by default;
/// members, items and scalars, the root included), so that arrays, `true` subschemas and
/// long `enum`s, which are no objects, are bounded as well.
///
/// ```
/// use toolschema::{Limits, Options};
/// use serde_json::json;
///
/// let tight = Options::new().limits(Limits::new(2, 10));
/// assert!(tight.compile(&json!({"type": "string"})).is_ok());
/// assert!(tight.compile(&json!({"properties": {"a": {}}})).is_err());
/// // One cap changed, the other at its default:
/// let shallow = Limits::default().with_max_depth(8);
/// assert_eq!(shallow.max_subschemas, Limits::DEFAULT_MAX_SUBSCHEMAS);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The deepest value allowed in a schema document (the root is at depth 1).
    pub max_depth: usize,
    /// The most JSON objects a schema document may contain.
    pub max_subschemas: usize,
}

impl Limits {
    /// The default maximum depth.
    pub const DEFAULT_MAX_DEPTH: usize = 64;
    /// The default maximum number of subschemas (objects).
    pub const DEFAULT_MAX_SUBSCHEMAS: usize = 10_000;

    /// Caps of `max_depth` and `max_subschemas`.
    pub const fn new(max_depth: usize, max_subschemas: usize) -> Limits {
        Limits {
            max_depth,
            max_subschemas,
        }
    }

    /// These caps with another maximum depth.
    pub const fn with_max_depth(mut self, max_depth: usize) -> Limits {
        self.max_depth = max_depth;
        self
    }

    /// These caps with another maximum number of subschemas.
    pub const fn with_max_subschemas(mut self, max_subschemas: usize) -> Limits {
        self.max_subschemas = max_subschemas;
        self
    }

    /// Values (of any kind) a document may hold per subschema it may hold.
    pub const VALUES_PER_SUBSCHEMA: usize = 100;

    /// The most values of any kind a document may hold: `max_subschemas` times
    /// [`Limits::VALUES_PER_SUBSCHEMA`].
    ///
    /// ```
    /// assert_eq!(toolschema::Limits::default().max_values(), 1_000_000);
    /// ```
    pub const fn max_values(&self) -> usize {
        self.max_subschemas
            .saturating_mul(Limits::VALUES_PER_SUBSCHEMA)
    }

    /// No caps at all: for trusted schemas only.
    pub const fn none() -> Limits {
        Limits {
            max_depth: usize::MAX,
            max_subschemas: usize::MAX,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: Limits::DEFAULT_MAX_DEPTH,
            max_subschemas: Limits::DEFAULT_MAX_SUBSCHEMAS,
        }
    }
}
