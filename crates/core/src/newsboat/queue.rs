//! podboat's `queue` file in tidings's terms: a line per download, `URL "FILE" [STATE]` as podboat writes it
//! (`QueueLoader::write_queue_file`), words split and quoted as newsboat's `tokenize_quoted` does. The state is
//! one of podboat's four marks — `downloaded`, `played`, `finished`, `missing` — or none (queued). A line with
//! only the address is one newsboat queued (podboat names its file itself); an unknown mark reads as queued, as
//! podboat reads it.

use super::tokenize;

/// Where podboat had a download.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodboatState {
    /// No mark: waiting to be downloaded.
    Queued,
    /// `downloaded`: the file is on disk.
    Downloaded,
    /// `played`: on disk, and played.
    Played,
    /// `finished`: played, and to be deleted when podboat next cleans up.
    Finished,
    /// `missing`: podboat had it, and its file is gone.
    Missing,
}

/// One line of the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueLine {
    pub line: usize,
    pub url: String,
    /// The file, as podboat named it; `None` for a line with the address alone.
    pub file: Option<String>,
    pub state: PodboatState,
}

/// The lines of a queue file, and those that are not a download: (line, its text, why).
pub fn parse(text: &str) -> (Vec<QueueLine>, Vec<(usize, String, String)>) {
    let mut lines = Vec::new();
    let mut skipped = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let words = tokenize(raw);
        let Some(url) = words.first().filter(|u| u.contains("://")) else {
            skipped.push((
                i + 1,
                raw.trim().to_string(),
                "not a download: the line does not start with an address".into(),
            ));
            continue;
        };
        let state = match words.get(2).map(String::as_str) {
            Some("downloaded") => PodboatState::Downloaded,
            Some("played") => PodboatState::Played,
            Some("finished") => PodboatState::Finished,
            Some("missing") => PodboatState::Missing,
            _ => PodboatState::Queued,
        };
        let file = words.get(1).filter(|f| !f.is_empty()).cloned();
        lines.push(QueueLine { line: i + 1, url: url.clone(), file, state });
    }
    (lines, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_podboat_writes_is_read() {
        let text = "http://a/1.mp3 \"/home/me/pod/1.mp3\"\n\
                    http://a/2.mp3 \"/home/me/pod/2.mp3\" downloaded\n\
                    http://a/3.mp3 \"/home/me/pod/3.mp3\" played\n\
                    http://a/4.mp3 \"/home/me/pod/4.mp3\" finished\n\
                    http://a/5.mp3 \"/home/me/pod/5.mp3\" missing\n\
                    \n\
                    http://a/6.mp3\n\
                    not a line\n";
        let (lines, skipped) = parse(text);
        let states: Vec<PodboatState> = lines.iter().map(|l| l.state).collect();
        use PodboatState::*;
        assert_eq!(states, [Queued, Downloaded, Played, Finished, Missing, Queued]);
        assert_eq!(lines[1].file.as_deref(), Some("/home/me/pod/2.mp3"));
        assert_eq!(lines[5].file, None);
        assert_eq!(lines[5].line, 7);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].0, 8);
    }

    #[test]
    fn quoted_names_keep_their_spaces_and_quotes() {
        let (lines, _) = parse(r#"http://a/x.mp3 "/pod/My \"best\" show.mp3" downloaded"#);
        assert_eq!(lines[0].file.as_deref(), Some(r#"/pod/My "best" show.mp3"#));
        assert_eq!(lines[0].state, PodboatState::Downloaded);
    }
}
