//! Errors that point into the user's input: the file (or the flag whose
//! text it was), line and column, with the offending text underlined
//! (rendered by `miette`).

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, NamedSource, SourceSpan};
use std::io::IsTerminal;
use synth::parse::Span;

/// An error at a place of an input text.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{msg}")]
pub struct SourceError {
    /// What is wrong, in the user's terms.
    pub msg: String,
    /// `name:line:column`, for the one-line form.
    pub place: String,
    #[source_code]
    src: NamedSource<String>,
    #[label("{label}")]
    span: SourceSpan,
    label: String,
    /// The line is too long to show.
    long_line: bool,
}

/// Byte offset of 1-based `line`, 1-based byte `col` in `text` (lines as
/// `str::lines` counts them), clipped to the line; and the line's length.
fn offset_of(text: &str, line: usize, col: usize, len: usize) -> (usize, usize, usize) {
    let mut start = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let body = l.trim_end_matches('\n').trim_end_matches('\r');
            let c = col.saturating_sub(1).min(body.len());
            let n = len.min(body.len() - c);
            return (start + c, n, body.len());
        }
        start += l.len();
    }
    (text.len(), 0, 0)
}

impl SourceError {
    /// An error about `span` of `text`, the contents of `name` (a path, or
    /// a flag such as `--src`). `label` goes under the underlined text.
    pub fn new(name: &str, text: &str, span: Span, msg: impl Into<String>, label: &str) -> Self {
        let col = span.col.max(1);
        let (off, len, line_len) = offset_of(text, span.line.max(1), col, span.len);
        // the column in characters, as editors count it
        let ccol = text
            .get(off + 1 - col.min(off + 1)..off)
            .map(|t| t.chars().count() + 1)
            .unwrap_or(col);
        let place = if span.col > 0 {
            format!("{name}:{}:{ccol}", span.line)
        } else {
            format!("{name}:{}", span.line)
        };
        SourceError {
            msg: msg.into(),
            place,
            src: NamedSource::new(name, text.to_string()),
            span: SourceSpan::new(off.into(), len),
            label: label.to_string(),
            long_line: line_len > 1000,
        }
    }

    /// The snippet with the underlined text (colours only on a terminal);
    /// empty where the line is too long to show (over 1000 bytes).
    pub fn render(&self) -> String {
        if self.long_line {
            return String::new();
        }
        let theme = if std::io::stderr().is_terminal() {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let mut s = String::new();
        let h = GraphicalReportHandler::new_themed(theme).with_width(120);
        if h.render_report(&mut s, self).is_err() {
            return String::new();
        }
        s
    }

    /// The source lines of [`SourceError::render`] with the offending text
    /// underlined, without the message line it repeats (empty where the
    /// line is too long to show).
    pub fn snippet(&self) -> String {
        let r = self.render();
        let body: Vec<&str> = r.lines().skip_while(|l| !l.contains("╭─[")).collect();
        body.join("\n")
    }
}
