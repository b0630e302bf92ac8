//! Static variable orders for Petri nets.
//!
//! An order is a permutation `order[k] = place at level k+1` (level 1 is the bottom).

use crate::PetriNet;

/// The file order: the first place of the file at the top level, as most MCC tools do.
pub fn file_order(net: &PetriNet) -> Vec<usize> {
    (0..net.places.len()).rev().collect()
}
