//! The one write path: every change a person makes — from a key, a dialog or the command line — is a
//! [`UserWrite`], and [`apply`] is the only function that performs one. It runs in one transaction, which also
//! records in the change log ([`super::changes`]) what a server must hear of, so a change is either made and
//! recorded or not made at all.

use super::changes::Flag;
use super::entries;
use super::lists::{self, ListSetting};
use super::{StoreError, accounts, feeds, folders, places};
use crate::model::{Applied, UserWrite};
use rusqlite::Connection;

/// Performs one user change, in one transaction; `now` is when it was made (seconds since the epoch).
pub fn apply(conn: &mut Connection, write: &UserWrite, now: i64) -> Result<Applied, StoreError> {
    apply_with_progress(conn, write, now, &mut |_| {})
}

/// [`apply`], calling `progress` as a long import goes (with the number of subscriptions handled so far).
pub fn apply_with_progress(
    conn: &mut Connection,
    write: &UserWrite,
    now: i64,
    progress: &mut dyn FnMut(usize),
) -> Result<Applied, StoreError> {
    let tx = conn.transaction()?;
    let applied = match write {
        UserWrite::SetRead { ids, read } => {
            Applied::Flags { missing: entries::set_flag(&tx, Flag::Read, ids, *read, now)? }
        }
        UserWrite::SetStarred { ids, starred } => {
            Applied::Flags { missing: entries::set_flag(&tx, Flag::Starred, ids, *starred, now)? }
        }
        UserWrite::MarkListRead { source } => Applied::Marked(entries::mark_list_read(&tx, source, now)?),
        UserWrite::SetListOrder { source, sort, unread_only } => {
            let setting = ListSetting { sort: *sort, unread_only: *unread_only };
            lists::set_list_setting(&tx, &lists::list_key(source), setting)?;
            Applied::Done
        }
        UserWrite::AddFeed(feed) => {
            let (feed_id, added) = feeds::add(&tx, feed, now)?;
            Applied::Subscribed { feed_id, added }
        }
        UserWrite::Import { feeds: new, folders } => {
            Applied::Imported(feeds::import(&tx, new, folders, now, progress)?)
        }
        UserWrite::DeleteFeed(feed_id) => followed(&tx, now, |tx| feeds::delete(tx, *feed_id))?,
        UserWrite::RenameFeed { feed_id, title } => done(feeds::rename(&tx, *feed_id, title.as_deref(), now))?,
        UserWrite::MoveFeed { feed_id, folder } => followed(&tx, now, |tx| folders::move_feed(tx, *feed_id, folder))?,
        UserWrite::CreateFolder(path) => done(places::create(&tx, path).map(|_| ()))?,
        UserWrite::MoveFolder { folder_id, parent } => {
            followed(&tx, now, |tx| folders::move_to(tx, *folder_id, parent))?
        }
        UserWrite::RenameFolder { folder_id, name } => followed(&tx, now, |tx| folders::rename(tx, *folder_id, name))?,
        UserWrite::DeleteFolder { folder_id, with_contents } => {
            let contents = if *with_contents { folders::Contents::Delete } else { folders::Contents::MoveUp };
            followed(&tx, now, |tx| folders::delete(tx, *folder_id, contents).map(|_| ()))?
        }
        UserWrite::SetCollapsed { folder_id, collapsed } => done(folders::set_collapsed(&tx, *folder_id, *collapsed))?,
        UserWrite::SetEncodingOverride { feed_id, label } => {
            done(feeds::set_encoding_override(&tx, *feed_id, label.as_deref()))?
        }
        UserWrite::SetFeedFullText { feed_id, on } => done(feeds::set_full_text(&tx, *feed_id, *on, now))?,
        UserWrite::SetFeedHidden { feed_id, hidden } => done(feeds::set_hidden(&tx, *feed_id, *hidden))?,
        UserWrite::SetFeedTags { feed_id, tags } => done(feeds::set_tags(&tx, *feed_id, tags))?,
        UserWrite::SetFeedsPaused { feed_ids, paused } => {
            done(feed_ids.iter().try_for_each(|id| super::health::set_paused(&tx, *id, *paused)))?
        }
        UserWrite::AcceptMove(feed_id) => done(super::health::accept_move(&tx, *feed_id).map(|_| ()))?,
        UserWrite::SetPreference { name, value } => done(super::preferences::set(&tx, name, value.as_deref()))?,
        UserWrite::SaveOnServer { ids } => done(super::changes::record_saves(&tx, ids, now))?,
        UserWrite::CarryOver { feeds: carried, entries, gone } => {
            Applied::CarriedOver(super::carried::carry_over(&tx, carried, entries, gone, now)?)
        }
    };
    tx.commit()?;
    Ok(applied)
}

