//! A streaming, checking XML layer: it accepts exactly the documents the previous whole-file
//! reader (`roxmltree` with its default options) accepted, hands the PNML layer a small stream
//! of items (element starts with their attributes, ends, text, other nodes), and says where
//! (line, column) anything is.
//!
//! The tokenizer finds where each piece of markup or text ends in the window of
//! [`super::source`] (a tag ends at a `>` outside quotes; comments, CDATA and processing
//! instructions at their closing sequence; text at `<` or `&`); the checks then cover XML names,
//! attribute syntax, character and entity references, characters allowed in XML, namespace
//! prefixes, one root element, comments, the XML declaration and no DTD, and decode text and
//! attribute values (references, line-end and attribute-value normalisation) as `roxmltree`
//! does. Positions are counted only where one is needed (start tags, errors), and nothing of
//! the document is kept once it has been read. Blanks between tags whose text nobody wants are
//! passed over without a check (they have nothing to check).

use std::io::Read;

pub(crate) use super::source::Pos;
use super::source::{Source, SourceError};

/// Why the document cannot be read.
#[derive(Debug)]
pub(crate) enum Fail {
    /// Not UTF-8 from this byte on.
    Utf8(u64),
    /// Not well-formed XML (as `roxmltree` sees it), here.
    Syntax(Pos, String),
    /// The input could not be read.
    Io(String),
}

/// One thing found in the document, for the PNML layer.
pub(crate) enum Item<'s> {
    /// An element starts (`empty`: it also ends here; no [`Item::End`] follows).
    Start {
        local: &'s str,
        empty: bool,
        at: Pos,
        attrs: &'s Attrs,
    },
    /// The innermost open element ends.
    End,
    /// Character data (text, references, CDATA), decoded; consecutive items belong to one
    /// text node until another item comes.
    Text(&'s str),
    /// A comment or processing instruction (a node that ends a text node).
    Other,
    /// The end of a well-formed document.
    Eof,
}

/// The unprefixed attributes of the current element, values decoded and normalised.
#[derive(Default)]
pub(crate) struct Attrs {
    names: String,
    values: String,
    /// (end of name in `names`, end of value in `values`).
    ends: Vec<(usize, usize)>,
}

impl Attrs {
    fn clear(&mut self) {
        self.names.clear();
        self.values.clear();
        self.ends.clear();
    }

    fn push(&mut self, name: &str, value: &str) {
        self.names.push_str(name);
        self.values.push_str(value);
        self.ends.push((self.names.len(), self.values.len()));
    }

    /// The value of the unprefixed attribute `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        let (mut n0, mut v0) = (0, 0);
        let names = self.names.as_bytes();
        for &(n1, v1) in &self.ends {
            if n1 - n0 == name.len() && names.get(n0..n1) == Some(name.as_bytes()) {
                return self.values.get(v0..v1);
            }
            (n0, v0) = (n1, v1);
        }
        None
    }
}

const NS_XML_URI: &str = "http://www.w3.org/XML/1998/namespace";
const NS_XMLNS_URI: &str = "http://www.w3.org/2000/xmlns/";

/// Where the document is, as far as its structure goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing read yet (an XML declaration may come).
    Start,
    /// Before the root element.
    Prolog,
    /// Inside the root element.
    Content,
    /// After the root element.
    Epilog,
}

/// How a raw `\r` at the end of the decoded text so far is to be written (roxmltree's
/// `TextBuffer` rules: a `\r` becomes `\n` when raw text follows or the text ends, and stays
/// when a reference follows it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cr {
    None,
    /// From raw text: `\n` at the end of the text node.
    FromText,
    /// From a reference: `\r` at the end of the text node.
    FromRef,
}

#[derive(Clone, Copy)]
enum Pending {
    Start { empty: bool, at: Pos },
    End,
    Other,
    Cdata,
    Eof,
}

enum Step {
    /// Nothing for the PNML layer (blanks outside the root, an empty text).
    Skip,
    /// Raw text `buf[..]`, as is.
    RawText,
    /// Decoded text in `text`.
    Text,
    Markup(Pending),
}

/// The streaming checker.
pub(crate) struct Scanner<R: Read> {
    src: Source<R>,
    /// The reader wants the text of the current text node (when not, text is checked but not
    /// decoded or handed out).
    pub want_text: bool,
    phase: Phase,
    /// Qualified names of the open elements, concatenated, and where each starts.
    open_names: String,
    open_starts: Vec<usize>,
    /// Namespace prefixes in scope: (prefix, URI, depth of the element that declared it).
    namespaces: Vec<(String, String, usize)>,
    attrs: Attrs,
    /// The current element's local name.
    local: String,
    /// Decoded text (bytes of UTF-8).
    text: Vec<u8>,
    /// (namespace URI or none, local name) of the current element's attributes.
    /// (position, prefix start, prefix length, local start, local length) of the current
    /// tag's attributes other than namespace declarations.
    seen_attrs: Vec<(usize, usize, usize, usize, usize)>,
    value: String,
    cr: Cr,
    /// The byte after a character reference is taken as is (roxmltree's `is_as_is`).
    as_is: bool,
    /// The end of a text node to hand out before the item in `pending`.
    flush: Option<&'static str>,
    pending: Option<Pending>,
    /// The origin of the positions in errors found while checking a token: [`Pos::ZERO`], the
    /// token's start (made absolute by [`Scanner::next`]).
    at: Pos,
    /// Where the current token starts in the window.
    tok_start: usize,
    /// The position of the current start tag.
    tag_at: Pos,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_name_start(c: char) -> bool {
    if (c as u32) < 128 {
        return matches!(c, 'A'..='Z' | 'a'..='z' | ':' | '_');
    }
    matches!(c as u32,
        0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x2FF | 0x370..=0x37D | 0x37F..=0x1FFF
        | 0x200C..=0x200D | 0x2070..=0x218F | 0x2C00..=0x2FEF | 0x3001..=0xD7FF
        | 0xF900..=0xFDCF | 0xFDF0..=0xFFFD | 0x10000..=0xEFFFF)
}

fn is_name_char(c: char) -> bool {
    if (c as u32) < 128 {
        return matches!(c, 'A'..='Z' | 'a'..='z' | '0'..='9' | ':' | '_' | '-' | '.');
    }
    matches!(c as u32,
        0xB7 | 0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x2FF | 0x300..=0x36F | 0x370..=0x37D
        | 0x37F..=0x1FFF | 0x200C..=0x200D | 0x203F..=0x2040 | 0x2070..=0x218F
        | 0x2C00..=0x2FEF | 0x3001..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFFD
        | 0x10000..=0xEFFFF)
}

/// [`is_name_char`] on the ASCII characters.
const NAME_ASCII: [bool; 128] = {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        t[b] =
            matches!(b as u8, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b':' | b'_' | b'-' | b'.');
        b += 1;
    }
    t
};

