//! The PNML reader on hand-written documents: features (pages, reference nodes, arc kinds,
//! merging) and every error case, with the messages checked.

use saturn_pnml::{read_pnml_file, read_pnml_str, PnmlError};

/// Wrap net content in a PNML document with the given net type.
fn doc_typed(ty: &str, body: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
  <net id="n" type="{ty}">
    <name><text>My net</text></name>
    {body}
  </net>
</pnml>"#
    )
}

fn doc(body: &str) -> String {
    doc_typed("http://www.pnml.org/version-2009/grammar/ptnet", body)
}

fn err(text: &str) -> String {
    let e = read_pnml_str(text, "test.pnml").unwrap_err();
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "one line: {msg}");
    assert!(msg.contains("test.pnml"), "names the source: {msg}");
    msg
}

const PT: &str = r#"
  <place id="p"><initialMarking><text>2</text></initialMarking></place>
  <transition id="t"/>
"#;

#[test]
fn reads_places_transitions_arcs_names() {
    let net = read_pnml_str(
        &doc(r#"<page id="pg">
      <place id="p1"><name><text> Place one </text></name>
        <initialMarking><text> 3 </text></initialMarking></place>
      <place id="p2"/>
      <transition id="t1"><name><text>T</text></name></transition>
      <arc id="a1" source="p1" target="t1"><inscription><text>2</text></inscription></arc>
      <arc id="a2" source="t1" target="p2"/>
      <toolspecific tool="nupn" version="1.1"><size places="2"/></toolspecific>
    </page>"#),
        "x",
    )
    .unwrap();
    assert_eq!(net.name, "My net");
    assert_eq!(net.places.len(), 2);
    assert_eq!(
        (net.places[0].id.as_str(), net.places[0].name.as_str()),
        ("p1", "Place one")
    );
    assert_eq!(net.places[0].initial, 3);
    assert_eq!(
        (net.places[1].name.as_str(), net.places[1].initial),
        ("p2", 0)
    );
    let t = &net.transitions[0];
    assert_eq!((t.id.as_str(), t.name.as_str()), ("t1", "T"));
    assert_eq!((t.inputs[0].place, t.inputs[0].weight), (0, 2));
    assert_eq!((t.outputs[0].place, t.outputs[0].weight), (1, 1));
    assert!(t.inhibitors.is_empty());
}

#[test]
fn nested_pages_and_reference_nodes() {
    let net = read_pnml_str(
        &doc(r#"<page id="top">
      <place id="p"/>
      <page id="inner">
        <transition id="t"/>
        <referencePlace id="rp" ref="p"/>
        <referencePlace id="rrp" ref="rp"/>
        <page id="deeper"><place id="q"/><referenceTransition id="rt" ref="t"/></page>
        <arc id="a1" source="rrp" target="rt"/>
        <arc id="a2" source="t" target="q"/>
      </page>
      <place id="r"/>
    </page>"#),
        "x",
    )
    .unwrap();
    let ids: Vec<&str> = net.places.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(
        ids,
        ["p", "r", "q"],
        "document pre-order: a page's own nodes, then sub-pages"
    );
    let t = &net.transitions[0];
    assert_eq!(t.inputs[0].place, 0);
    assert_eq!(t.outputs[0].place, 2);
}

#[test]
fn parallel_arcs_are_merged_per_kind() {
    let net = read_pnml_str(
        &doc(&format!(
            r#"{PT}
      <arc id="a1" source="p" target="t"/>
      <arc id="a2" source="p" target="t"><inscription><text>3</text></inscription></arc>
      <arc id="a3" source="t" target="p"/>
      <arc id="a4" source="t" target="p"/>
      <arc id="a5" source="p" target="t"><type value="inhibitor"/><inscription><text>5</text></inscription></arc>
    "#
        )),
        "x",
    )
    .unwrap();
    let t = &net.transitions[0];
    assert_eq!((t.inputs.len(), t.inputs[0].weight), (1, 4));
    assert_eq!((t.outputs.len(), t.outputs[0].weight), (1, 2));
    assert_eq!((t.inhibitors.len(), t.inhibitors[0].weight), (1, 5));
}

#[test]
fn arc_type_variants() {
    for kind in [
        r#"<type value="inhibitor"/>"#,
        r#"<type><text>inhibitor</text></type>"#,
        r#"<arctype value="inhibitor"/>"#,
        r#"<arctype><text> Inhibitor </text></arctype>"#,
    ] {
        let body = format!(r#"{PT}<arc id="a" source="p" target="t">{kind}</arc>"#);
        let net = read_pnml_str(&doc(&body), "x").unwrap();
        let t = &net.transitions[0];
        assert_eq!(t.inhibitors.len(), 1, "{kind}");
        assert!(t.inputs.is_empty(), "{kind}");
    }
    // normal arcs may say so; a test arc of weight 2 beside a normal arc of weight 1 needs
    // two tokens and takes one: input 2, output 1
    let body = format!(
        r#"{PT}<arc id="a" source="p" target="t"><type value="normal"/></arc>
        <arc id="b" source="p" target="t"><type value="test"/><inscription><text>2</text></inscription></arc>"#
    );
    let net = read_pnml_str(&doc(&body), "x").unwrap();
    let t = &net.transitions[0];
    assert_eq!((t.inputs[0].weight, t.outputs[0].weight), (2, 1));
}

#[test]
fn missing_file() {
    let e = read_pnml_file(std::path::Path::new("/nonexistent/dir/model.pnml")).unwrap_err();
    assert!(matches!(e, PnmlError::Io { .. }));
    let msg = e.to_string();
    assert!(msg.contains("/nonexistent/dir/model.pnml"), "{msg}");
}

#[test]
fn malformed_xml_reports_line_and_column() {
    let msg = err("<pnml>\n  <net id=\"n\">\n    <place id=\"p\">\n  </net>\n</pnml>");
    assert!(msg.contains("malformed XML"), "{msg}");
    assert!(msg.contains("test.pnml:4:"), "line 4: {msg}");
    let msg = err("");
    assert!(msg.contains("malformed XML"), "{msg}");
}

#[test]
fn no_net() {
    let msg = err(r#"<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml"></pnml>"#);
    assert!(msg.contains("no <net> element"), "{msg}");
    let msg = err("<html><body/></html>");
    assert!(msg.contains("no <net> element"), "{msg}");
}

#[test]
fn unknown_node() {
    let msg = err(&doc(&format!(
        r#"{PT}<arc id="a7" source="p" target="ghost"/>"#
    )));
    assert!(
        msg.contains("arc 'a7'") && msg.contains("unknown node 'ghost'"),
        "{msg}"
    );
}

#[test]
fn arcs_between_nodes_of_one_kind() {
    let msg = err(&doc(
        r#"<place id="p"/><place id="q"/><arc id="a" source="p" target="q"/>"#,
    ));
    assert!(
        msg.contains("arc 'a' connects two places") && msg.contains("'q'"),
        "{msg}"
    );
    let msg = err(&doc(
        r#"<transition id="t"/><transition id="u"/><arc id="b" source="t" target="u"/>"#,
    ));
    assert!(msg.contains("arc 'b' connects two transitions"), "{msg}");
}

#[test]
fn bad_weights_and_markings() {
    let cases = [
        (
            r#"<place id="p"><initialMarking><text>-1</text></initialMarking></place>"#,
            "initial marking of place 'p'",
            "negative",
        ),
        (
            r#"<place id="p"><initialMarking><text>2.5</text></initialMarking></place>"#,
            "initial marking of place 'p'",
            "not a non-negative integer",
        ),
        (
            r#"<place id="p"><initialMarking><text>lots</text></initialMarking></place>"#,
            "initial marking of place 'p'",
            "not a non-negative integer",
        ),
        (
            r#"<place id="p"><initialMarking><text>99999999999999999999999</text></initialMarking></place>"#,
            "initial marking of place 'p'",
            "too large",
        ),
        (
            r#"<place id="p"><initialMarking></initialMarking></place>"#,
            "initial marking of place 'p'",
            "not a non-negative integer",
        ),
    ];
    for (body, element, reason) in cases {
        let msg = err(&doc(body));
        assert!(msg.contains(element) && msg.contains(reason), "{msg}");
    }
    let arc_cases = [
        ("-2", "negative"),
        ("1.0", "not a non-negative integer"),
        ("0", "positive"),
    ];
    for (w, reason) in arc_cases {
        let body = format!(
            r#"{PT}<arc id="a9" source="p" target="t"><inscription><text>{w}</text></inscription></arc>"#
        );
        let msg = err(&doc(&body));
        assert!(
            msg.contains("inscription of arc 'a9'") && msg.contains(reason),
            "{msg}"
        );
    }
}

#[test]
fn weight_overflow_when_merging() {
    let big = u64::MAX;
    let body = format!(
        r#"{PT}<arc id="a" source="p" target="t"><inscription><text>{big}</text></inscription></arc>
        <arc id="b" source="p" target="t"><inscription><text>1</text></inscription></arc>"#
    );
    let msg = err(&doc(&body));
    assert!(msg.contains("overflows"), "{msg}");
}

#[test]
fn coloured_nets_are_refused() {
    let msg = err(&doc_typed(
        "http://www.pnml.org/version-2009/grammar/symmetricnet",
        PT,
    ));
    assert!(
        msg.contains("coloured") && msg.contains("symmetricnet"),
        "{msg}"
    );
    let body = r#"<place id="p"><hlinitialMarking><text>1'(x)</text></hlinitialMarking></place>"#;
    let msg = err(&doc(body));
    assert!(
        msg.contains("coloured") && msg.contains("hlinitialMarking"),
        "{msg}"
    );
    let body = format!(
        r#"{PT}<arc id="a" source="p" target="t"><hlinscription><text>x</text></hlinscription></arc>"#
    );
    let msg = err(&doc(&body));
    assert!(msg.contains("hlinscription"), "{msg}");
    let msg = err(&doc(r#"<declaration><structure/></declaration>"#));
    assert!(msg.contains("declaration"), "{msg}");
    let msg = err(&doc(
        r#"<place id="p"><type><structure><usersort declaration="c"/></structure></type></place>"#,
    ));
    assert!(msg.contains("sort"), "{msg}");
}

#[test]
fn other_structural_errors() {
    let msg = err(&doc(r#"<place id="p"/><transition id="p"/>"#));
    assert!(
        msg.contains("'p'") && msg.contains("more than one"),
        "{msg}"
    );
    let msg = err(&doc(r#"<place/>"#));
    assert!(msg.contains("<place>") && msg.contains("'id'"), "{msg}");
    let msg = err(&doc(
        r#"<place id="p"/><referencePlace id="r" ref="nowhere"/>"#,
    ));
    assert!(msg.contains("'r'") && msg.contains("'nowhere'"), "{msg}");
    let msg = err(&doc(
        r#"<referencePlace id="r1" ref="r2"/><referencePlace id="r2" ref="r1"/>"#,
    ));
    assert!(msg.contains("cycle"), "{msg}");
    let msg = err(&doc(
        r#"<transition id="t"/><referencePlace id="r" ref="t"/>"#,
    ));
    assert!(msg.contains("not a place"), "{msg}");
    let msg = err(&doc(&format!(
        r#"{PT}<arc id="a" source="t" target="p"><type value="inhibitor"/></arc>"#
    )));
    assert!(msg.contains("inhibitor arc 'a'"), "{msg}");
    let msg = err(&doc(&format!(
        r#"{PT}<arc id="a" source="p" target="t"><type value="reset"/></arc>"#
    )));
    assert!(
        msg.contains("'reset'") && msg.contains("not supported"),
        "{msg}"
    );
    let two = r#"<pnml><net id="a" type="ptnet"/><net id="b" type="ptnet"/></pnml>"#;
    let msg = err(two);
    assert!(msg.contains("2 <net> elements"), "{msg}");
}

#[test]
fn single_line_file_and_no_namespace() {
    let text = r#"<pnml><net id="x" type="ptnet"><page id="g"><place id="p"><initialMarking><text>1</text></initialMarking></place><transition id="t"/><arc id="a" source="p" target="t"/></page></net></pnml>"#;
    let net = read_pnml_str(text, "x").unwrap();
    assert_eq!(net.name, "x", "the net id when there is no <name>");
    assert_eq!(net.places[0].initial, 1);
    assert_eq!(net.transitions[0].inputs.len(), 1);
}

/// TAPAAL's form `<arc type="inhibitor">` is an inhibitor arc, exactly like the element form.
#[test]
fn arc_type_attribute_form() {
    for arc in [
        r#"<arc id="a" source="p" target="t" type="inhibitor"/>"#,
        r#"<arc id="a" source="p" target="t" type=" Inhibitor "/>"#,
        r#"<arc id="a" source="p" target="t" type="inhibitor"><type value="inhibitor"/></arc>"#,
    ] {
        let net = read_pnml_str(&doc(&format!("{PT}{arc}")), "x").unwrap();
        let t = &net.transitions[0];
        assert_eq!(
            (t.inhibitors.len(), t.inputs.len(), t.outputs.len()),
            (1, 0, 0),
            "{arc}"
        );
    }
    let net = read_pnml_str(
        &doc(&format!(
            r#"{PT}<arc id="a" source="p" target="t" type="normal"/><arc id="b" source="t" target="p" type="test"/>"#
        )),
        "x",
    )
    .unwrap();
    // the test arc needs the token the normal arc takes anyway: one input arc, no output
    let t = &net.transitions[0];
    assert_eq!(
        (t.inputs.len(), t.outputs.len(), t.inhibitors.len()),
        (1, 0, 0)
    );
    assert_eq!(t.inputs[0].weight, 1);
}

/// The net of `arcs` (between place `p` and transition `t`): `t`'s (inputs, outputs,
/// inhibitors) as (weight on `p`, or 0 when there is no such arc).
fn merged_weights(arcs: &[(&str, &str, u64)]) -> (u64, u64, u64) {
    let body: String = arcs
        .iter()
        .enumerate()
        .map(|(i, (dir, kind, w))| {
            let (s, t) = if *dir == "in" { ("p", "t") } else { ("t", "p") };
            format!(
                r#"<arc id="a{i}" source="{s}" target="{t}" type="{kind}"><inscription><text>{w}</text></inscription></arc>"#
            )
        })
        .collect();
    let net = read_pnml_str(&doc(&format!("{PT}{body}")), "x").unwrap();
    let t = &net.transitions[0];
    let w = |l: &[saturn_model::Arc]| {
        assert!(l.len() <= 1, "{arcs:?}: one arc per kind after merging");
        l.first().map_or(0, |a| a.weight)
    };
    (w(&t.inputs), w(&t.outputs), w(&t.inhibitors))
}

/// Parallel arcs between one place and one transition (issue 50): normal arcs add up,
/// inhibitor arcs keep the smallest threshold, test arcs the largest weight, and a test arc
/// beside a normal input arc of weight v needs max(v, w) tokens and takes v.
#[test]
fn parallel_arcs_merge_by_kind() {
    assert_eq!(
        merged_weights(&[("in", "normal", 2), ("in", "normal", 3)]),
        (5, 0, 0)
    );
    assert_eq!(
        merged_weights(&[("in", "inhibitor", 1), ("in", "inhibitor", 1)]),
        (0, 0, 1)
    );
    assert_eq!(
        merged_weights(&[
            ("in", "inhibitor", 5),
            ("in", "inhibitor", 2),
            ("in", "inhibitor", 7)
        ]),
        (0, 0, 2)
    );
    assert_eq!(
        merged_weights(&[("in", "test", 2), ("out", "test", 4)]),
        (4, 4, 0)
    );
    assert_eq!(
        merged_weights(&[("in", "test", 3), ("in", "normal", 1)]),
        (3, 2, 0)
    );
    assert_eq!(
        merged_weights(&[("in", "normal", 3), ("in", "test", 2)]),
        (3, 0, 0)
    );
    assert_eq!(
        merged_weights(&[("in", "test", 3), ("in", "normal", 1), ("out", "normal", 4)]),
        (3, 6, 0)
    );
}

/// Reset, transport and unknown arc types are refused in both forms, with the arc's position.
#[test]
fn unsupported_arc_types_refused_with_position() {
    for (kind, form) in [
        ("reset", "attr"),
        ("transport", "attr"),
        ("bogus", "attr"),
        ("reset", "elem"),
        ("transport", "elem"),
        ("bogus", "elem"),
    ] {
        let arc = if form == "attr" {
            format!(r#"<arc id="a" source="p" target="t" type="{kind}"/>"#)
        } else {
            format!(r#"<arc id="a" source="p" target="t"><type value="{kind}"/></arc>"#)
        };
        // the arc is on line 8 of the document (after PT's three lines)
        let msg = err(&doc(&format!("{PT}{arc}")));
        assert!(
            msg.contains(&format!("'{kind}'")) && msg.contains("not supported"),
            "{msg}"
        );
        assert!(msg.starts_with("test.pnml:8:"), "file:line:column: {msg}");
    }
    let msg = err(&doc(&format!(
        r#"{PT}<arc id="a" source="p" target="t" type="normal"><type value="inhibitor"/></arc>"#
    )));
    assert!(
        msg.contains("'normal'") && msg.contains("'inhibitor'"),
        "{msg}"
    );
}

/// A document cut short reports the line where it ends.
#[test]
fn truncated_document_reports_its_last_line() {
    let full = doc(&format!(r#"{PT}<arc id="a" source="p" target="t"/>"#));
    for cut in [full.len() / 2, full.len() - 10, full.len() - 1] {
        let text = &full[..cut];
        let last_line = text.trim_end().lines().count();
        let msg = err(text);
        assert!(
            msg.starts_with(&format!("test.pnml:{last_line}:")),
            "cut at {cut} (line {last_line}): {msg}"
        );
    }
}

/// A token count or weight that does not fit reports the position of its element.
#[test]
fn out_of_range_numbers_report_position() {
    let msg = err(&doc(r#"<place id="p">
      <initialMarking><text>99999999999999999999999</text></initialMarking></place>"#));
    assert!(msg.starts_with("test.pnml:5:"), "{msg}");
    assert!(msg.contains("too large"), "{msg}");
    let net = read_pnml_str(
        &doc(r#"<place id="p"><initialMarking><text>4000000000</text></initialMarking></place>"#),
        "x",
    )
    .unwrap();
    assert_eq!(net.places[0].initial, 4_000_000_000);
    // a bound for nets to be explored: refused with the position of the place or arc
    let text = doc(&format!(
        r#"{PT}<place id="q">
      <initialMarking><text>5000000000</text></initialMarking></place>"#
    ));
    let e = saturn_pnml::read_pnml_str_within(&text, "test.pnml", u32::MAX as u64 - 1)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("test.pnml:8:") && e.contains("5000000000, more than the 4294967294"),
        "{e}"
    );
    let text = doc(&format!(
        r#"{PT}<arc id="a" source="p" target="t"><inscription><text>11</text></inscription></arc>"#
    ));
    let e = saturn_pnml::read_pnml_str_within(&text, "test.pnml", 10)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("test.pnml:8:") && e.contains("arc 'a'"),
        "{e}"
    );
    assert!(saturn_pnml::read_pnml_str_within(&text, "test.pnml", 11).is_ok());
}

#[test]
fn pnml_recognised_by_content() {
    use saturn_pnml::looks_like_pnml;
    assert!(looks_like_pnml(doc("").as_bytes()));
    assert!(looks_like_pnml(b"\xEF\xBB\xBF  \n<pnml/>"));
    assert!(!looks_like_pnml(b"ctmc\nmodule m endmodule"));
    assert!(!looks_like_pnml(b"// <comment>\ndtmc"));
    assert!(!looks_like_pnml(b""));
}

/// An error inside a tag is placed inside that tag, even when the damage put a `<` there (the
/// position is counted from the tag's own `<`, not from the last `<` read).
#[test]
fn errors_inside_a_tag_point_into_it() {
    // line 3: `  <place id="p" <x/>`; the second `<` is at column 17
    let text = "<pnml>\n<net id=\"n\">\n  <place id=\"p\" <x/>\n</net>\n</pnml>";
    let msg = err(text);
    assert!(msg.contains("malformed XML"), "{msg}");
    assert!(msg.starts_with("test.pnml:3:17:"), "{msg}");
    // a closing tag with a stray `<`: `</transit<ion>` at line 2, the error at column 10
    let msg = err("<pnml>\n</transit<ion>\n</pnml>");
    assert!(msg.starts_with("test.pnml:2:10:"), "{msg}");
}
