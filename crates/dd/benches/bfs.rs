//! A rough benchmark of the relational product and set operations: breadth-first
//! reachability in a token ring (K places, N tokens, transition k moves a token from place k to
//! place k-1, cyclically). The state count is C(N+K-1, K-1). Run with
//! `cargo bench -p saturn-dd --bench bfs [-- K N]`.

use std::time::Instant;

use saturn_dd::{image, Forest, NodeId, Reduction};

fn binom(n: u128, k: u128) -> u128 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let k = args.first().copied().unwrap_or(60);
    let n = args.get(1).copied().unwrap_or(8) as u32;
    let t0 = Instant::now();
    let mut sets = Forest::new(k, Reduction::Quasi);
    let mut rels = Forest::new(2 * k, Reduction::Identity);
    for v in 1..=k {
        sets.set_domain(v, n + 1);
        rels.set_domain(2 * v, n + 1);
    }
    // per-transition relations and their union
    let take: Vec<(u32, u32)> = (1..=n).map(|i| (i, i - 1)).collect();
    let give: Vec<(u32, u32)> = (0..n).map(|i| (i, i + 1)).collect();
    let mut events = Vec::new();
    for p in 1..=k {
        let q = if p == 1 { k } else { p - 1 };
        let mut parts = vec![(p, take.clone()), (q, give.clone())];
        parts.sort_by_key(|part| std::cmp::Reverse(part.0));
        events.push(rels.relation_from_local(&parts));
    }
    let all = rels.union_all(&events);
    let t_rel = t0.elapsed();
    // initial state: all tokens in place k
    let mut init = vec![0u32; k];
    init[k - 1] = n;
    let mut reached = sets.singleton(&init);
    let mut frontier = reached;
    let mut iters = 0;
    let t1 = Instant::now();
    while frontier != NodeId::EMPTY {
        let next = image(&mut sets, &rels, frontier, all);
        frontier = sets.minus(next, reached);
        reached = sets.union(reached, frontier);
        iters += 1;
    }
    let t_bfs = t1.elapsed();
    let count = sets.cardinality(reached);
    let want = binom((n as usize + k - 1) as u128, (k - 1) as u128);
    assert_eq!(count.to_string(), want.to_string());
    println!(
        "ring K={k} N={n}: {count} states, {iters} iterations; relation {} nodes built in {:.1} ms; \
         BFS {:.1} ms; final {} nodes, peak {}",
        rels.count_nodes(&[all]),
        t_rel.as_secs_f64() * 1e3,
        t_bfs.as_secs_f64() * 1e3,
        sets.count_nodes(&[reached]),
        sets.stats().nodes_peak
    );
    for (name, h, m) in sets.cache_stats() {
        if h + m > 0 {
            println!("  {name:9} cache: {h} hits, {m} misses");
        }
    }
}