fn done(result: Result<(), StoreError>) -> Result<Applied, StoreError> {
    result.map(|()| Applied::Done)
}

/// Runs a change to feeds and folders, and records for each account's server what it did to the account's
/// subscriptions (a feed gone, a feed in another of its folders). A change that would take a feed across an
/// account's boundary is refused (see `folders`).
fn followed(
    tx: &Connection,
    now: i64,
    change: impl FnOnce(&Connection) -> Result<(), StoreError>,
) -> Result<Applied, StoreError> {
    let before = accounts::subscriptions(tx)?;
    change(tx)?;
    let after = accounts::subscriptions(tx)?;
    accounts::record_differences(tx, &before, &after, now)?;
    Ok(Applied::Done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EntryId, FeedId, FolderId, ListSource, NewFeed};
    use crate::store::fetches::{self, FetchRecord};
    use crate::store::fixtures::{self, entry, fetched};
    use crate::store::{StoreError, feeds};

    fn feed(url: &str, title: Option<&str>, folder: &[&str]) -> NewFeed {
        NewFeed {
            url: url.into(),
            title: title.map(str::to_string),
            name: None,
            site_url: None,
            folder: folder.iter().map(|f| f.to_string()).collect(),
        }
    }

    fn subscribe(conn: &mut Connection, new: NewFeed) -> (FeedId, bool) {
        match apply(conn, &UserWrite::AddFeed(new), 0).unwrap() {
            Applied::Subscribed { feed_id, added } => (feed_id, added),
            other => panic!("subscribing answered {other:?}"),
        }
    }

    fn folders_of(conn: &Connection) -> Vec<(FolderId, String, bool)> {
        folders::folders(conn).unwrap().into_iter().map(|f| (f.id, f.name, f.collapsed)).collect()
    }

    #[test]
    fn forcing_an_encoding_drops_the_validators_and_shows_in_the_feed_info() {
        let (_dir, mut conn, id) = fixtures::one_feed();
        let mut record = fetched("Feed", vec![entry("a", "A", "<p>a</p>", 1)]);
        if let FetchRecord::Fetched { decision, etag, .. } = &mut record {
            *etag = Some("\"v1\"".into());
            *decision = Some(r#"{"encoding":"KOI8-R","source":"http-charset","signals":{"media_type":null,"http_charset":"koi8-r","bom":null,"first_bytes":null,"xml_declaration":"utf-8","detected":null},"strict":{"encoding":"KOI8-R","rule":"HTTP 2.6"},"overridden":["xml_declaration"],"lenient":false,"notes":[]}"#.into());
        }
        fetches::save(&mut conn, id, &record, 10).unwrap();
        assert!(feeds::feed(&conn, id).unwrap().unwrap().encoding_overridden);
        let force = UserWrite::SetEncodingOverride { feed_id: id, label: Some("windows-1251".into()) };
        apply(&mut conn, &force, 0).unwrap();
        let info = feeds::feed_info(&conn, id).unwrap().unwrap();
        assert_eq!(info.row.encoding_forced.as_deref(), Some("windows-1251"));
        assert_eq!(info.etag, None);
        assert_eq!(info.decision.unwrap().encoding, "KOI8-R");
        assert_eq!(
            feeds::refresh_targets(&conn, Some(&[id])).unwrap()[0].encoding_override.as_deref(),
            Some("windows-1251")
        );
    }

    #[test]
    fn subscriptions_are_added_renamed_moved_and_deleted_with_their_entries() {
        let (_dir, mut conn, id) = fixtures::one_feed();
        fetches::save(&mut conn, id, &fetched("Feed", vec![entry("a", "A", "<p>a</p>", 1)]), 10).unwrap();
        let new = feed("http://two.example/rss", Some("Two"), &[]);
        let (two, added) = subscribe(&mut conn, new.clone());
        assert!(added);
        assert_eq!(subscribe(&mut conn, new), (two, false), "adding again finds the same feed");
        apply(&mut conn, &UserWrite::RenameFeed { feed_id: two, title: Some("My name".into()) }, 0).unwrap();
        apply(&mut conn, &UserWrite::MoveFeed { feed_id: two, folder: vec!["Later".into()] }, 0).unwrap();
        let row = feeds::feed(&conn, two).unwrap().unwrap();
        assert_eq!((row.title.as_str(), row.folder.as_deref()), ("My name", Some("Later")));
        apply(&mut conn, &UserWrite::RenameFeed { feed_id: two, title: None }, 0).unwrap();
        assert_eq!(feeds::feed(&conn, two).unwrap().unwrap().title, "Two");
        apply(&mut conn, &UserWrite::DeleteFeed(id), 0).unwrap();
        let left: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0, "entries go with their feed");
    }

    #[test]
    fn folders_are_created_renamed_collapsed_and_deleted() {
        let (_dir, mut conn, id) = fixtures::one_feed();
        let path = |p: &str| folders::split_path(p);
        apply(&mut conn, &UserWrite::CreateFolder(path("News")), 0).unwrap();
        apply(&mut conn, &UserWrite::CreateFolder(path("Tech")), 0).unwrap();
        let listed = folders_of(&conn);
        assert_eq!(listed.len(), 2, "an empty folder is listed");
        let (news, tech) = (listed[0].0, listed[1].0);
        apply(&mut conn, &UserWrite::MoveFeed { feed_id: id, folder: path("News") }, 0).unwrap();
        let clash = apply(&mut conn, &UserWrite::RenameFolder { folder_id: news, name: "Tech".into() }, 0);
        assert!(matches!(clash, Err(StoreError::Conflict(_))), "{clash:?}");
        apply(&mut conn, &UserWrite::RenameFolder { folder_id: news, name: "World".into() }, 0).unwrap();
        apply(&mut conn, &UserWrite::SetCollapsed { folder_id: news, collapsed: true }, 0).unwrap();
        assert!(folders_of(&conn).contains(&(news, "World".into(), true)));
        apply(&mut conn, &UserWrite::DeleteFolder { folder_id: news, with_contents: false }, 0).unwrap();
        assert_eq!(feeds::feed(&conn, id).unwrap().unwrap().folder, None, "its feeds move to the top level");
        assert_eq!(folders_of(&conn).into_iter().map(|f| f.0).collect::<Vec<_>>(), vec![tech]);
    }

    #[test]
    fn a_write_that_fails_half_way_changes_nothing() {
        let (_dir, mut conn, id) = fixtures::one_feed();
        apply(&mut conn, &UserWrite::CreateFolder(vec!["Inner".into()]), 0).unwrap();
        let inner = folders_of(&conn)[0].0;
        // The destination "Inner/Deeper" is created first, then the move is refused (inside itself): the
        // folder it created goes with the refusal.
        let refused = apply(
            &mut conn,
            &UserWrite::MoveFolder { folder_id: inner, parent: vec!["Inner".into(), "Deeper".into()] },
            0,
        );
        assert!(matches!(refused, Err(StoreError::Conflict(_))), "{refused:?}");
        assert_eq!(folders_of(&conn).len(), 1, "nothing of the refused move is left");
        assert_eq!(feeds::feed(&conn, id).unwrap().unwrap().folder, None);
    }

    #[test]
    fn import_skips_duplicates_and_creates_folders() {
        let (_dir, mut conn, _) = fixtures::one_feed();
        let new = vec![
            feed("http://example.com/feed", None, &[]),
            feed("http://other.example/rss", Some("Other"), &["News"]),
        ];
        let Applied::Imported(outcome) =
            apply(&mut conn, &UserWrite::Import { feeds: new, folders: vec![] }, 0).unwrap()
        else {
            panic!("an import answers with what it imported")
        };
        assert_eq!(outcome.added, vec!["http://other.example/rss"]);
        assert_eq!(outcome.duplicates, vec!["http://example.com/feed"]);
        let rows = feeds::feeds(&conn).unwrap();
        assert_eq!(rows[1].folder.as_deref(), Some("News"));
        assert_eq!(rows[1].title, "Other");
    }

    #[test]
    fn a_big_import_keeps_order_and_folders_and_reports_progress() {
        let (_dir, mut conn, _) = fixtures::one_feed();
        let new: Vec<NewFeed> = (0..2_500)
            .map(|i| NewFeed {
                url: format!("http://h{}.example/{i}", i % 7),
                title: Some(format!("F{i}")),
                name: None,
                site_url: None,
                folder: if i % 3 != 0 { vec![format!("Folder {}", i % 5)] } else { vec![] },
            })
            .collect();
        let mut calls = Vec::new();
        let import = UserWrite::Import { feeds: new, folders: vec![] };
        let Applied::Imported(outcome) = apply_with_progress(&mut conn, &import, 0, &mut |n| calls.push(n)).unwrap()
        else {
            panic!("an import answers with what it imported")
        };
        assert_eq!(outcome.added.len(), 2_500);
        assert_eq!(calls, vec![1_000, 2_000, 2_500]);
        let rows = feeds::feeds(&conn).unwrap();
        let positions: Vec<i64> = conn
            .prepare("SELECT position FROM feeds ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(positions, (1..=2_501).collect::<Vec<i64>>(), "the first feed of setup() then these, in order");
        assert_eq!(folders_of(&conn).len(), 5);
        let f4 = rows.iter().find(|r| r.title == "F4").unwrap();
        assert_eq!(f4.folder.as_deref(), Some("Folder 4"));
    }

    /// Makes the feed an account's, as sync does (see `crate::sync`).
    fn hold_by_an_account(conn: &Connection, feed: FeedId) {
        conn.execute(
            "INSERT INTO accounts (id, name, kind, url, login) VALUES (1, 'Server', 'greader', 'u', 'me')",
            [],
        )
        .unwrap();
        conn.execute("UPDATE feeds SET account_id = 1, remote_id = 'feed/1' WHERE id = ?1", [feed.0]).unwrap();
    }

    fn changes(conn: &Connection) -> Vec<(String, String, String)> {
        conn.prepare("SELECT target, flag, value FROM changes ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    fn ids_of(conn: &Connection, feed: FeedId) -> Vec<EntryId> {
        entries::of_feed(conn, feed).unwrap().into_iter().map(|e| e.id).collect()
    }

    #[test]
    fn marks_on_an_accounts_entries_are_logged_with_them_and_the_later_mark_wins() {
        let (_dir, mut conn, id) = fixtures::one_feed();
        let items = vec![entry("tag:item/1", "A", "<p>a</p>", 1), entry("tag:item/2", "B", "<p>b</p>", 2)];
        fetches::save(&mut conn, id, &fetched("Feed", items), 10).unwrap();
        let entries = ids_of(&conn, id);
        apply(&mut conn, &UserWrite::SetRead { ids: entries.clone(), read: true }, 20).unwrap();
        assert!(changes(&conn).is_empty(), "a local feed's marks are for nobody");

        hold_by_an_account(&conn, id);
        apply(&mut conn, &UserWrite::SetRead { ids: vec![entries[0]], read: false }, 30).unwrap();
        apply(&mut conn, &UserWrite::SetStarred { ids: vec![entries[0]], starred: true }, 31).unwrap();
        apply(&mut conn, &UserWrite::SetRead { ids: vec![entries[0]], read: true }, 32).unwrap();
        assert_eq!(
            changes(&conn),
            vec![("tag:item/2".into(), "starred".into(), "1".into())],
            "one change per entry and flag; a mark set back to what the server last had is no change"
        );
        // A whole list marked read: what it changed on the account's entries is logged in the same write. (As a
        // sync leaves them: unread on the server, nothing waiting.)
        conn.execute("UPDATE entries SET read = 0", []).unwrap();
        conn.execute("DELETE FROM changes", []).unwrap();
        let Applied::Marked(marked) =
            apply(&mut conn, &UserWrite::MarkListRead { source: ListSource::Feed(id) }, 41).unwrap()
        else {
            panic!("marking a list answers with what it marked")
        };
        assert_eq!(marked.len(), 2);
        let read: Vec<_> = changes(&conn).into_iter().filter(|c| c.1 == "read").collect();
        assert_eq!(
            read,
            vec![("tag:item/1".into(), "read".into(), "1".into()), ("tag:item/2".into(), "read".into(), "1".into())]
        );
    }
}
