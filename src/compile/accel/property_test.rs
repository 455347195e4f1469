//! Property tests: a node that only pins one property to literals (`"kind": {"const": "a"}`)
//! is checked by one lookup and one comparison.

use super::*;

/// Nodes that test one property against a few literals (see `Shape::PropertyTest` and
/// `literal_test`).
#[inline(never)]
pub(super) fn property_tests(c: &mut Compiled, live: &[u32]) {
    for i in live.iter().map(|&i| i as usize) {
        if !matches!(c.nodes[i].shape, Shape::PlainObject | Shape::General) {
            continue;
        }
        let Some((name, values, required)) = literal_test(c, NodeId(i as u32)) else {
            continue;
        };
        let values = kept_values(c, values);
        c.accel.spec_of[i] = c.accel.property_tests.len() as u32;
        c.accel.property_tests.push(crate::schema::PropertyTest {
            name,
            values,
            required,
        });
        c.nodes[i].shape = Shape::PropertyTest;
    }
}
