//! A streaming, checking XML layer over `quick-xml`: it accepts exactly the documents the
//! previous whole-file reader (`roxmltree` with its default options) accepted, hands the PNML
//! layer a small stream of items (element starts with their attributes, ends, text, other
//! nodes), and says where (line, column) anything is.
//!
//! `quick-xml` finds where each piece of markup ends; this layer checks what it does not (XML
//! names, attribute syntax, character and entity references, characters allowed in XML,
//! namespace prefixes, one root element, comments, the XML declaration, no DTD) and decodes text
//! and attribute values (references, line-end and attribute-value normalisation) as `roxmltree`
//! does. Positions are counted as the bytes go by ([`Counting`]), so nothing of the document is
//! kept once it has been read.

use std::io::{self, BufRead, Read};

use quick_xml::events::Event;

/// A position in the document: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    /// The position after the characters of `bytes`, starting here.
    fn advanced(mut self, bytes: &[u8]) -> Pos {
        match memchr::memrchr(b'\n', bytes) {
            Some(i) => {
                let lines = memchr::memchr_iter(b'\n', &bytes[..=i]).count();
                self.line = self.line.saturating_add(lines as u32);
                self.col = 1u32.saturating_add(chars(&bytes[i + 1..]));
            }
            None => self.col = self.col.saturating_add(chars(bytes)),
        }
        self
    }
}

/// The number of characters in UTF-8 `bytes` (bytes that do not continue a character).
fn chars(bytes: &[u8]) -> u32 {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u32
}

/// The counting state of [`Counting`].
#[derive(Clone, Copy)]
pub(crate) struct Track {
    /// Bytes consumed so far.
    pub offset: u64,
    /// The position after the bytes consumed so far.
    pub pos: Pos,
    /// The position just after the last non-blank character consumed.
    pub content_end: Pos,
    /// The position of the last `<` consumed (where the markup being read starts).
    pub last_lt: Pos,
    /// The first byte that is not UTF-8 (as `str::from_utf8` reports it on the whole input).
    pub utf8_error: Option<u64>,
    /// The start of a character cut by the end of the last consumed chunk.
    pending: [u8; 4],
    npending: usize,
}

impl Track {
    fn new() -> Self {
        Track {
            offset: 0,
            pos: Pos { line: 1, col: 1 },
            content_end: Pos { line: 1, col: 1 },
            last_lt: Pos { line: 1, col: 1 },
            utf8_error: None,
            pending: [0; 4],
            npending: 0,
        }
    }

    /// At the end of the input: a character cut short is not UTF-8.
    fn finish(&mut self) {
        if self.npending > 0 && self.utf8_error.is_none() {
            self.utf8_error = Some(self.offset - self.npending as u64);
            self.npending = 0;
        }
    }

