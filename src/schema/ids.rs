//! Typed indices into the side tables of [`Compiled`](super::Compiled): each table has
//! its own id type, so a pattern index can't be used to read the format table.

/// Declares an id type: a `u32` index (the size keywords were built around), with
/// `new` from a table length and `index` back to a `usize`.
macro_rules! side_table_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub(crate) struct $name(u32);

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

side_table_id!(
    /// An entry of `Compiled::patterns` (a compiled `pattern` or `patternProperties`
    /// regular expression, shared by every keyword with its source).
    PatternId
);

side_table_id!(
    /// An entry of `Compiled::contents` (a `contentEncoding`/`contentMediaType` check).
    ContentId
);

side_table_id!(
    /// An entry of `Compiled::contains` (a `contains` subschema with its bounds).
    ContainsId
);

side_table_id!(
    /// An entry of `Compiled::formats` (a `format` keyword's checker).
    FormatId
);