fn is_xml_char(c: char) -> bool {
    if (c as u32) < 0x20 {
        return matches!(c, '\t' | '\n' | '\r');
    }
    !matches!(c as u32, 0xFFFE | 0xFFFF)
}

/// The first byte of a character not allowed in XML documents, if any.
fn bad_char(s: &[u8]) -> Option<usize> {
    // Almost always none: one pass the compiler makes vector code, then the exact search.
    let suspect = |b: u8| (b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r') | (b == 0xEF);
    if !s.iter().fold(false, |any, &b| any | suspect(b)) {
        return None;
    }
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b < 0x20 && !is_space(b) {
            return Some(i);
        }
        // U+FFFE and U+FFFF: EF BF BE, EF BF BF.
        if b == 0xEF && s.get(i + 1) == Some(&0xBF) && matches!(s.get(i + 2), Some(0xBE | 0xBF)) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The character a reference (`&` + `body` + `;`) stands for; `Err` with a message.
fn reference(body: &str) -> Result<char, String> {
    let malformed = || format!("malformed reference '&{};'", body.escape_debug());
    if let Some(num) = body.strip_prefix('#') {
        let (digits, radix) = match num.strip_prefix('x') {
            Some(h) => (h, 16),
            None => (num, 10),
        };
        let ok = !digits.is_empty()
            && digits.bytes().all(|b| match radix {
                16 => b.is_ascii_hexdigit(),
                _ => b.is_ascii_digit(),
            });
        let n = u32::from_str_radix(digits, radix)
            .ok()
            .filter(|_| ok)
            .ok_or_else(malformed)?;
        let c = char::from_u32(n).unwrap_or('\u{FFFD}');
        return if is_xml_char(c) {
            Ok(c)
        } else {
            Err(malformed())
        };
    }
    let mut cur = Cur { s: body, i: 0 };
    if cur.name().is_err() || !cur.at_end() {
        return Err(malformed());
    }
    match body {
        "quot" => Ok('"'),
        "amp" => Ok('&'),
        "apos" => Ok('\''),
        "lt" => Ok('<'),
        "gt" => Ok('>'),
        _ => Err(format!("unknown entity reference '&{body};'")),
    }
}

/// A cursor over one piece of markup.
struct Cur<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Cur<'a> {
    fn peek(&self) -> Option<char> {
        self.s[self.i..].chars().next()
    }
    fn starts_with(&self, t: &str) -> bool {
        self.s[self.i..].starts_with(t)
    }
    fn skip_spaces(&mut self) -> bool {
        let start = self.i;
        while self.s.as_bytes().get(self.i).is_some_and(|&b| is_space(b)) {
            self.i += 1;
        }
        self.i > start
    }
    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }
    fn eat(&mut self, b: u8) -> bool {
        if self.s.as_bytes().get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    /// A qualified name: (prefix, local); `Err` with the name's start.
    fn qname(&mut self) -> Result<(&'a str, &'a str), usize> {
        let start = self.i;
        let mut split = None;
        let bytes = self.s.as_bytes();
        while let Some(&b) = bytes.get(self.i) {
            if b >= 0x80 {
                let Some(c) = self.peek().filter(|&c| is_name_char(c)) else {
                    break;
                };
                self.i += c.len_utf8();
                continue;
            }
            if !NAME_ASCII[b as usize] {
                break;
            }
            if b == b':' {
                if split.is_some() {
                    return Err(start);
                }
                split = Some(self.i);
            }
            self.i += 1;
        }
        let (prefix, local) = match split {
            Some(k) => (&self.s[start..k], &self.s[k + 1..self.i]),
            None => (&self.s[start..start], &self.s[start..self.i]),
        };
        let starts_ok = |t: &str| match t.as_bytes().first() {
            Some(&b) if b < 0x80 => matches!(b, b'A'..=b'Z' | b'a'..=b'z' | b':' | b'_'),
            Some(_) => t.chars().next().is_some_and(is_name_start),
            None => false,
        };
        if (!prefix.is_empty() && !starts_ok(prefix)) || !starts_ok(local) {
            return Err(start);
        }
        Ok((prefix, local))
    }
    /// A name (a PI target, an entity name).
    fn name(&mut self) -> Result<&'a str, usize> {
        let start = self.i;
        match self.peek() {
            Some(c) if is_name_start(c) => self.i += c.len_utf8(),
            _ => return Err(start),
        }
        while let Some(c) = self.peek().filter(|&c| is_name_char(c)) {
            self.i += c.len_utf8();
        }
        Ok(&self.s[start..self.i])
    }
    /// `S? = S? quote value quote`: the raw value; `Err` (position, message).
    fn attr_value(&mut self) -> Result<&'a str, (usize, &'static str)> {
        self.skip_spaces();
        if !self.eat(b'=') {
            return Err((self.i, "expected '=' after an attribute name"));
        }
        self.skip_spaces();
        let quote = match self.s.as_bytes().get(self.i) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return Err((self.i, "expected a quote")),
        };
        self.i += 1;
        let start = self.i;
        let rest = &self.s.as_bytes()[start..];
        match rest.iter().position(|&b| b == quote || b == b'<') {
            Some(k) if rest[k] == quote => {
                self.i = start + k + 1;
                Ok(&self.s[start..start + k])
            }
            Some(k) => Err((start + k, "'<' in an attribute value")),
            None => Err((self.s.len(), "attribute value not closed")),
        }
    }
}

