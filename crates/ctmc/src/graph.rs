//! Graph analysis on the explicit transition graph (the nonzeros of `R`): the bottom strongly
//! connected components by Tarjan's algorithm (iterative), and the Prob0/Prob1 precomputation
//! of unbounded until (backward searches).

use crate::sparse::SparseMatrix;

/// The bottom SCCs of the graph of `r` (components no edge leaves; a state without successor
/// is one), each as a sorted list of states, in increasing order of their smallest state.
///
/// Tarjan's algorithm on the reversed graph (the columns of `r`, the only orientation the
/// sparse engine keeps): it has the same strongly connected components; a component is bottom
/// when no edge `i -> j` has `i` in it and `j` outside.
pub fn bottom_sccs(r: &SparseMatrix) -> Vec<Vec<u32>> {
    let n = r.states();
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp_of = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut comps: Vec<Vec<u32>> = Vec::new();
    let mut next = 0u32;
    // call stack: (state, position in its predecessor list)
    let mut calls: Vec<(u32, u32)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        calls.push((root as u32, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = calls.last_mut() {
            let v = v as usize;
            if let Some(&w) = r.col_rows(v).get(*k as usize) {
                let w = w as usize;
                *k += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    calls.push((w as u32, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v]);
            }
            if low[v] == index[v] {
                let c = comps.len() as u32;
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("Tarjan stack") as usize;
                    on_stack[w] = false;
                    comp_of[w] = c;
                    comp.push(w as u32);
                    if w == v {
                        break;
                    }
                }
                comps.push(comp);
            }
        }
    }
    drop((index, low, on_stack, stack, calls));
    // an edge i -> j leaving the component of i
    let mut leaves = vec![false; comps.len()];
    for j in 0..n {
        for &i in r.col_rows(j) {
            if comp_of[i as usize] != comp_of[j] {
                leaves[comp_of[i as usize] as usize] = true;
            }
        }
    }
    let mut out: Vec<Vec<u32>> = comps
        .into_iter()
        .zip(leaves)
        .filter(|(_, l)| !l)
        .map(|(mut comp, _)| {
            comp.sort_unstable();
            comp
        })
        .collect();
    out.sort_unstable_by_key(|c| c[0]);
    out
}

/// The states that can reach a state of `target` along paths whose other states satisfy
/// `through` (backward search over the columns of `r`); `target` states included.
pub fn backward_reach(r: &SparseMatrix, through: &[bool], target: &[bool]) -> Vec<bool> {
    let mut seen = target.to_vec();
    let mut work: Vec<usize> = (0..seen.len()).filter(|&i| seen[i]).collect();
    while let Some(j) = work.pop() {
        for (i, _) in r.col(j) {
            if !seen[i] && through[i] {
                seen[i] = true;
                work.push(i);
            }
        }
    }
    seen
}

/// The states reachable from a state of `from` along paths whose states before the last
/// satisfy `through` (forward search over the rows of `r`, the columns of its transpose, made
/// for the search: the matrix keeps columns only); `from` states included.
pub fn forward_reach(r: &SparseMatrix, through: &[bool], from: &[bool]) -> Vec<bool> {
    let rows = r.transpose();
    let mut seen = from.to_vec();
    let mut work: Vec<usize> = (0..seen.len()).filter(|&i| seen[i]).collect();
    while let Some(i) = work.pop() {
        if !through[i] {
            continue;
        }
        for (j, _) in rows.col(i) {
            if !seen[j] {
                seen[j] = true;
                work.push(j);
            }
        }
    }
    seen
}

/// Prob0 for `a U b`: the states where the probability is 0 (no path through `a` to `b`).
pub fn prob0(r: &SparseMatrix, a: &[bool], b: &[bool]) -> Vec<bool> {
    backward_reach(r, a, b).into_iter().map(|x| !x).collect()
}

/// Prob1 for `a U b` given `no = prob0(a, b)`: the states where the probability is 1, i.e.
/// those that cannot reach a `no` state through states of `a & !b`.
pub fn prob1(r: &SparseMatrix, a: &[bool], b: &[bool], no: &[bool]) -> Vec<bool> {
    let through: Vec<bool> = a.iter().zip(b).map(|(&x, &y)| x && !y).collect();
    backward_reach(r, &through, no)
        .into_iter()
        .map(|x| !x)
        .collect()
}
