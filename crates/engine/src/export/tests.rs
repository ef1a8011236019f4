use super::*;
use crate::model::{NewFeed, UserWrite};

/// A store with one feed ("Long Reads") and entries (id, title, published).
fn store(dir: &Path, entries: &[(i64, &str)]) -> Connection {
    let mut conn = crate::store::open_write(&dir.join("t.db")).unwrap();
    let feed = NewFeed {
        url: "http://example.com/feed".into(),
        title: Some("Long Reads".into()),
        name: None,
        site_url: None,
        folder: vec![],
    };
    crate::store::apply(&mut conn, &UserWrite::Import { feeds: vec![feed], folders: vec![] }, 0).unwrap();
    for (id, title) in entries {
        conn.execute(
            "INSERT INTO entries (id, feed_id, key, title, link, content_html, published_at, first_seen_at, sort_at)
             VALUES (?1, 1, ?1, ?2, 'http://example.com/' || ?1, '<p>Body <a href=\"/x\">x</a></p>', 1767323045, 1, 1)",
            rusqlite::params![id, title],
        )
        .unwrap();
    }
    conn
}

#[test]
fn each_entry_becomes_a_file_named_by_the_template_and_same_names_stay_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let conn = store(tmp.path(), &[(1, "Same"), (2, "Same"), (3, "../../escape")]);
    let out = tmp.path().join("out");
    let done =
        to_files(&conn, &[EntryId(1), EntryId(2), EntryId(3), EntryId(99)], &out, markdown::DEFAULT_TEMPLATE).unwrap();
    assert_eq!(
        done.written,
        ["Long Reads/2026-01-02-Same.md", "Long Reads/2026-01-02-Same-2.md", "Long Reads/2026-01-02-escape.md"]
    );
    assert_eq!(done.missing, 1);
    let text = std::fs::read_to_string(out.join("Long Reads/2026-01-02-Same-2.md")).unwrap();
    assert!(text.starts_with("---\ntitle: \"Same\"\n"), "{text}");
    assert!(text.contains("Body [x][1]\n\n[1]: <http://example.com/x>\n"), "{text}");
    // Nothing was written outside the folder.
    let outside: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(
        outside.len(),
        2 + usize::from(tmp.path().join("t.db-wal").exists()) + usize::from(tmp.path().join("t.db-shm").exists()),
        "{outside:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_link_planted_in_the_folder_is_not_followed_and_the_others_are_written() {
    let tmp = tempfile::tempdir().unwrap();
    let conn = store(tmp.path(), &[(1, "One")]);
    let out = tmp.path().join("out");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("Long Reads")).unwrap();
    let done = to_files(&conn, &[EntryId(1)], &out, markdown::DEFAULT_TEMPLATE).unwrap();
    assert!(done.written.is_empty());
    assert_eq!(done.failed.len(), 1);
    assert!(
        done.failed[0].starts_with("One (Long Reads/2026-01-02-One.md): its folder is a link"),
        "{:?}",
        done.failed
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    let done = to_files(&conn, &[EntryId(1)], &out, "{id}.md").unwrap();
    assert_eq!(done.written, ["1.md"]);
}

#[test]
fn a_template_leading_out_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let conn = store(tmp.path(), &[(1, "One")]);
    let err = to_files(&conn, &[EntryId(1)], &tmp.path().join("out"), "../{title}.md").unwrap_err();
    assert!(err.to_string().contains("must not contain . or .."), "{err}");
    assert!(!tmp.path().join("out").exists());
}

#[test]
fn piped_text_is_every_document_or_every_address() {
    let tmp = tempfile::tempdir().unwrap();
    let conn = store(tmp.path(), &[(1, "One"), (2, "Two")]);
    let addresses = to_text(&conn, &[EntryId(2), EntryId(1)], true).unwrap();
    assert_eq!(addresses, "http://example.com/2\nhttp://example.com/1\n");
    let text = to_text(&conn, &[EntryId(1), EntryId(2)], false).unwrap();
    assert_eq!(text.matches("---\ntitle:").count(), 2);
    assert!(text.find("\"One\"").unwrap() < text.find("\"Two\"").unwrap());
}
