//! The bytes under the XML layer: the document read in large blocks into one window, checked to
//! be UTF-8 as the blocks arrive, with line and column counted only where a position is asked
//! for. A window holds the markup or text being read and what follows it; consumed bytes are
//! dropped when the next block comes, so memory follows the longest token, not the document.

use std::io::{self, Read};

/// A position in the document: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    /// The start of a token, as the origin of positions counted within it.
    pub const ZERO: Pos = Pos { line: 0, col: 0 };

    /// The position after the characters of `bytes`, starting here.
    pub fn advanced(mut self, bytes: &[u8]) -> Pos {
        let lines = count(bytes, |b| b == b'\n');
        let tail = if lines == 0 {
            bytes
        } else {
            let i = memchr::memrchr(b'\n', bytes).unwrap_or(0);
            self.line = self.line.saturating_add(lines as u32);
            self.col = 1;
            &bytes[i + 1..]
        };
        // Characters: the bytes that do not continue one.
        let chars = count(tail, |b| (b as i8) >= -0x40);
        self.col = self.col.saturating_add(chars as u32);
        self
    }

    /// The position `rel` (counted from [`Pos::ZERO`] at this position) stands for.
    pub fn then(self, rel: Pos) -> Pos {
        if rel.line == 0 {
            Pos {
                line: self.line,
                col: self.col.saturating_add(rel.col),
            }
        } else {
            Pos {
                line: self.line.saturating_add(rel.line),
                col: rel.col,
            }
        }
    }
}

/// The number of bytes of `bytes` that `test` holds for, counted in byte-wide lanes (blocks of
/// 255 cannot overflow them), which the compiler makes vector code 16 or 32 bytes at a time.
fn count(bytes: &[u8], test: impl Fn(u8) -> bool) -> usize {
    bytes
        .chunks(255)
        .map(|c| usize::from(c.iter().fold(0u8, |n, &b| n + u8::from(test(b)))))
        .sum()
}

/// Why the bytes cannot be had.
pub(crate) enum SourceError {
    /// Not UTF-8 from this byte of the document on.
    Utf8(u64),
    /// The input could not be read.
    Io(io::Error),
}

/// The first window size; the window grows when one token does not fit.
const WINDOW: usize = 1 << 18;

/// The window over the document.
pub(crate) struct Source<R> {
    input: R,
    /// The window: the document's text from offset `base` (so every token is a `str` slice,
    /// checked once as its block arrived).
    pub buf: String,
    /// The first byte not consumed yet.
    pub start: usize,
    /// The input has no more bytes.
    pub eof: bool,
    base: u64,
    /// The start of a character cut by the end of the last block read (it comes first in the
    /// next one).
    cut_char: ([u8; 4], usize),
    /// `pos` is the position of `buf[mark]`.
    mark: usize,
    /// Just after the last non-blank byte consumed (where a document cut short ends).
    pub nonblank_end: usize,
    pos: Pos,
}

impl<R: Read> Source<R> {
    pub fn new(input: R) -> Self {
        Source {
            input,
            buf: String::new(),
            start: 0,
            eof: false,
            base: 0,
            cut_char: ([0; 4], 0),
            mark: 0,
            nonblank_end: 0,
            pos: Pos { line: 1, col: 1 },
        }
    }

    /// The end of the window's text.
    pub fn end(&self) -> usize {
        self.buf.len()
    }

    /// The bytes not consumed yet.
    pub fn rest(&self) -> &[u8] {
        self.buf.as_bytes().get(self.start..).unwrap_or_default()
    }

    /// The position of `buf[i]`. Positions are asked for in document order; were one asked
    /// for behind the last one, the last one is given.
    pub fn pos_at(&mut self, i: usize) -> Pos {
        if i > self.mark {
            if let Some(bytes) = self.buf.as_bytes().get(self.mark..i) {
                self.pos = self.pos.advanced(bytes);
                self.mark = i;
            }
        }
        self.pos
    }

    /// Read another block (dropping the consumed bytes first, growing the window when the
    /// unconsumed ones nearly fill it); `false` at the end of the input. Every byte read is
    /// checked to be UTF-8 before it is handed out.
    pub fn fill(&mut self) -> Result<bool, SourceError> {
        if self.eof {
            return Ok(false);
        }
        let mut v = std::mem::take(&mut self.buf).into_bytes();
        let cut = self.start.min(self.nonblank_end);
        if cut > 0 {
            self.pos_at_in(&v, cut);
            let cut = cut.min(self.mark);
            v.drain(..cut);
            self.start -= cut;
            self.mark -= cut;
            self.nonblank_end -= cut;
            self.base += cut as u64;
        }
        let kept = v.len();
        let (c, nc) = self.cut_char;
        v.extend_from_slice(&c[..nc]);
        self.cut_char.1 = 0;
        if v.capacity() - v.len() < WINDOW / 4 {
            v.reserve(v.len().max(WINDOW));
        }
        let old = v.len();
        v.resize(v.capacity(), 0);
        let n = loop {
            match self.input.read(&mut v[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(SourceError::Io(e)),
            }
        };
        v.truncate(old + n);
        if n == 0 {
            self.eof = true;
        }
        self.buf = match String::from_utf8(v) {
            Ok(text) => text,
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                if e.utf8_error().error_len().is_some() || self.eof || valid < kept {
                    return Err(SourceError::Utf8(self.base + valid as u64));
                }
                // A character cut by the end of the block: kept for the next one.
                let mut v = e.into_bytes();
                let tail = &v[valid..];
                self.cut_char.0[..tail.len()].copy_from_slice(tail);
                self.cut_char.1 = tail.len();
                v.truncate(valid);
                String::from_utf8(v).map_err(|e| {
                    SourceError::Utf8(self.base + e.utf8_error().valid_up_to() as u64)
                })?
            }
        };
        Ok(n > 0)
    }

    /// [`Source::pos_at`] while the window is out of `buf`.
    fn pos_at_in(&mut self, v: &[u8], i: usize) {
        if i > self.mark {
            if let Some(bytes) = v.get(self.mark..i) {
                self.pos = self.pos.advanced(bytes);
                self.mark = i;
            }
        }
    }

    /// Make at least `n` unconsumed bytes available, or all that are left.
    pub fn ensure(&mut self, n: usize) -> Result<(), SourceError> {
        while self.end() - self.start < n && self.fill()? {}
        Ok(())
    }

    /// Read and check the rest of the input, keeping none of it (after a syntax error: a UTF-8
    /// error further on still comes first, as it did when the whole file was decoded before
    /// parsing).
    pub fn drain(&mut self) -> Result<(), SourceError> {
        loop {
            self.start = self.end();
            self.mark = self.end();
            self.nonblank_end = self.end();
            if !self.fill()? {
                return Ok(());
            }
        }
    }
}
