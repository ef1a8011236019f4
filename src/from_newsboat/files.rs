//! newsboat's text files (`urls`, `config`) read a line at a time within bounds: a line longer than
//! [`MAX_LINE_BYTES`] is skipped as it is read (never held whole), the text kept is at most [`MAX_TEXT_BYTES`],
//! and reading stops after [`MAX_READ_BYTES`] in all (a file that never ends, such as a device). What was left
//! out is said by line number, and the import carries the rest over.

use super::NewsboatError;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The longest line kept: a feed's address with its tags, or a setting, never needs more.
const MAX_LINE_BYTES: usize = 64 * 1024;
/// The most text kept of one file (some 600,000 subscriptions of a hundred bytes each).
const MAX_TEXT_BYTES: usize = 64 * 1024 * 1024;
/// The most bytes read from one file, the skipped lines' included.
const MAX_READ_BYTES: u64 = 4 * 1024 * 1024 * 1024;
/// How much of a skipped line the report shows.
const SHOWN_BYTES: usize = 100;

/// A file's lines, as far as they were read.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Lines {
    /// The lines kept, a skipped one left empty so that every line keeps its number.
    pub(super) text: String,
    /// What was left out: (line, its beginning, why).
    pub(super) skipped: Vec<(usize, String, String)>,
}

/// Reads the file at `path` (what is not UTF-8 is read with replacement characters).
pub(super) fn read(path: &Path) -> Result<Lines, NewsboatError> {
    let failed = |source| NewsboatError::Read { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(failed)?;
    lines(BufReader::with_capacity(MAX_LINE_BYTES, file), MAX_TEXT_BYTES, MAX_READ_BYTES).map_err(failed)
}

fn lines(reader: impl BufRead, max_text: usize, max_read: u64) -> std::io::Result<Lines> {
    let mut reader = reader.take(max_read);
    let mut out = Lines::default();
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        // One byte more than a line may hold, besides its newline: a line that fills it is too long.
        let read = (&mut reader).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line)?;
        let ended = line.last() == Some(&b'\n');
        if read == 0 || !ended && reader.limit() == 0 {
            // The end, or as far as a file is read: a line cut there is not taken for a whole one.
            if reader.limit() == 0 {
                let why = format!("not read, nor anything after it: reading stops after {} MB", max_read >> 20);
                out.skipped.push((number, String::new(), why));
            }
            break;
        }
        let content = &line[..line.len() - usize::from(ended)];
        if content.len() > MAX_LINE_BYTES {
            if !ended {
                reader.skip_until(b'\n')?;
            }
            let mut shown = String::from_utf8_lossy(&content[..SHOWN_BYTES]).into_owned();
            shown.push('…');
            let why = format!(
                "skipped: the line is longer than {} KB, more than a feed or a setting needs",
                MAX_LINE_BYTES >> 10
            );
            out.skipped.push((number, shown, why));
            out.text.push('\n');
            continue;
        }
        if out.text.len() + content.len() > max_text {
            out.skipped.push((
                number,
                String::new(),
                format!("not read, nor the lines after it: the file holds more than {} MB", max_text >> 20),
            ));
            break;
        }
        out.text.push_str(&String::from_utf8_lossy(content));
        out.text.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &[u8], max_text: usize, max_read: u64) -> Lines {
        lines(text, max_text, max_read).unwrap()
    }

    #[test]
    fn a_line_too_long_is_skipped_and_the_others_keep_their_numbers() {
        let long = "x".repeat(MAX_LINE_BYTES + 1);
        let longest = "y".repeat(MAX_LINE_BYTES);
        let text = format!("a\n{long}\n{longest}\n{long}");
        let read = read_text(text.as_bytes(), MAX_TEXT_BYTES, MAX_READ_BYTES);
        assert_eq!(read.text, format!("a\n\n{longest}\n\n"));
        let skipped: Vec<(usize, usize)> = read.skipped.iter().map(|s| (s.0, s.1.len())).collect();
        assert_eq!(skipped, [(2, SHOWN_BYTES + '…'.len_utf8()), (4, SHOWN_BYTES + '…'.len_utf8())]);
        assert!(read.skipped[0].2.contains("longer than 64 KB"), "{:?}", read.skipped[0]);
    }

    #[test]
    fn reading_stops_at_the_bounds_and_says_where() {
        let read = read_text(b"one\ntwo\nthree\n", 8, MAX_READ_BYTES);
        assert_eq!(read.text, "one\ntwo\n");
        assert_eq!(read.skipped.len(), 1);
        assert_eq!(read.skipped[0].0, 3);
        assert!(read.skipped[0].2.contains("more than 0 MB"), "{:?}", read.skipped);
        // A file that never ends (a device): one line too long, then the bound.
        let endless = BufReader::new(std::io::repeat(b'x'));
        let read = lines(endless, MAX_TEXT_BYTES, 1 << 20).unwrap();
        assert_eq!(read.text, "\n");
        assert_eq!(read.skipped.iter().map(|s| s.0).collect::<Vec<_>>(), [1, 2]);
        assert!(read.skipped[1].2.contains("reading stops after 1 MB"), "{:?}", read.skipped[1]);
        // A line the bound cuts is not read as a whole one.
        let read = read_text(b"one\ntwo", MAX_TEXT_BYTES, 6);
        assert_eq!((read.text.as_str(), read.skipped[0].0), ("one\n", 2));
    }
}
