//! CTL by on-the-fly search (issue 49, item 3): a formula is evaluated at the initial marking
//! by depth-first searches that build the reachability graph only as far as they need it, as
//! the contest's leading CTL tools do (local model checking). A witness found near the initial
//! marking decides `E[a U b]` or `EG a` without the rest of the graph; a search that exhausts
//! its region decides the other way, and every state it visited keeps the answer (a memo per
//! temporal operator), so nested operators reuse it.
//!
//! The operators are reduced to `EX`, `EU` and `EG` (`AX a = ¬EX ¬a`, `EF a = E[true U a]`,
//! `AG a = ¬EF ¬a`, `AF a = ¬EG ¬a`, `A[a U b] = ¬E[¬b U ¬a∧¬b] ∧ ¬EG ¬b`), under the contest's
//! reading of deadlocks (maximal paths, [`saturn_reference::ctl`]'s `Deadlocks::Maximal`): at a
//! deadlock `EX a` is false and `EG a` is `a`.
//! - `E[a U b]` at `s`: a depth-first search from `s` through `a ∧ ¬b` states. A `b` state
//!   found: true at `s` and along the search's path to it. The region exhausted: false at
//!   every state visited (each one's own region lies inside it).
//! - `EG a` at `s`: a depth-first search through `a` states. A state on the search stack met
//!   again (a cycle), a deadlock, or a state known to satisfy `EG a`: true at every state on
//!   the stack. The region exhausted without one: false at every state visited (the region
//!   reachable from each is acyclic and free of deadlocks).
//!
//! The graph is kept within a number of states (the explicit search's memory budget) and the
//! searches poll their time: a formula whose searches are cut stays undecided.

use std::rc::Rc;
use std::time::Instant;

use rustc_hash::FxHashMap;
use saturn_logic::StateFormula;
use saturn_model::PetriNet;

use super::simplify::state_only;
use graph::Graph;

mod graph;

/// A formula with its temporal operators reduced to `EX`, `EU` and `EG`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    /// No temporal operator: evaluated on the marking.
    Leaf(StateFormula),
    Not(usize),
    And(Vec<usize>),
    Or(Vec<usize>),
    EX(usize),
    EU(usize, usize),
    EG(usize),
}

/// Why a search stopped before its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// The graph reached its most states.
    States,
    /// The time given, or the caller's stop.
    Time,
}

/// The reachability graph as far as the searches built it, and what they learnt.
pub(super) struct Local<'a> {
    graph: Graph<'a>,
    nodes: Vec<Rc<Node>>,
    ids: FxHashMap<Rc<Node>, usize>,
    /// Per temporal node, per state: 0 unknown, 1 false, 2 true.
    memo: FxHashMap<usize, Vec<u8>>,
}

type Found = Result<bool, Cut>;

