//! Typed indices into the arena and the side tables of [`Compiled`](super::Compiled)
//! (and into the compiler's own tables): each table has its own id type, so a pattern
//! index can't be used to read the format table.

/// Declares an id type: a `u32` index (the size keywords were built around), with
/// `new` from a table length and `index` back to a `usize`. The field is private unless
/// declared otherwise (`NodeId(pub(crate) u32)`: the evaluator builds and reads node ids).
macro_rules! side_table_id {
    ($(#[$doc:meta])* $name:ident($field:vis u32)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub(crate) struct $name($field u32);

        impl $name {
            /// The id of entry `index` (tables are capped well below `u32::MAX` entries
            /// by the size caps checked before compiling).
            #[inline]
            pub(crate) fn new(index: usize) -> $name {
                debug_assert!(index <= u32::MAX as usize);
                $name(index as u32)
            }

            /// The entry's position in its table.
            #[inline]
            pub(crate) fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }
    };
}
pub(crate) use side_table_id;

side_table_id!(
    /// A node of the arena (`Compiled::nodes`): a schema object or boolean, compiled.
    NodeId(pub(crate) u32)
);

impl NodeId {
    /// "No node": used for absent optional children (`then`, `else`).
    pub(crate) const NONE: NodeId = NodeId(u32::MAX);

    #[inline]
    pub(crate) fn is_none(self) -> bool {
        self.0 == u32::MAX
    }
}

side_table_id!(
    /// An entry of `Compiled::patterns` (a compiled `pattern` or `patternProperties`
    /// regular expression, shared by every keyword with its source).
    PatternId(u32)
);

side_table_id!(
    /// An entry of `Compiled::contents` (a `contentEncoding`/`contentMediaType` check).
    ContentId(u32)
);

side_table_id!(
    /// An entry of `Compiled::contains` (a `contains` subschema with its bounds).
    ContainsId(u32)
);

side_table_id!(
    /// An entry of `Compiled::formats` (a `format` keyword's checker).
    FormatId(u32)
);

side_table_id!(
    /// An entry of `Compiled::limits` (the number of a numeric bound or `multipleOf`).
    LimitId(u32)
);

side_table_id!(
    /// An entry of `Compiled::dynamic_refs` (a `$dynamicRef` or `$recursiveRef`).
    DynamicRefId(u32)
);

side_table_id!(
    /// An entry of `Compiled::resources` (a schema resource: a document root or a
    /// subschema with its own `$id`).
    ResourceId(u32)
);

impl ResourceId {
    /// The first resource: the root document's.
    pub(crate) const FIRST: ResourceId = ResourceId(0);
}

side_table_id!(
    /// An entry of `Compiled::values` (a `const`'s value; an `enum` is a span of them).
    ValueId(u32)
);

side_table_id!(
    /// An entry of `Compiled::additional` (an `additionalProperties` with the names and
    /// patterns of its siblings).
    AdditionalId(u32)
);

side_table_id!(
    /// An entry of `Accelerators::dispatches` (the discriminator dispatch of a
    /// `oneOf`/`anyOf` list) and of `dispatch_summaries` beside it.
    DispatchId(u32)
);

impl DispatchId {
    /// "No dispatch": the list's branches are tried in order.
    pub(crate) const NONE: DispatchId = DispatchId(u32::MAX);
}

/// A `$dynamicAnchor` (or `$recursiveAnchor`) name, interned by the compiler: equal
/// names, equal ids. Compared, never used to read a table (so not a `side_table_id!`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct AnchorId(u32);

impl AnchorId {
    /// The id of the `index`-th name interned.
    pub(crate) fn new(index: usize) -> AnchorId {
        debug_assert!(index <= u32::MAX as usize);
        AnchorId(index as u32)
    }
}
