use super::Step;
use rusqlite::Connection;

/// A database as the build before step 26 left it: one feed with two entries.
fn before_the_deferred_feed(path: &std::path::Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    let deferred: fn(&Connection) -> rusqlite::Result<()> = super::later::entry_feed_deferred;
    super::migrate_to_before(&conn, |step| matches!(step, Step::Code(code) if std::ptr::fn_addr_eq(*code, deferred)));
    conn.execute_batch(
        "INSERT INTO feeds (id, url, title, added_at) VALUES (1, 'http://example.com/feed', 'Feed', 0);
         INSERT INTO entries (id, feed_id, key, title, first_seen_at, sort_at) VALUES
            (1, 1, 'a', 'Albatross', 0, 0), (2, 1, 'b', 'Bittern', 0, 0);",
    )
    .unwrap();
    conn
}

fn entries_sql(conn: &Connection) -> String {
    conn.query_row("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'entries'", [], |r| r.get(0)).unwrap()
}

/// Inserts an entry of a feed that is not there, in a transaction: whether the statement was refused, and
/// whether the commit was.
fn orphan_refused(conn: &mut Connection) -> (bool, bool) {
    let tx = conn.transaction().unwrap();
    let insert = tx
        .execute("INSERT INTO entries (id, feed_id, key, first_seen_at, sort_at) VALUES (100, 99, 'orphan', 0, 0)", []);
    if insert.is_err() {
        return (true, false);
    }
    (false, tx.commit().is_err())
}

/// Step 26 rewrites only the reference of an entry to its feed, keeps every row, and the connection that ran it
/// (the one a refresh goes on with) checks an entry's feed at the commit from then on, as a new one does.
#[test]
fn an_older_database_checks_an_entrys_feed_at_the_commit_once_upgraded_and_keeps_its_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let before = entries_sql(&before_the_deferred_feed(&path));
    assert!(!before.contains("DEFERRABLE"), "{before}");
    let mut conn = crate::store::open_write(&path).unwrap();
    let after = entries_sql(&conn);
    assert_eq!(
        after,
        before.replace("ON DELETE CASCADE,", "ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,"),
        "nothing else of the table changed"
    );
    let ok: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(ok, "ok");
    let titles: Vec<String> = conn
        .prepare("SELECT title FROM entries ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(titles, ["Albatross", "Bittern"]);
    assert_eq!(orphan_refused(&mut conn), (false, true), "the statement goes through, the commit is refused");
    let count: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 2, "nothing of the refused transaction is kept");
    // A feed's removal still takes its entries with it.
    conn.execute("DELETE FROM feeds WHERE id = 1", []).unwrap();
    let count: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 0);
    drop(conn);
    let mut new = crate::store::open_write(&dir.path().join("new.db")).unwrap();
    assert_eq!(orphan_refused(&mut new), (false, true), "a new database is the same");
}

/// A table whose text is not the one step 1 wrote is left as it is: its entries' feeds are checked at each
/// statement, as before, and the database opens.
#[test]
fn an_entries_table_of_another_text_is_left_alone_by_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.db");
    let conn = before_the_deferred_feed(&path);
    let odd = entries_sql(&conn).replace("ON DELETE CASCADE,", "ON DELETE  CASCADE,");
    super::later::rewrite_table_sql(&conn, "entries", &odd).unwrap();
    drop(conn);
    let mut conn = crate::store::open_write(&path).unwrap();
    assert_eq!(entries_sql(&conn), odd);
    assert_eq!(orphan_refused(&mut conn), (true, false), "refused at the statement");
}

/// Where SQLite keeps the schema from being written (its defensive mode), the step changes nothing and fails
/// nothing: the database still opens, its entries' feeds checked at each statement.
#[test]
fn the_upgrade_changes_nothing_where_sqlite_refuses_to_write_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = before_the_deferred_feed(&dir.path().join("defensive.db"));
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true).unwrap();
    let before = entries_sql(&conn);
    let version: i64 = conn.pragma_query_value(None, "schema_version", |r| r.get(0)).unwrap();
    super::later::entry_feed_deferred(&conn).unwrap();
    assert_eq!(entries_sql(&conn), before);
    assert_eq!(conn.pragma_query_value(None, "schema_version", |r| r.get::<_, i64>(0)).unwrap(), version);
    conn.pragma_update(None, "foreign_keys", true).unwrap();
    assert_eq!(orphan_refused(&mut conn), (true, false), "refused at the statement");
}
