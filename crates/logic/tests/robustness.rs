//! The parser on arbitrary input: random bytes and random mutations of valid formula text must
//! give a clean result or a clean error (never a panic), and errors carry in-bounds spans.

mod common;

use proptest::prelude::*;
use saturn_logic::*;

fn check(src: &str) {
    match parse_query(src) {
        Ok(q) => {
            // whatever parses prints back to the same tree
            let text = q.to_string();
            let back = parse_query(&text).unwrap_or_else(|e| panic!("{src:?} -> {text:?}: {e}"));
            assert_eq!(back.without_spans(), q.without_spans());
            let names = NameTable::new(["p", "q", "a"], ["t"]);
            let _ = resolve(&q, &names);
        }
        Err(e) => {
            assert!(!e.errors.is_empty());
            for s in &e.errors {
                assert!(
                    s.span.start <= s.span.end && s.span.end <= src.len(),
                    "{s:?} in {src:?}"
                );
                assert!(src.is_char_boundary(s.span.start) && src.is_char_boundary(s.span.end));
            }
            let _ = e.render(false);
        }
    }
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(prop::sample::Index),
    Insert(prop::sample::Index, char),
    Replace(prop::sample::Index, char),
    Duplicate(prop::sample::Index, prop::sample::Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    let ch = prop_oneof![
        prop::sample::select(vec![
            '(', ')', '[', ']', '!', '&', '|', '-', '>', '<', '=', '"', '\\', ',', '*', '+', 'U',
            'A', 'E', ' ', '0', '9', 'p'
        ]),
        any::<char>(),
    ];
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Edit::Delete),
        (any::<prop::sample::Index>(), ch.clone()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<prop::sample::Index>(), ch).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(i, j)| Edit::Duplicate(i, j)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut cs: Vec<char> = text.chars().collect();
    for e in edits {
        let n = cs.len();
        match e {
            Edit::Delete(i) if n > 0 => {
                cs.remove(i.index(n));
            }
            Edit::Insert(i, c) => cs.insert(i.index(n + 1), *c),
            Edit::Replace(i, c) if n > 0 => cs[i.index(n)] = *c,
            Edit::Duplicate(i, j) if n > 0 => {
                let (a, b) = (i.index(n), j.index(n));
                let piece: Vec<char> = cs[a.min(b)..a.max(b)].to_vec();
                cs.splice(a.max(b)..a.max(b), piece);
            }
            _ => {}
        }
    }
    cs.into_iter().collect()
}

const SAMPLES: [&str; 5] = [
    "AG (tokens-count(\"p-1\", q) <= 4) & E [true U deadlock]",
    "A (G F (q >= 1)) -> !EX enabled(t, \"t.2\")",
    "bound(p, \"q r\")",
    "(p + 2*-q - -(3)) * 4 != a <-> EF (p < 0 | q > 0)",
    "E [!AX p = 0 U A [q > 1 U EG (a >= 2)]]",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_soup(parts in prop::collection::vec(prop::sample::select(vec![
        "(", ")", "[", "]", "!", "&", "|", "->", "<->", "<", "<=", "=", "!=", ">=", ">", "+", "-", "*", ",",
        "A", "E", "X", "F", "G", "U", "AG", "EF", "true", "deadlock", "enabled", "bound", "tokens-count",
        "p", "\"q\"", "3", "99999999999999999999", "\"", " ",
    ]), 0..30)) {
        check(&parts.join(" "));
        check(&parts.concat());
    }

    #[test]
    fn mutated_samples(k in 0..SAMPLES.len(), edits in prop::collection::vec(edit(), 1..5)) {
        check(&apply(SAMPLES[k], &edits));
    }

    #[test]
    fn mutated_random_formulas(q in common::query(), edits in prop::collection::vec(edit(), 1..4)) {
        check(&apply(&q.to_string(), &edits));
    }
}