type Res<T> = Result<T, Fail>;

/// The message for a tag the document ends in.
const UNCLOSED_TAG: &str = "syntax error: tag not closed: `>` not found before end of input";

/// One token of the document, as byte ranges of the window.
#[derive(Clone, Copy)]
enum Tok {
    /// Character data up to the next `<` or `&`.
    Text(usize, usize),
    /// Blanks that need no check and are not wanted.
    Blank,
    /// A reference: the bytes between `&` and `;`.
    Ref(usize, usize),
    /// A start tag: the bytes between `<` and `>` (or `/>` when `empty`).
    Start(usize, usize, bool),
    /// A start tag read by [`Scanner::simple_start`]: its name.
    SimpleStart(usize, usize, bool),
    /// An end tag: the bytes between `</` and `>`.
    End(usize, usize),
    /// The bytes between `<!--` and `-->`.
    Comment(usize, usize),
    /// The bytes between `<?` and `?>`.
    Pi(usize, usize),
    /// The bytes between `<![CDATA[` and `]]>`.
    Cdata(usize, usize),
    Eof,
}

impl From<SourceError> for Fail {
    fn from(e: SourceError) -> Fail {
        match e {
            SourceError::Utf8(b) => Fail::Utf8(b),
            SourceError::Io(e) => Fail::Io(e.to_string()),
        }
    }
}

/// The first occurrence of `needle` (short, not empty) in `hay`: the needles are a few bytes
/// and the haystacks one token, where a byte search beats a substring searcher's set-up.
fn find_seq(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, tail) = needle.split_first()?;
    memchr::memchr_iter(first, hay).find(|&k| hay[k + 1..].starts_with(tail))
}

/// The end of an ASCII name without a prefix starting at `b[i]`; `i` when there is none.
fn simple_name(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {}
        _ => return i,
    }
    let n = b[i + 1..]
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    i + 1 + n
}

/// The first `<` or `&`: most text between tags is a line end and an indentation, found
/// sooner by a plain loop than by setting up a vector search.
fn find_lt_amp(hay: &[u8]) -> Option<usize> {
    let head = hay.len().min(32);
    match hay[..head].iter().position(|&b| b == b'<' || b == b'&') {
        Some(k) => Some(k),
        None => memchr::memchr2(b'<', b'&', &hay[head..]).map(|k| head + k),
    }
}

/// Is `b` a blank as far as where the content ends goes?
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0C')
}

impl<R: Read> Scanner<R> {
    pub fn new(input: R) -> Self {
        Scanner {
            src: Source::new(input),
            want_text: true,
            phase: Phase::Start,
            open_names: String::new(),
            open_starts: Vec::new(),
            namespaces: Vec::new(),
            attrs: Attrs::default(),
            local: String::new(),
            text: Vec::new(),
            seen_attrs: Vec::new(),
            value: String::new(),
            cr: Cr::None,
            as_is: false,
            flush: None,
            pending: None,
            at: Pos::ZERO,
            tok_start: 0,
            tag_at: Pos { line: 1, col: 1 },
        }
    }

    /// A syntax error at `at` (the rest of the input is still read for a UTF-8 error, which
    /// comes first: see [`Scanner::next`]).
    fn fail(&self, at: Pos, message: String) -> Fail {
        Fail::Syntax(at, message)
    }

    /// A syntax error at byte `i` of `content`, which starts `skip` characters after the
    /// current token's start.
    fn fail_in(&self, content: &[u8], skip: u32, i: usize, message: String) -> Fail {
        let mut at = self.at;
        at.col += skip;
        let at = at.advanced(&content[..i.min(content.len())]);
        Fail::Syntax(at, message)
    }

    /// The error for the document: a UTF-8 error anywhere comes first (the rest of the input
    /// is read to look for one), then `f`.
    fn settle(&mut self, f: Fail) -> Fail {
        match f {
            Fail::Syntax(..) => match self.src.drain() {
                Ok(()) => f,
                Err(e) => e.into(),
            },
            f => f,
        }
    }

