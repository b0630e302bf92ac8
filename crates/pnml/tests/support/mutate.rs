//! Damaging documents for the robustness and agreement tests.

/// A damaged copy of `bytes`: byte changes, deletions, insertions, bit flips, truncation.
pub fn mutate(bytes: &[u8], edits: &[(usize, u8, u8)], cut: Option<usize>) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for &(pos, op, b) in edits {
        if bytes.is_empty() {
            break;
        }
        let i = pos % bytes.len();
        match op % 4 {
            0 => bytes[i] = b,
            1 => {
                bytes.remove(i);
            }
            2 => bytes.insert(i, b),
            _ => bytes[i] ^= 1 << (b % 8),
        }
    }
    if let Some(c) = cut {
        let n = bytes.len();
        bytes.truncate(c % (n + 1));
    }
    bytes
}
