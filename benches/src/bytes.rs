//! Bytes → verdict: what a caller holding JSON text (a file, a JSON Lines record, a
//! JSON-RPC message) pays for a verdict, in three pipelines over the same bytes:
//!
//! - [`toolschema_bytes`]: toolschema's public [`Schema::is_valid_json`], whatever it does
//!   inside (so these figures follow the library as it changes);
//! - [`via_value`] with [`Toolschema`](crate::Toolschema): `serde_json::from_slice` into a
//!   `Value`, then `is_valid`;
//! - [`via_value`] with [`JsonschemaRs`](crate::JsonschemaRs): the same with jsonschema-rs.
//!
//! The `Value` is dropped inside the pipeline: freeing it is part of what its caller pays.
//!
//! [`scratch_use`] measures the flat parser's scratch against the size of the texts.

use crate::Engine;
use serde_json::Value;
use toolschema::Schema;
use toolschema::flat::Document;

/// toolschema straight from the text; malformed text counts as invalid.
#[inline]
pub fn toolschema_bytes(schema: &Schema, text: &[u8]) -> bool {
    schema.is_valid_json(text).unwrap_or(false)
}

/// `serde_json::from_slice::<Value>` then the engine's `is_valid`; malformed text counts
/// as invalid.
#[inline]
pub fn via_value<E: Engine>(compiled: &E::Compiled, text: &[u8]) -> bool {
    match serde_json::from_slice::<Value>(text) {
        Ok(value) => E::is_valid(compiled, &value),
        Err(_) => false,
    }
}

/// The flat layout's memory against the size of the texts it parsed.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ScratchUse {
    /// How many texts.
    pub texts: usize,
    /// Their bytes, all together.
    pub input_bytes: usize,
    /// The longest text's bytes.
    pub largest_text: usize,
    /// The bytes of the slots the parses filled (used, not reserved), all together.
    pub slot_bytes: usize,
    /// [`Document::scratch_bytes`] of a fresh `Document` after parsing each text, summed:
    /// what parsing each text alone reserves, with the vectors' growth slack.
    pub fresh_scratch: usize,
    /// The largest of those per text, divided by that text's length.
    pub worst_ratio: f64,
    /// [`Document::scratch_bytes`] of one `Document` reused for every text (the steady
    /// state of a server: sized by the largest text).
    pub reused_scratch: usize,
    /// Texts the flat parser refused (none on the corpus).
    pub refused: usize,
}

impl ScratchUse {
    /// Fresh scratch per input byte, over all the texts.
    pub fn fresh_per_byte(&self) -> f64 {
        self.fresh_scratch as f64 / self.input_bytes as f64
    }

    /// Slot bytes per input byte, over all the texts.
    pub fn slots_per_byte(&self) -> f64 {
        self.slot_bytes as f64 / self.input_bytes as f64
    }

    /// The reused document's scratch per byte of the largest text.
    pub fn reused_per_largest_byte(&self) -> f64 {
        self.reused_scratch as f64 / self.largest_text as f64
    }
}

/// Parses every text with the public flat parser and measures its scratch.
pub fn scratch_use<'a>(texts: impl IntoIterator<Item = &'a [u8]>) -> ScratchUse {
    let mut out = ScratchUse::default();
    let mut reused = Document::new();
    for text in texts {
        if reused.parse(text).is_err() {
            out.refused += 1;
        }
        let mut fresh = Document::new();
        let slots = fresh.parse(text).map(|t| t.slot_count()).unwrap_or(0);
        out.texts += 1;
        out.input_bytes += text.len();
        out.largest_text = out.largest_text.max(text.len());
        out.slot_bytes += slots * std::mem::size_of::<toolschema::flat::Slot>();
        out.fresh_scratch += fresh.scratch_bytes();
        out.worst_ratio = out
            .worst_ratio
            .max(fresh.scratch_bytes() as f64 / text.len().max(1) as f64);
    }
    out.reused_scratch = reused.scratch_bytes();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{JsonschemaRs, Toolschema};

    /// The three pipelines agree on valid, invalid and malformed text.
    #[test]
    fn the_pipelines_give_the_same_verdicts() {
        let schema = serde_json::json!({"properties": {"n": {"type": "integer", "maximum": 3}}});
        let ts = Toolschema::compile(&schema, Toolschema::prepare(&schema)).unwrap();
        let js = JsonschemaRs::compile(&schema, ()).unwrap();
        for (text, verdict) in [
            (&br#"{"n": 2}"#[..], true),
            (br#"{"n": 4}"#, false),
            (br#"{"n": "x"}"#, false),
            (br#"{"n": 2"#, false),
        ] {
            assert_eq!(toolschema_bytes(&ts, text), verdict, "{text:?}");
            assert_eq!(via_value::<Toolschema>(&ts, text), verdict, "{text:?}");
            assert_eq!(via_value::<JsonschemaRs>(&js, text), verdict, "{text:?}");
        }
    }

    /// The scratch figures add up over the texts; a reused document keeps the largest
    /// parse's scratch, and a malformed text is counted as refused.
    #[test]
    fn scratch_use_sums_over_the_texts() {
        let small = br#"[1]"#.as_slice();
        let large = br#"{"a": [1, 2, 3, {"b": "text"}], "c": null}"#.as_slice();
        let one = scratch_use([large]);
        let both = scratch_use([small, large, b"{".as_slice()]);
        assert_eq!((both.texts, both.refused), (3, 1));
        assert_eq!(both.input_bytes, small.len() + large.len() + 1);
        assert_eq!(both.largest_text, large.len());
        assert!(one.fresh_scratch > 0 && one.slot_bytes > 0);
        assert!(both.fresh_scratch > one.fresh_scratch);
        assert!(both.reused_scratch >= one.reused_scratch);
    }
}