    /// The next item of the document.
    pub fn next(&mut self) -> Res<Item<'_>> {
        if let Some(tail) = self.flush.take() {
            return Ok(Item::Text(tail));
        }
        if let Some(p) = self.pending.take() {
            return Ok(self.deliver(p));
        }
        loop {
            let step = match self.token() {
                Ok(Tok::Eof) => self.eof().map(|s| (s, Tok::Eof)),
                Ok(Tok::Blank) => continue,
                Ok(tok) => {
                    let buf = std::mem::take(&mut self.src.buf);
                    let step = self.step(tok, &buf);
                    self.src.buf = buf;
                    match step {
                        Err(Fail::Syntax(rel, m)) => {
                            let origin = self.src.pos_at(self.tok_start);
                            Err(Fail::Syntax(origin.then(rel), m))
                        }
                        step => step.map(|s| (s, tok)),
                    }
                }
                Err(f) => Err(f),
            };
            let (step, tok) = match step {
                Ok(s) => s,
                Err(f) => return Err(self.settle(f)),
            };
            match step {
                Step::Skip => continue,
                Step::RawText => {
                    let Tok::Text(a, b) = tok else {
                        continue;
                    };
                    return Ok(Item::Text(self.src.buf.get(a..b).unwrap_or_default()));
                }
                Step::Text => return Ok(Item::Text(std::str::from_utf8(&self.text).unwrap_or(""))),
                Step::Markup(p) => {
                    if let Some(tail) = self.flush.take() {
                        self.pending = Some(p);
                        return Ok(Item::Text(tail));
                    }
                    return Ok(self.deliver(p));
                }
            }
        }
    }

    fn deliver(&self, p: Pending) -> Item<'_> {
        match p {
            Pending::Start { empty, at } => Item::Start {
                local: &self.local,
                empty,
                at,
                attrs: &self.attrs,
            },
            Pending::End => Item::End,
            Pending::Other => Item::Other,
            Pending::Cdata => Item::Text(std::str::from_utf8(&self.text).unwrap_or("")),
            Pending::Eof => Item::Eof,
        }
    }

    /// Where the unconsumed bytes end, as a syntax error's position when the document ends
    /// inside a token: after the last non-blank character.
    fn cut_short(&mut self, message: &str) -> Fail {
        let rest = self.src.rest();
        if let Some(k) = rest.iter().rposition(|&b| !is_blank(b)) {
            self.src.nonblank_end = self.src.start + k + 1;
        }
        Fail::Syntax(self.content_end(), message.to_string())
    }

    /// The position just after the last non-blank character read.
    fn content_end(&mut self) -> Pos {
        self.src.pos_at(self.src.nonblank_end)
    }

    /// The first `needle` at or after `from` bytes into the unconsumed bytes (reading more
    /// as needed): its offset there, or `None` when the input ends first.
    fn find(&mut self, from: usize, needle: &[u8]) -> Res<Option<usize>> {
        let mut from = from;
        loop {
            let rest = self.src.rest();
            if from <= rest.len() {
                if let Some(k) = find_seq(&rest[from..], needle) {
                    return Ok(Some(from + k));
                }
                from = from.max((rest.len() + 1).saturating_sub(needle.len()));
            }
            if !self.src.fill()? {
                return Ok(None);
            }
        }
    }

    /// Where a start tag ends: the offset of its `>` in the unconsumed bytes (a `>` inside
    /// a quoted attribute value does not end it).
    fn tag_end(&mut self) -> Res<Option<usize>> {
        let mut from = 1;
        let mut quote = None;
        // Tags are short: plain loops first (a quoted value is passed over in one go).
        let rest = self.src.rest();
        let head = &rest[..rest.len().min(128)];
        while from < head.len() {
            let stop = match quote {
                None => head[from..]
                    .iter()
                    .position(|&b| b == b'>' || b == b'"' || b == b'\''),
                Some(q) => head[from..].iter().position(|&b| b == q),
            };
            let Some(k) = stop else {
                from = head.len();
                break;
            };
            let b = head[from + k];
            from += k + 1;
            match quote {
                Some(_) => quote = None,
                None if b == b'>' => return Ok(Some(from - 1)),
                None => quote = Some(b),
            }
        }
        loop {
            let rest = self.src.rest();
            while from < rest.len() {
                let hay = &rest[from..];
                let hit = match quote {
                    None => memchr::memchr3(b'>', b'"', b'\'', hay),
                    Some(q) => memchr::memchr(q, hay),
                };
                let Some(k) = hit else {
                    from = rest.len();
                    break;
                };
                let b = hay[k];
                from += k + 1;
                match quote {
                    Some(_) => quote = None,
                    None if b == b'>' => return Ok(Some(from - 1)),
                    None => quote = Some(b),
                }
            }
            if !self.src.fill()? {
                return Ok(None);
            }
        }
    }

    /// Read the next token (its bytes stay in the window until the next one is read).
    fn token(&mut self) -> Res<Tok> {
        if self.phase == Phase::Start {
            // A byte-order mark is skipped (and counted as a character of line 1).
            self.src.ensure(3)?;
            if self.src.rest().starts_with(b"\xEF\xBB\xBF") {
                self.src.start += 3;
            }
        }
        if self.src.start == self.src.end() && !self.src.fill()? {
            return Ok(Tok::Eof);
        }
        let s = self.src.start;
        self.tok_start = s;
        match self.src.buf.as_bytes()[s] {
            b'<' => self.markup(),
            b'&' => {
                let semi = loop {
                    let rest = self.src.rest();
                    match memchr::memchr2(b';', b'<', &rest[1..]) {
                        Some(k) => break Some(k + 1).filter(|&k| rest[k] == b';'),
                        None if !self.src.fill()? => break None,
                        None => {}
                    }
                };
                let Some(k) = semi else {
                    let at = self.src.pos_at(self.tok_start);
                    let msg = "entity or character reference not closed: `;` not found before end of input";
                    return Err(self.fail(at, msg.into()));
                };
                let s = self.src.start;
                self.src.start = s + k + 1;
                self.src.nonblank_end = s + k + 1;
                Ok(Tok::Ref(s + 1, s + k))
            }
            _ => {
                // Blanks between tags whose text nobody wants: nothing to check.
                let rest = self.src.rest();
                let n = rest.iter().take_while(|&&b| is_space(b)).count();
                if rest.get(n) == Some(&b'<')
                    && self.phase != Phase::Start
                    && (!self.want_text || self.phase != Phase::Content)
                {
                    self.src.start += n;
                    return Ok(Tok::Blank);
                }
                let mut from = 0;
                let k = loop {
                    let rest = self.src.rest();
                    match find_lt_amp(&rest[from..]) {
                        Some(k) => break from + k,
                        None => {
                            from = rest.len();
                            if !self.src.fill()? {
                                break from;
                            }
                        }
                    }
                };
                let s = self.src.start;
                let text = &self.src.buf.as_bytes()[s..s + k];
                self.src.start = s + k;
                match text.iter().rposition(|&b| !is_space(b)) {
                    Some(j) => {
                        if let Some(j) = text[..=j].iter().rposition(|&b| !is_blank(b)) {
                            self.src.nonblank_end = s + j + 1;
                        }
                    }
                    // Blanks between tags: nothing to check, nothing wanted.
                    None if self.phase != Phase::Start
                        && (!self.want_text || self.phase != Phase::Content) =>
                    {
                        return Ok(Tok::Blank);
                    }
                    None => {}
                }
                Ok(Tok::Text(s, s + k))
            }
        }
    }

    /// A token starting with `<`.
    fn markup(&mut self) -> Res<Tok> {
        self.src.ensure(9)?;
        let rest = self.src.rest();
        let (open, close): (usize, &[u8]) = match rest.get(1) {
            Some(b'/') => (2, b">"),
            Some(b'?') => (2, b"?>"),
            Some(b'!') if rest.starts_with(b"<!--") => (4, b"-->"),
            Some(b'!') if rest.starts_with(b"<![CDATA[") => (9, b"]]>"),
            Some(b'!') => {
                let msg = if rest.starts_with(b"<!DOCTYPE") {
                    "a DTD (<!DOCTYPE>) is not supported"
                } else {
                    "unknown markup after '<!'"
                };
                let at = self.src.pos_at(self.tok_start);
                return Err(self.fail(at, msg.into()));
            }
            None => return Err(self.cut_short(UNCLOSED_TAG)),
            Some(_) => {
                if let Some(tok) = self.simple_start() {
                    return Ok(tok);
                }
                (1, b">")
            }
        };
        let k = if open == 1 {
            self.tag_end()?
        } else {
            self.find(open, close)?
        };
        let Some(k) = k else {
            let what = match open {
                1 | 2 if close == b">" => UNCLOSED_TAG,
                2 => "syntax error: processing instruction or xml declaration not closed: `?>` not found before end of input",
                4 => "syntax error: comment not closed: `-->` not found before end of input",
                _ => "syntax error: CDATA not closed: `]]>` not found before end of input",
            };
            return Err(self.cut_short(what));
        };
        let s = self.src.start;
        let (a, b) = (s + open, s + k);
        let after = b + close.len();
        self.src.start = after;
        self.src.nonblank_end = after;
        if open == 1 {
            self.tag_at = self.src.pos_at(s);
        }
        let rest = self.src.buf.as_bytes();
        Ok(match (open, rest[s + 1]) {
            (1, _) => {
                let empty = b > a && rest[b - 1] == b'/';
                Tok::Start(a, if empty { b - 1 } else { b }, empty)
            }
            (2, b'/') => Tok::End(a, b),
            (2, _) => Tok::Pi(a, b),
            (4, _) => Tok::Comment(a, b),
            _ => Tok::Cdata(a, b),
        })
    }

    /// The end of the input: the end of the document when the root element has ended.
    fn eof(&mut self) -> Res<Step> {
        self.flush = self.end_text();
        let end = self.content_end();
        match self.phase {
            Phase::Content => {
                let name = self.open_name().to_string();
                Err(self.fail(end, format!("the document ends inside <{name}>")))
            }
            Phase::Start | Phase::Prolog => {
                Err(self.fail(end, "the document has no root element".into()))
            }
            Phase::Epilog => Ok(Step::Markup(Pending::Eof)),
        }
    }

    /// The common start tag, read and checked in one pass from its `<`: an ASCII name without
    /// a prefix, attributes with such names and quoted values of printable ASCII other than
    /// `<` and `&`, none twice, no `xmlns`. Its attributes are left in `attrs`. `None` (and
    /// nothing consumed) for any other tag or one that runs past the window: the general path
    /// then reads it.
    fn simple_start(&mut self) -> Option<Tok> {
        let Scanner { src, attrs, .. } = self;
        let s = src.start;
        let text = src.buf.get(s..)?;
        let r = text.as_bytes();
        let name_end = simple_name(r, 1);
        if name_end == 1 {
            return None;
        }
        attrs.clear();
        let mut i = name_end;
        loop {
            let j = i + r[i..].iter().take_while(|&&c| is_space(c)).count();
            let (gt, empty) = match r.get(j) {
                Some(b'>') => (j, false),
                Some(b'/') if r.get(j + 1) == Some(&b'>') => (j + 1, true),
                _ => (0, false),
            };
            if gt > 0 {
                src.start = s + gt + 1;
                src.nonblank_end = src.start;
                self.tag_at = src.pos_at(s);
                return Some(Tok::SimpleStart(s + 1, s + name_end, empty));
            }
            let n_end = simple_name(r, j);
            if j == i || n_end == j || r.get(n_end) != Some(&b'=') {
                return None;
            }
            let quote = match r.get(n_end + 1) {
                Some(&q @ (b'"' | b'\'')) => q,
                _ => return None,
            };
            let v0 = n_end + 2;
            let len = r.get(v0..)?.iter().position(|&c| c == quote)?;
            let v1 = v0 + len;
            if r[v0..v1]
                .iter()
                .any(|&c| !(0x20..0x80).contains(&c) || c == b'<' || c == b'&')
            {
                return None;
            }
            let (name, value) = (text.get(j..n_end)?, text.get(v0..v1)?);
            if name == "xmlns" || attrs.get(name).is_some() {
                return None;
            }
            attrs.push(name, value);
            i = v1 + 1;
        }
    }

    /// An element opens (its name checked) or, when `empty`, opens and closes.
    fn open(&mut self, qname: &str, empty: bool) {
        let depth = self.open_starts.len();
        if empty {
            self.pop_namespaces(depth);
            if depth == 0 {
                self.phase = Phase::Epilog;
            }
        } else {
            self.open_starts.push(self.open_names.len());
            self.open_names.push_str(qname);
        }
    }

    /// Check one token.
    fn step(&mut self, tok: Tok, buf: &str) -> Res<Step> {
        let piece = |a: usize, b: usize| buf.get(a..b).unwrap_or_default();
        let first = self.phase == Phase::Start;
        if first {
            self.phase = Phase::Prolog;
        }
        match tok {
            Tok::Text(a, b) => return self.text_piece(piece(a, b)),
            Tok::Ref(a, b) => {
                self.reference_item(piece(a, b))?;
                return Ok(if self.want_text {
                    Step::Text
                } else {
                    Step::Skip
                });
            }
            _ => {}
        }
        // Markup: the text node before it (if any) ends here.
        self.flush = self.end_text();
        let p = match tok {
            Tok::Start(a, b, empty) => {
                self.start_tag(piece(a, b), empty)?;
                Pending::Start {
                    empty,
                    at: self.tag_at,
                }
            }
            Tok::SimpleStart(a, b, empty) => {
                if self.phase == Phase::Epilog {
                    return Err(self.fail(self.at, "a second root element".into()));
                }
                self.phase = Phase::Content;
                let name = piece(a, b);
                self.local.clear();
                self.local.push_str(name);
                self.open(name, empty);
                Pending::Start {
                    empty,
                    at: self.tag_at,
                }
            }
            Tok::End(a, b) => {
                self.end_tag(piece(a, b))?;
                Pending::End
            }
            Tok::Comment(a, b) => {
                self.comment(piece(a, b))?;
                Pending::Other
            }
            Tok::Pi(a, b) => {
                self.pi(piece(a, b), first)?;
                Pending::Other
            }
            Tok::Cdata(a, b) => {
                if self.phase != Phase::Content {
                    return Err(self.fail(self.at, "CDATA outside the root element".into()));
                }
                self.cdata(piece(a, b))?;
                Pending::Cdata
            }
            Tok::Eof => return self.eof(),
            Tok::Text(..) | Tok::Ref(..) | Tok::Blank => return Ok(Step::Skip),
        };
        Ok(Step::Markup(p))
    }
    /// The qualified name of the innermost open element.
    fn open_name(&self) -> &str {
        let start = self.open_starts.last().copied().unwrap_or(0);
        self.open_names.get(start..).unwrap_or_default()
    }

    fn text_piece(&mut self, raw: &str) -> Res<Step> {
        let raw = raw.as_bytes();
        if self.phase != Phase::Content {
            if let Some(i) = raw.iter().position(|&b| !is_space(b)) {
                let msg = "text outside the root element".to_string();
                return Err(self.fail_in(raw, 0, i, msg));
            }
            return Ok(Step::Skip);
        }
        if let Some(i) = bad_char(raw) {
            let msg = format!("a character not allowed in XML (byte 0x{:02X})", raw[i]);
            return Err(self.fail_in(raw, 0, i, msg));
        }
        if let Some(i) = find_seq(raw, b"]]>") {
            return Err(self.fail_in(raw, 0, i, "']]>' in text".into()));
        }
        if !self.want_text {
            return Ok(Step::Skip);
        }
        if self.cr == Cr::None && !self.as_is && memchr::memchr(b'\r', raw).is_none() {
            return Ok(Step::RawText);
        }
        self.text.clear();
        for &b in raw {
            if self.as_is {
                self.as_is = false;
                self.push_raw(b);
            } else {
                self.push_text(b);
            }
        }
        Ok(Step::Text)
    }

    /// roxmltree's `push_from_text`, with the `\r` at the end held back.
    fn push_text(&mut self, b: u8) {
        if self.cr != Cr::None {
            self.cr = Cr::None;
            self.text.push(b'\n');
            if b == b'\n' {
                return;
            }
        }
        if b == b'\r' {
            self.cr = Cr::FromText;
        } else {
            self.text.push(b);
        }
    }

    /// roxmltree's `push_raw`.
    fn push_raw(&mut self, b: u8) {
        if self.cr != Cr::None {
            self.cr = Cr::None;
            self.text.push(b'\r');
        }
        if b == b'\r' {
            self.cr = Cr::FromRef;
        } else {
            self.text.push(b);
        }
    }

    /// The end of a text node: what the held-back `\r` becomes.
    fn end_text(&mut self) -> Option<&'static str> {
        self.as_is = false;
        let cr = std::mem::replace(&mut self.cr, Cr::None);
        match cr {
            Cr::None => None,
            Cr::FromText => Some("\n"),
            Cr::FromRef => Some("\r"),
        }
    }

    fn reference_item(&mut self, body: &str) -> Res<()> {
        if self.phase != Phase::Content {
            return Err(self.fail(self.at, "a reference outside the root element".into()));
        }
        let c = reference(body);
        let c = match c {
            Ok(c) => c,
            Err(msg) => return Err(self.fail(self.at, msg)),
        };
        if !self.want_text {
            return Ok(());
        }
        self.text.clear();
        let mut tmp = [0u8; 4];
        for &b in c.encode_utf8(&mut tmp).as_bytes() {
            self.push_raw(b);
        }
        self.as_is = true;
        Ok(())
    }

    fn cdata(&mut self, raw: &str) -> Res<()> {
        let raw = raw.as_bytes();
        if let Some(i) = bad_char(raw) {
            let msg = format!("a character not allowed in XML (byte 0x{:02X})", raw[i]);
            return Err(self.fail_in(raw, 9, i, msg));
        }
        self.text.clear();
        for &b in raw {
            self.push_text(b);
        }
        if let Some(tail) = self.end_text() {
            self.text.extend_from_slice(tail.as_bytes());
        }
        Ok(())
    }

    fn comment(&mut self, raw: &str) -> Res<()> {
        let raw = raw.as_bytes();
        if let Some(i) = find_seq(raw, b"--") {
            return Err(self.fail_in(raw, 4, i, "'--' inside a comment".into()));
        }
        if raw.ends_with(b"-") {
            let i = raw.len() - 1;
            return Err(self.fail_in(raw, 4, i, "a comment ends with '-'".into()));
        }
        if let Some(i) = bad_char(raw) {
            let msg = format!("a character not allowed in XML (byte 0x{:02X})", raw[i]);
            return Err(self.fail_in(raw, 4, i, msg));
        }
        Ok(())
    }

    /// A processing instruction or XML declaration (`raw` between `<?` and `?>`).
    fn pi(&mut self, s: &str, at_start: bool) -> Res<()> {
        let raw = s.as_bytes();
        if let Some(i) = bad_char(raw) {
            let msg = format!("a character not allowed in XML (byte 0x{:02X})", raw[i]);
            return Err(self.fail_in(raw, 2, i, msg));
        }
        if s.starts_with("xml ") {
            if !at_start {
                let msg = "an XML declaration not at the start of the document".to_string();
                return Err(self.fail(self.at, msg));
            }
            return match declaration(s) {
                Ok(()) => Ok(()),
                Err((i, msg)) => Err(self.fail_in(raw, 2, i, msg.into())),
            };
        }
        let mut cur = Cur { s, i: 0 };
        if let Err(i) = cur.name() {
            return Err(self.fail_in(raw, 2, i, "a processing instruction without a name".into()));
        }
        Ok(())
    }

    fn start_tag(&mut self, s: &str, empty: bool) -> Res<()> {
        let raw = s.as_bytes();
        if self.phase == Phase::Epilog {
            return Err(self.fail(self.at, "a second root element".into()));
        }
        self.phase = Phase::Content;
        let depth = self.open_starts.len();
        let mut cur = Cur { s, i: 0 };
        let (prefix, local) = match cur.qname() {
            Ok(q) => q,
            Err(i) => return Err(self.fail_in(raw, 1, i, "invalid element name".into())),
        };
        if prefix == "xmlns" {
            return Err(self.fail_in(raw, 1, 0, "'xmlns' used as an element prefix".into()));
        }
        self.attrs.clear();
        self.seen_attrs.clear();
        loop {
            let spaced = cur.skip_spaces();
            if cur.at_end() {
                break;
            }
            let at = cur.i;
            if !spaced {
                let msg = "expected a blank before an attribute".to_string();
                return Err(self.fail_in(raw, 1, at, msg));
            }
            let (aprefix, alocal) = match cur.qname() {
                Ok(q) => q,
                Err(i) => return Err(self.fail_in(raw, 1, i, "invalid attribute name".into())),
            };
            let value = match cur.attr_value() {
                Ok(v) => v,
                Err((i, msg)) => return Err(self.fail_in(raw, 1, i, msg.into())),
            };
            let vstart = value.as_ptr() as usize - s.as_ptr() as usize;
            if let Some(i) = bad_char(value.as_bytes()) {
                let msg = "a character not allowed in XML in an attribute value".to_string();
                return Err(self.fail_in(raw, 1, vstart + i, msg));
            }
            if let Err((i, msg)) = normalize_attribute(value, &mut self.value) {
                return Err(self.fail_in(raw, 1, vstart + i, msg));
            }
            if aprefix == "xmlns" {
                let v = self.value.clone();
                if let Some(msg) = self.declare(alocal, &v, depth) {
                    return Err(self.fail_in(raw, 1, at, msg.into()));
                }
            } else if aprefix.is_empty() && alocal == "xmlns" {
                if self.value == NS_XML_URI || self.value == NS_XMLNS_URI {
                    let msg = "a reserved namespace URI as the default namespace".to_string();
                    return Err(self.fail_in(raw, 1, at, msg));
                }
            } else {
                let pstart = aprefix.as_ptr() as usize - s.as_ptr() as usize;
                let lstart = alocal.as_ptr() as usize - s.as_ptr() as usize;
                self.seen_attrs
                    .push((at, pstart, aprefix.len(), lstart, alocal.len()));
                if aprefix.is_empty() {
                    self.attrs.push(alocal, &self.value);
                }
            }
        }
        // Prefixes (the element's and its attributes') against the namespaces in scope, and
        // attributes given twice (after namespace resolution).
        if !prefix.is_empty() && self.uri(prefix).is_none() {
            let msg = format!("unknown namespace prefix '{prefix}'");
            return Err(self.fail_in(raw, 1, 0, msg));
        }
        for k in 0..self.seen_attrs.len() {
            let (at, p0, pl, l0, ll) = self.seen_attrs[k];
            let uri_of = |this: &Self, p: &str| -> Result<Option<String>, ()> {
                match p {
                    "" => Ok(None),
                    "xml" => Ok(Some(NS_XML_URI.to_string())),
                    p => this.uri(p).map(|u| Some(u.to_string())).ok_or(()),
                }
            };
            let (aprefix, alocal) = (&s[p0..p0 + pl], &s[l0..l0 + ll]);
            let Ok(uri) = uri_of(self, aprefix) else {
                let msg = format!("unknown namespace prefix '{aprefix}'");
                return Err(self.fail_in(raw, 1, at, msg));
            };
            for j in 0..k {
                let (_, q0, ql, m0, ml) = self.seen_attrs[j];
                if &s[m0..m0 + ml] == alocal && uri_of(self, &s[q0..q0 + ql]) == Ok(uri.clone()) {
                    let msg = format!("attribute '{alocal}' given twice");
                    return Err(self.fail_in(raw, 1, at, msg));
                }
            }
        }
        self.local.clear();
        self.local.push_str(local);
        let qlen = local.as_ptr() as usize - s.as_ptr() as usize + local.len();
        self.open(s.get(..qlen).unwrap_or_default(), empty);
        Ok(())
    }

    /// Declare `xmlns:prefix="uri"` on the element at `depth`; a message when not allowed.
    fn declare(&mut self, prefix: &str, uri: &str, depth: usize) -> Option<&'static str> {
        if uri == NS_XMLNS_URI {
            return Some("the xmlns namespace URI cannot be declared");
        }
        if prefix == "xml" && uri != NS_XML_URI {
            return Some("the 'xml' prefix bound to another URI");
        }
        if prefix != "xml" && uri == NS_XML_URI {
            return Some("the xml namespace URI bound to another prefix");
        }
        let dup = self
            .namespaces
            .iter()
            .rev()
            .take_while(|n| n.2 == depth)
            .any(|n| n.0 == prefix);
        if dup {
            return Some("a namespace prefix declared twice on one element");
        }
        if uri != NS_XML_URI {
            self.namespaces
                .push((prefix.to_string(), uri.to_string(), depth));
        }
        None
    }

    fn uri(&self, prefix: &str) -> Option<&str> {
        self.namespaces
            .iter()
            .rev()
            .find(|n| n.0 == prefix)
            .map(|n| n.1.as_str())
    }

    fn pop_namespaces(&mut self, depth: usize) {
        while self.namespaces.last().is_some_and(|n| n.2 >= depth) {
            self.namespaces.pop();
        }
    }

    fn end_tag(&mut self, s: &str) -> Res<()> {
        let raw = s.as_bytes();
        if self.phase == Phase::Content && raw == self.open_name().as_bytes() {
            // The name of the open element, checked when it was opened.
            return self.close();
        }
        let mut cur = Cur { s, i: 0 };
        let closing = match cur.qname() {
            Ok(q) => q,
            Err(i) => return Err(self.fail_in(raw, 2, i, "invalid name in a closing tag".into())),
        };
        let name_end = cur.i;
        cur.skip_spaces();
        if !cur.at_end() {
            let i = cur.i;
            return Err(self.fail_in(raw, 2, i, "expected '>' in a closing tag".into()));
        }
        let name = &s[..name_end];
        if self.phase != Phase::Content {
            return Err(self.fail(
                self.at,
                format!("closing tag </{name}> without an opening tag"),
            ));
        }
        // Names match as (prefix, local) pairs, as roxmltree compares them: `</:a>` closes
        // `<a>` (an empty prefix before the colon).
        let open = self.open_name();
        let opened = open.split_once(':').unwrap_or(("", open));
        if closing != opened {
            let msg = format!("expected </{open}>, found </{name}>");
            return Err(self.fail(self.at, msg));
        }
        self.close()
    }

    /// The innermost open element ends.
    fn close(&mut self) -> Res<()> {
        let start = self.open_starts.pop().unwrap_or(0);
        self.open_names.truncate(start);
        let depth = self.open_starts.len();
        self.pop_namespaces(depth);
        if depth == 0 {
            self.phase = Phase::Epilog;
        }
        Ok(())
    }
}