    fn check_utf8(&mut self, mut chunk: &[u8], mut at: u64) {
        if self.utf8_error.is_some() {
            return;
        }
        if self.npending > 0 {
            let start = at - self.npending as u64;
            let len = match self.pending[0] {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            let take = (len - self.npending).min(chunk.len());
            self.pending[self.npending..self.npending + take].copy_from_slice(&chunk[..take]);
            self.npending += take;
            chunk = &chunk[take..];
            at += take as u64;
            if self.npending < len {
                return;
            }
            self.npending = 0;
            if std::str::from_utf8(&self.pending[..len]).is_err() {
                self.utf8_error = Some(start);
                return;
            }
        }
        if let Err(e) = std::str::from_utf8(chunk) {
            let valid = e.valid_up_to();
            if e.error_len().is_none() {
                let rest = &chunk[valid..];
                self.pending[..rest.len()].copy_from_slice(rest);
                self.npending = rest.len();
            } else {
                self.utf8_error = Some(at + valid as u64);
            }
        }
    }

    fn track(&mut self, chunk: &[u8]) {
        // One pass: lines, columns, the last `<` and the last non-blank character.
        let mut pos = self.pos;
        let mut ascii = true;
        for &b in chunk {
            match b {
                b'\n' => {
                    pos.line = pos.line.saturating_add(1);
                    pos.col = 1;
                }
                b' ' | b'\t' | b'\r' | b'\x0C' => pos.col = pos.col.saturating_add(1),
                b'<' => {
                    self.last_lt = pos;
                    pos.col = pos.col.saturating_add(1);
                    self.content_end = pos;
                }
                0x80.. => {
                    ascii = false;
                    if b >= 0xC0 {
                        pos.col = pos.col.saturating_add(1);
                    }
                    self.content_end = pos;
                }
                _ => {
                    pos.col = pos.col.saturating_add(1);
                    self.content_end = pos;
                }
            }
        }
        self.pos = pos;
        if !ascii || self.npending > 0 {
            self.check_utf8(chunk, self.offset);
        }
        self.offset += chunk.len() as u64;
    }
}

/// A [`BufRead`] that counts lines and columns of what is consumed, remembers where the last
/// non-blank character ended, and checks that the bytes are UTF-8.
pub(crate) struct Counting<R> {
    inner: R,
    pub track: Track,
}

impl<R: BufRead> Counting<R> {
    /// Read and check the rest of the input (after a syntax error, a UTF-8 error further on
    /// still comes first, as it did when the whole file was decoded before parsing).
    fn drain(&mut self) -> io::Result<()> {
        while self.track.utf8_error.is_none() {
            let n = self.fill_buf()?.len();
            if n == 0 {
                break;
            }
            self.consume(n);
        }
        self.track.finish();
        Ok(())
    }
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        // The bytes about to be consumed are still at the start of the inner buffer.
        let Counting { inner, track } = self;
        if let Ok(b) = inner.fill_buf() {
            track.track(&b[..n.min(b.len())]);
        }
        inner.consume(n);
    }
}

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
        for &(n1, v1) in &self.ends {
            if &self.names[n0..n1] == name {
                return Some(&self.values[v0..v1]);
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
pub(crate) struct Scanner<R: BufRead> {
    reader: quick_xml::Reader<Counting<R>>,
    buf: Vec<u8>,
    phase: Phase,
    /// Qualified names of the open elements, concatenated, and where each starts.
    open_names: Vec<u8>,
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
    value: Vec<u8>,
    cr: Cr,
    /// The byte after a character reference is taken as is (roxmltree's `is_as_is`).
    as_is: bool,
    /// The end of a text node to hand out before the item in `pending`.
    flush: Option<&'static str>,
    pending: Option<Pending>,
    /// The position where the current event starts.
    at: Pos,
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

fn is_xml_char(c: char) -> bool {
    if (c as u32) < 0x20 {
        return matches!(c, '\t' | '\n' | '\r');
    }
    !matches!(c as u32, 0xFFFE | 0xFFFF)
}

/// The first byte of a character not allowed in XML documents, if any.
fn bad_char(s: &[u8]) -> Option<usize> {
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
            let c = b as char;
            if c == ':' {
                if split.is_some() {
                    return Err(start);
                }
                split = Some(self.i);
            } else if !is_name_char(c) {
                break;
            }
            self.i += c.len_utf8();
        }
        let (prefix, local) = match split {
            Some(k) => (&self.s[start..k], &self.s[k + 1..self.i]),
            None => (&self.s[start..start], &self.s[start..self.i]),
        };
        let starts_ok = |t: &str| t.chars().next().is_some_and(is_name_start);
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

impl<R: BufRead> Scanner<R> {
    pub fn new(input: R) -> Self {
        let mut reader = quick_xml::Reader::from_reader(Counting {
            inner: input,
            track: Track::new(),
        });
        let cfg = reader.config_mut();
        cfg.check_end_names = false;
        cfg.allow_unmatched_ends = true;
        cfg.check_comments = false;
        cfg.trim_markup_names_in_closing_tags = false;
        Scanner {
            reader,
            buf: Vec::with_capacity(1 << 12),
            phase: Phase::Start,
            open_names: Vec::new(),
            open_starts: Vec::new(),
            namespaces: Vec::new(),
            attrs: Attrs::default(),
            local: String::new(),
            text: Vec::new(),
            seen_attrs: Vec::new(),
            value: Vec::new(),
            cr: Cr::None,
            as_is: false,
            flush: None,
            pending: None,
            at: Pos { line: 1, col: 1 },
        }
    }

    fn track(&self) -> &Track {
        &self.reader.get_ref().track
    }

    /// The error for the document: a UTF-8 error anywhere comes first (the rest of the input
    /// is read to look for one), then this syntax error.
    fn fail(&mut self, at: Pos, message: String) -> Fail {
        let c = self.reader.get_mut();
        if let Err(e) = c.drain() {
            return Fail::Io(e.to_string());
        }
        match c.track.utf8_error {
            Some(b) => Fail::Utf8(b),
            None => Fail::Syntax(at, message),
        }
    }

    /// A syntax error at byte `i` of `content`, which starts `skip` characters after the
    /// current event's start.
    fn fail_in(&mut self, content: &[u8], skip: u32, i: usize, message: String) -> Fail {
        let mut at = self.at;
        at.col += skip;
        let at = at.advanced(&content[..i.min(content.len())]);
        self.fail(at, message)
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
            let mut buf = std::mem::take(&mut self.buf);
            buf.clear();
            let step = self.step(&mut buf);
            self.buf = buf;
            match step? {
                Step::Skip => continue,
                Step::RawText => {
                    return Ok(Item::Text(std::str::from_utf8(&self.buf).unwrap_or("")))
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

    /// Read one event and check it.
    fn step(&mut self, buf: &mut Vec<u8>) -> Res<Step> {
        let first = self.phase == Phase::Start;
        if first {
            // A byte-order mark is skipped (and counted as a character of line 1).
            let c = self.reader.get_mut();
            if c.fill_buf().is_ok_and(|b| b.starts_with(b"\xEF\xBB\xBF")) {
                c.consume(3);
            }
            self.phase = Phase::Prolog;
        }
        self.at = self.track().pos;
        let ev = self.reader.read_event_into(buf);
        if let Some(b) = self.track().utf8_error {
            return Err(Fail::Utf8(b));
        }
        let ev = match ev {
            Ok(ev) => ev,
            Err(quick_xml::Error::Io(e)) => return Err(Fail::Io(e.to_string())),
            Err(e) => {
                let at = match e {
                    quick_xml::Error::Syntax(_) => self.track().content_end,
                    _ => self.at,
                };
                let msg = e.to_string().replace(['\n', '\r', '\t'], " ");
                return Err(self.fail(at, msg));
            }
        };
        match ev {
            Event::Text(t) => return self.text_piece(&t),
            Event::GeneralRef(r) => {
                self.reference_item(&r)?;
                return Ok(Step::Text);
            }
            _ => {}
        }
        // Markup: the text node before it (if any) ends here; it starts at its `<`.
        self.flush = self.end_text();
        if !matches!(ev, Event::Eof) {
            self.at = self.track().last_lt;
        }
        let p = match ev {
            Event::Start(s) => {
                self.start_tag(&s, false)?;
                Pending::Start {
                    empty: false,
                    at: self.at,
                }
            }
            Event::Empty(s) => {
                self.start_tag(&s, true)?;
                Pending::Start {
                    empty: true,
                    at: self.at,
                }
            }
            Event::End(e) => {
                self.end_tag(&e)?;
                Pending::End
            }
            Event::Comment(c) => {
                self.comment(&c)?;
                Pending::Other
            }
            Event::PI(pi) => {
                self.pi(&pi, false)?;
                Pending::Other
            }
            Event::Decl(d) => {
                self.pi(&d, first)?;
                Pending::Other
            }
            Event::CData(c) => {
                if self.phase != Phase::Content {
                    return Err(self.fail(self.at, "CDATA outside the root element".into()));
                }
                self.cdata(&c)?;
                Pending::Cdata
            }
            Event::DocType(_) => {
                return Err(self.fail(self.at, "a DTD (<!DOCTYPE>) is not supported".into()))
            }
            Event::Eof => {
                self.reader.get_mut().track.finish();
                if let Some(b) = self.track().utf8_error {
                    return Err(Fail::Utf8(b));
                }
                let end = self.track().content_end;
                match self.phase {
                    Phase::Content => {
                        let name = self.open_name().to_string();
                        return Err(self.fail(end, format!("the document ends inside <{name}>")));
                    }
                    Phase::Start | Phase::Prolog => {
                        return Err(self.fail(end, "the document has no root element".into()))
                    }
                    Phase::Epilog => Pending::Eof,
                }
            }
            Event::Text(_) | Event::GeneralRef(_) => unreachable!("handled above"),
        };
        Ok(Step::Markup(p))
    }

    /// The qualified name of the innermost open element.
    fn open_name(&self) -> &str {
        let start = self.open_starts.last().copied().unwrap_or(0);
        std::str::from_utf8(&self.open_names[start..]).unwrap_or("")
    }

    fn text_piece(&mut self, raw: &[u8]) -> Res<Step> {
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
        if let Some(i) = memchr::memmem::find(raw, b"]]>") {
            return Err(self.fail_in(raw, 0, i, "']]>' in text".into()));
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

    fn reference_item(&mut self, body: &[u8]) -> Res<()> {
        if self.phase != Phase::Content {
            return Err(self.fail(self.at, "a reference outside the root element".into()));
        }
        let c = std::str::from_utf8(body)
            .map_err(|_| String::new())
            .and_then(reference);
        let c = match c {
            Ok(c) => c,
            Err(msg) => return Err(self.fail(self.at, msg)),
        };
        self.text.clear();
        let mut tmp = [0u8; 4];
        for &b in c.encode_utf8(&mut tmp).as_bytes() {
            self.push_raw(b);
        }
        self.as_is = true;
        Ok(())
    }

    fn cdata(&mut self, raw: &[u8]) -> Res<()> {
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

    fn comment(&mut self, raw: &[u8]) -> Res<()> {
        if let Some(i) = memchr::memmem::find(raw, b"--") {
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
    fn pi(&mut self, raw: &[u8], at_start: bool) -> Res<()> {
        if let Some(i) = bad_char(raw) {
            let msg = format!("a character not allowed in XML (byte 0x{:02X})", raw[i]);
            return Err(self.fail_in(raw, 2, i, msg));
        }
        let s = std::str::from_utf8(raw).unwrap_or("");
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

    fn start_tag(&mut self, raw: &[u8], empty: bool) -> Res<()> {
        if self.phase == Phase::Epilog {
            return Err(self.fail(self.at, "a second root element".into()));
        }
        self.phase = Phase::Content;
        let s = std::str::from_utf8(raw).unwrap_or("");
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
                let v = String::from_utf8_lossy(&self.value).into_owned();
                if let Some(msg) = self.declare(alocal, &v, depth) {
                    return Err(self.fail_in(raw, 1, at, msg.into()));
                }
            } else if aprefix.is_empty() && alocal == "xmlns" {
                if self.value == NS_XML_URI.as_bytes() || self.value == NS_XMLNS_URI.as_bytes() {
                    let msg = "a reserved namespace URI as the default namespace".to_string();
                    return Err(self.fail_in(raw, 1, at, msg));
                }
            } else {
                let pstart = aprefix.as_ptr() as usize - s.as_ptr() as usize;
                let lstart = alocal.as_ptr() as usize - s.as_ptr() as usize;
                self.seen_attrs
                    .push((at, pstart, aprefix.len(), lstart, alocal.len()));
                if aprefix.is_empty() {
                    let v = std::str::from_utf8(&self.value).unwrap_or("");
                    self.attrs.push(alocal, v);
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
        if empty {
            self.pop_namespaces(depth);
            if depth == 0 {
                self.phase = Phase::Epilog;
            }
        } else {
            self.open_starts.push(self.open_names.len());
            let qlen = local.as_ptr() as usize - s.as_ptr() as usize + local.len();
            self.open_names.extend_from_slice(&raw[..qlen]);
        }
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

    fn end_tag(&mut self, raw: &[u8]) -> Res<()> {
        let s = std::str::from_utf8(raw).unwrap_or("");
        let mut cur = Cur { s, i: 0 };
        if let Err(i) = cur.qname() {
            return Err(self.fail_in(raw, 2, i, "invalid name in a closing tag".into()));
        }
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
        if name != self.open_name() {
            let msg = format!("expected </{}>, found </{name}>", self.open_name());
            return Err(self.fail(self.at, msg));
        }
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
fn normalize_attribute(value: &str, out: &mut Vec<u8>) -> Result<(), (usize, String)> {
    out.clear();
    let b = value.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'&' {
            let Some(k) = memchr::memchr(b';', &b[i..]) else {
                return Err((i, "malformed reference".into()));
            };
            let ch = reference(&value[i + 1..i + k]).map_err(|m| (i, m))?;
            let mut tmp = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
            i += k + 1;
            continue;
        }
        i += 1;
        if c == b'\r' && b.get(i) == Some(&b'\n') {
            continue;
        }
        out.push(if matches!(c, b'\n' | b'\r' | b'\t') {
            b' '
        } else {
            c
        });
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