impl<'a> Local<'a> {
    /// An empty graph of `net` that grows to at most `bytes` (roughly); `None` when not even
    /// the initial marking fits.
    pub(super) fn new(net: &'a PetriNet, bytes: usize) -> Option<Local<'a>> {
        Some(Local {
            graph: Graph::new(net, bytes)?,
            nodes: Vec::new(),
            ids: FxHashMap::default(),
            memo: FxHashMap::default(),
        })
    }

    /// The states built so far.
    #[cfg(test)]
    pub(super) fn states(&self) -> usize {
        self.graph.states()
    }

    /// The value of `f` at the initial marking, if the searches decide it before `until` (and
    /// before `stop` says so) within the graph's most states; `None` when `f` is not CTL.
    pub(super) fn check(
        &mut self,
        f: &StateFormula,
        until: Instant,
        stop: &dyn Fn() -> bool,
    ) -> Option<Result<bool, Cut>> {
        let root = self.build(f)?;
        self.graph.until = Some(until);
        let got = self.eval(root, 0, stop);
        self.graph.until = None;
        Some(got)
    }

    fn node(&mut self, n: Node) -> usize {
        if let Node::Not(a) = n {
            if let Node::Not(b) = *self.nodes[a] {
                return b;
            }
        }
        if let Some(&i) = self.ids.get(&n) {
            return i;
        }
        let i = self.nodes.len();
        let n = Rc::new(n);
        self.nodes.push(n.clone());
        self.ids.insert(n, i);
        i
    }

    fn not(&mut self, a: usize) -> usize {
        self.node(Node::Not(a))
    }

    /// `¬op(¬a)`: a universal operator by its existential dual.
    fn dual(&mut self, a: usize, op: impl FnOnce(usize) -> Node) -> usize {
        let na = self.not(a);
        let e = self.node(op(na));
        self.not(e)
    }

    /// `f` as nodes (`None`: a path formula that is not CTL).
    fn build(&mut self, f: &StateFormula) -> Option<usize> {
        use StateFormula as S;
        if state_only(f) {
            return Some(self.node(Node::Leaf(f.clone())));
        }
        let truth = |l: &mut Self| l.node(Node::Leaf(S::Const(true)));
        Some(match f {
            S::Not(a) => {
                let a = self.build(a)?;
                self.not(a)
            }
            S::And(v) | S::Or(v) => {
                let mut kids = v
                    .iter()
                    .map(|a| self.build(a))
                    .collect::<Option<Vec<_>>>()?;
                // what the marking tells first: it may spare the searches
                kids.sort_by_key(|&k| !matches!(*self.nodes[k], Node::Leaf(_)));
                if matches!(f, S::And(_)) {
                    self.node(Node::And(kids))
                } else {
                    self.node(Node::Or(kids))
                }
            }
            S::Implies(a, b) => {
                let (a, b) = (self.build(a)?, self.build(b)?);
                let na = self.not(a);
                self.node(Node::Or(vec![na, b]))
            }
            S::Iff(a, b) => {
                let (a, b) = (self.build(a)?, self.build(b)?);
                let (na, nb) = (self.not(a), self.not(b));
                let both = self.node(Node::And(vec![a, b]));
                let neither = self.node(Node::And(vec![na, nb]));
                self.node(Node::Or(vec![both, neither]))
            }
            S::EX(a) => {
                let a = self.build(a)?;
                self.node(Node::EX(a))
            }
            S::AX(a) => {
                let a = self.build(a)?;
                self.dual(a, Node::EX)
            }
            S::EF(a) => {
                let a = self.build(a)?;
                let t = truth(self);
                self.node(Node::EU(t, a))
            }
            S::AG(a) => {
                let a = self.build(a)?;
                let t = truth(self);
                self.dual(a, |na| Node::EU(t, na))
            }
            S::EG(a) => {
                let a = self.build(a)?;
                self.node(Node::EG(a))
            }
            S::AF(a) => {
                let a = self.build(a)?;
                self.dual(a, Node::EG)
            }
            S::EU(a, b) => {
                let (a, b) = (self.build(a)?, self.build(b)?);
                self.node(Node::EU(a, b))
            }
            S::AU(a, b) => {
                let (a, b) = (self.build(a)?, self.build(b)?);
                let (na, nb) = (self.not(a), self.not(b));
                let bad = self.node(Node::And(vec![na, nb]));
                let eu = self.node(Node::EU(nb, bad));
                let eg = self.node(Node::EG(nb));
                let (neu, neg) = (self.not(eu), self.not(eg));
                self.node(Node::And(vec![neu, neg]))
            }
            S::A(_) | S::E(_) => return None,
            // without temporal operators: caught by `state_only` above
            S::Const(_) | S::Deadlock | S::Atom(_) | S::Enabled(_) => {
                self.node(Node::Leaf(f.clone()))
            }
        })
    }

    fn known(&self, node: usize, s: u32) -> Option<bool> {
        match self.memo.get(&node).and_then(|v| v.get(s as usize)) {
            Some(1) => Some(false),
            Some(2) => Some(true),
            _ => None,
        }
    }

    fn learn(&mut self, node: usize, s: u32, v: bool) {
        let memo = self.memo.entry(node).or_default();
        if memo.len() <= s as usize {
            memo.resize(s as usize + 1, 0);
        }
        memo[s as usize] = 1 + u8::from(v);
    }

    /// The value of node `id` at state `s`.
    fn eval(&mut self, id: usize, s: u32, stop: &dyn Fn() -> bool) -> Found {
        let node = self.nodes[id].clone();
        match &*node {
            Node::Leaf(f) => {
                let net = self.graph.net();
                Ok(saturn_ltl::net::eval(net, f, self.graph.marking(s)))
            }
            Node::Not(a) => Ok(!self.eval(*a, s, stop)?),
            Node::And(v) => {
                for &a in v {
                    if !self.eval(a, s, stop)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Node::Or(v) => {
                for &a in v {
                    if self.eval(a, s, stop)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Node::EX(a) => {
                if let Some(v) = self.known(id, s) {
                    return Ok(v);
                }
                let (lo, hi) = self.graph.successors(s, stop)?;
                let mut v = false;
                for k in lo..hi {
                    if self.eval(*a, self.graph.succ(k), stop)? {
                        v = true;
                        break;
                    }
                }
                self.learn(id, s, v);
                Ok(v)
            }
            Node::EU(a, b) => self.eu(id, *a, *b, s, stop),
            Node::EG(a) => self.eg(id, *a, s, stop),
        }
    }

    /// `E[a U b]` at `s` (node `id`): see the module documentation.
    fn eu(&mut self, id: usize, a: usize, b: usize, s: u32, stop: &dyn Fn() -> bool) -> Found {
        if let Some(v) = self.known(id, s) {
            return Ok(v);
        }
        // the states visited, each with the state it was reached from
        let mut parent: FxHashMap<u32, u32> = FxHashMap::default();
        parent.insert(s, s);
        let mut stack = vec![s];
        let mut found = None;
        while let Some(u) = stack.pop() {
            match self.known(id, u) {
                Some(true) => {
                    found = Some(u);
                    break;
                }
                Some(false) => continue,
                None => {}
            }
            if self.eval(b, u, stop)? {
                found = Some(u);
                break;
            }
            if !self.eval(a, u, stop)? {
                continue;
            }
            let (lo, hi) = self.graph.successors(u, stop)?;
            for k in lo..hi {
                let v = self.graph.succ(k);
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(v) {
                    e.insert(u);
                    stack.push(v);
                }
            }
        }
        match found {
            Some(mut u) => {
                loop {
                    self.learn(id, u, true);
                    let p = parent[&u];
                    if p == u {
                        break;
                    }
                    u = p;
                }
                Ok(true)
            }
            None => {
                for &u in parent.keys() {
                    self.learn(id, u, false);
                }
                Ok(false)
            }
        }
    }

    /// `EG a` at `s` (node `id`): see the module documentation.
    fn eg(&mut self, id: usize, a: usize, s: u32, stop: &dyn Fn() -> bool) -> Found {
        if let Some(v) = self.known(id, s) {
            return Ok(v);
        }
        if !self.eval(a, s, stop)? {
            self.learn(id, s, false);
            return Ok(false);
        }
        // per state visited: on the stack (true) or done (false)
        let mut colour: FxHashMap<u32, bool> = FxHashMap::default();
        let (lo, hi) = self.graph.successors(s, stop)?;
        let mut stack = vec![(s, lo, hi)];
        colour.insert(s, true);
        let mut found = lo == hi;
        while !found {
            let Some(&mut (u, ref mut next, hi)) = stack.last_mut() else {
                break;
            };
            if *next == hi {
                colour.insert(u, false);
                stack.pop();
                continue;
            }
            let v = self.graph.succ(*next);
            *next += 1;
            match (self.known(id, v), colour.get(&v)) {
                (Some(true), _) | (_, Some(true)) => {
                    found = true;
                    continue;
                }
                (Some(false), _) | (_, Some(false)) => continue,
                (None, None) => {}
            }
            if !self.eval(a, v, stop)? {
                self.learn(id, v, false);
                continue;
            }
            let (lo, hi) = self.graph.successors(v, stop)?;
            colour.insert(v, true);
            stack.push((v, lo, hi));
            found = lo == hi;
        }
        if found {
            for &(u, _, _) in &stack {
                self.learn(id, u, true);
            }
        } else {
            for &u in colour.keys() {
                self.learn(id, u, false);
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;
    use saturn_reference::ctl::{CtlChecker, Deadlocks};
    use saturn_reference::strategies::{config, discard, net_with_ctl_formulas, petri_net};

    use super::*;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    proptest! {
        #![proptest_config(config(256))]

        /// The searches decide what the reference's labelling algorithms (every state, the
        /// whole graph) decide, with one graph and its memos shared by several formulas; with
        /// a graph of a few states, they decide the same or nothing.
        #[test]
        fn the_searches_agree_with_the_reference_checker(
            (net, phis) in net_with_ctl_formulas(6),
            few in 1usize..8,
        ) {
            let Ok(space) = saturn_reference::explore_petri(&net, 20_000) else {
                return Err(discard("unbounded or large"));
            };
            let reference = CtlChecker::new(&net, &space, Deadlocks::Maximal);
            let mut local = Local::new(&net, usize::MAX / 2).expect("the initial marking fits");
            let mut small = Local::new(&net, 0).expect("the initial marking fits");
            small.graph.most = few;
            for phi in &phis {
                let want = reference.holds(phi).expect("CTL");
                let got = local.check(phi, far(), &|| false).expect("CTL");
                prop_assert_eq!(got, Ok(want), "{:?}", phi);
                match small.check(phi, far(), &|| false).expect("CTL") {
                    Ok(v) => prop_assert_eq!(v, want, "{:?} within {} states", phi, few),
                    Err(cut) => prop_assert_eq!(cut, Cut::States),
                }
            }
            prop_assert!(local.states() <= space.markings.len());
        }

        /// Every formula at every reachable marking, the markings in the reference's order,
        /// then backwards, on one graph: the memos a search leaves are what later ones read.
        #[test]
        fn the_memos_hold_at_every_reachable_marking(
            (net, phis) in net_with_ctl_formulas(3),
        ) {
            let Ok(space) = saturn_reference::explore_petri(&net, 20_000) else {
                return Err(discard("unbounded or large"));
            };
            let reference = CtlChecker::new(&net, &space, Deadlocks::Maximal);
            let mut local = Local::new(&net, usize::MAX / 2).expect("the initial marking fits");
            for phi in &phis {
                let want = reference.sat(phi).expect("CTL");
                let root = local.build(phi).expect("CTL");
                let n = space.markings.len();
                for k in (0..n).chain((0..n).rev()) {
                    let s = local.graph.intern(&space.markings[k]).expect("room");
                    let got = local.eval(root, s, &|| false);
                    prop_assert_eq!(got, Ok(want[k]), "{:?} at {:?}", phi, &space.markings[k]);
                }
            }
        }
    }

    /// `EG a` where the search first goes down a branch that leaves `a` (a state done, false)
    /// and then finds a cycle: the cycle's states and the stack hold it, the done branch not.
    #[test]
    fn a_branch_done_before_the_cycle_keeps_false() {
        // one token: p0 -> p1 -> p2 (not a, a deadlock); p0 -> p3 <-> p4
        let step = |a: usize, b: usize| (vec![(a, 1)], vec![(b, 1)], vec![]);
        let net = petri_net(
            &[1, 0, 0, 0, 0],
            vec![step(0, 1), step(1, 2), step(0, 3), step(3, 4), step(4, 3)],
        );
        let on = |p: usize| {
            StateFormula::Atom(saturn_logic::Atom {
                lhs: saturn_logic::LinExpr {
                    terms: vec![(p, 1)],
                    constant: 0,
                },
                op: saturn_logic::CmpOp::Ge,
                bound: 1,
            })
        };
        let eg = StateFormula::EG(Box::new(StateFormula::Not(Box::new(on(2)))));
        let mut local = Local::new(&net, 1 << 20).expect("the initial marking fits");
        let root = local.build(&eg).expect("CTL");
        let value = |local: &mut Local, p: usize| {
            let mut m = vec![0; 5];
            m[p] = 1;
            let s = local.graph.intern(&m).expect("room");
            local.eval(root, s, &|| false)
        };
        assert_eq!(value(&mut local, 0), Ok(true));
        assert_eq!(value(&mut local, 1), Ok(false));
        assert_eq!(value(&mut local, 2), Ok(false));
        assert_eq!(value(&mut local, 3), Ok(true));
    }

    /// A witness near the initial marking decides a formula on a net whose graph has no end:
    /// `EF` of two tokens and `EG` of a cycle of the first two places, while a counter grows.
    #[test]
    fn a_witness_decides_on_an_unbounded_net() {
        // t0: p0 -> p1 + p2 (p2 grows), t1: p1 -> p0
        let net = petri_net(
            &[1, 0, 0],
            vec![
                (vec![(0, 1)], vec![(1, 1), (2, 1)], vec![]),
                (vec![(1, 1)], vec![(0, 1)], vec![]),
            ],
        );
        let at_least = |p: usize, k: i64| {
            StateFormula::Atom(saturn_logic::Atom {
                lhs: saturn_logic::LinExpr {
                    terms: vec![(p, 1)],
                    constant: 0,
                },
                op: saturn_logic::CmpOp::Ge,
                bound: k,
            })
        };
        let mut local = Local::new(&net, 1 << 20).expect("the initial marking fits");
        let ef = StateFormula::EF(Box::new(at_least(2, 5)));
        assert_eq!(local.check(&ef, far(), &|| false), Some(Ok(true)));
        // AG (p0 + p1 >= 1): no state of the cut graph tells; the search is cut
        let ag = StateFormula::AG(Box::new(StateFormula::Or(vec![
            at_least(0, 1),
            at_least(1, 1),
        ])));
        let mut small = Local::new(&net, 0).expect("the initial marking fits");
        small.graph.most = 50;
        assert_eq!(small.check(&ag, far(), &|| false), Some(Err(Cut::States)));
        // a stop asked for is a cut
        let mut stopped = Local::new(&net, 1 << 30).expect("the initial marking fits");
        assert_eq!(stopped.check(&ag, far(), &|| true), Some(Err(Cut::Time)));
    }
}