/// roxmltree's attribute-value normalisation: references replaced (their characters as is),
/// `\r\n` and blanks to spaces. `Err` (byte, message).
fn normalize_attribute(value: &str, out: &mut String) -> Result<(), (usize, String)> {
    out.clear();
    let b = value.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // A run of plain characters (the special ones are ASCII: slicing there is safe).
        let k = b[i..]
            .iter()
            .position(|&c| matches!(c, b'&' | b'\r' | b'\n' | b'\t'))
            .map_or(b.len(), |k| i + k);
        out.push_str(value.get(i..k).unwrap_or_default());
        i = k;
        let Some(&c) = b.get(i) else {
            break;
        };
        if c == b'&' {
            let Some(k) = memchr::memchr(b';', &b[i..]) else {
                return Err((i, "malformed reference".into()));
            };
            let ch = reference(value.get(i + 1..i + k).unwrap_or_default()).map_err(|m| (i, m))?;
            out.push(ch);
            i += k + 1;
            continue;
        }
        i += 1;
        if c == b'\r' && b.get(i) == Some(&b'\n') {
            continue;
        }
        out.push(' ');
    }
    Ok(())
}

/// roxmltree's XML declaration grammar on `s` (the text between `<?` and `?>`, starting with
/// `xml `). `Err` (byte, message).
fn declaration(s: &str) -> Result<(), (usize, &'static str)> {
    let mut cur = Cur { s, i: 3 };
    let spaces = |cur: &mut Cur| -> Result<(), (usize, &'static str)> {
        if !cur.skip_spaces() && !cur.at_end() {
            return Err((cur.i, "expected a blank in the XML declaration"));
        }
        Ok(())
    };
    let attribute = |cur: &mut Cur| -> Result<(), (usize, &'static str)> {
        cur.qname()
            .map_err(|i| (i, "invalid name in the XML declaration"))?;
        let v = cur.attr_value()?;
        if bad_char(v.as_bytes()).is_some() {
            return Err((cur.i, "a character not allowed in XML"));
        }
        Ok(())
    };
    spaces(&mut cur)?;
    if !cur.starts_with("version") {
        return Err((cur.i, "the XML declaration has no version"));
    }
    attribute(&mut cur)?;
    spaces(&mut cur)?;
    if cur.starts_with("encoding") {
        attribute(&mut cur)?;
        spaces(&mut cur)?;
    }
    if cur.starts_with("standalone") {
        attribute(&mut cur)?;
    }
    cur.skip_spaces();
    if !cur.at_end() {
        return Err((cur.i, "unexpected text in the XML declaration"));
    }
    Ok(())
}
