//! Saving for later (`W`) where the entry belongs: an entry of a Google Reader API account gets the account's
//! `save_label` on a real FreshRSS (read back through its API, and back here as the entry's own category, never
//! a folder); one of a Miniflux account goes to Miniflux's own save (the test server of `support::miniflux_api`,
//! written from Miniflux's `saveEntryHandler`), and a Miniflux with no integration set up is said with what to
//! do; a save made offline waits in the change log across processes and goes at the next sync. An entry of a
//! Fever account, like one of a local feed, is for the `save_command` (Fever has no save).

mod support;

use support::accounts::{folder_names, keys, mark_here};

use std::collections::BTreeSet;
use support::freshrss::{FreshRss, populated, skipped};
use support::miniflux::{Entry, Miniflux, State};
use support::server::Server;
use support::{Sandbox, stderr, stdout};
use tidings::model::{EntryId, UserWrite};

fn sync(sandbox: &Sandbox, config: &std::path::Path) -> std::process::Output {
    sandbox.tidings().arg("--config").arg(config).arg("sync").output().expect("run tidings sync")
}

/// `tidings sync`, which must succeed.
fn synced(sandbox: &Sandbox, config: &std::path::Path) -> std::process::Output {
    let out = sync(sandbox, config);
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// The database as tidings opens it (with its SQL functions: the store's reads name feeds through them).
fn db(sandbox: &Sandbox) -> rusqlite::Connection {
    tidings::store::open_write(&sandbox.db()).unwrap()
}

fn waiting(sandbox: &Sandbox, kind: &str) -> i64 {
    db(sandbox).query_row("SELECT count(*) FROM changes WHERE kind = ?1", [kind], |r| r.get(0)).unwrap()
}

/// The entries' ids here, by their keys.
fn ids_of(sandbox: &Sandbox, keys: &[String]) -> Vec<EntryId> {
    let db = db(sandbox);
    keys.iter()
        .map(|k| EntryId(db.query_row("SELECT id FROM entries WHERE key = ?1", [k], |r| r.get(0)).unwrap()))
        .collect()
}

/// Where `W` sends the entries of `keys`, as the reader asks the store: (for the server, for the command).
fn sorted(sandbox: &Sandbox, keys: &[String]) -> (usize, usize) {
    let to = tidings::export::to_save(&db(sandbox), &ids_of(sandbox, keys)).unwrap();
    (to.server.len(), to.command.len())
}

#[test]
fn a_save_made_offline_waits_and_reaches_freshrss_as_the_accounts_label_never_a_folder_here() {
    let test = "a_save_made_offline_waits_and_reaches_freshrss_as_the_accounts_label_never_a_folder_here";
    let mut freshrss = match FreshRss::start() {
        Ok(server) => server,
        Err(why) => return skipped(test, &why),
    };
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let config = format!("{}save_label = \"Read Later\"\n", freshrss.config(support::freshrss::PASSWORD));
    let cfg = sandbox.write("config.toml", &config);
    synced(&sandbox, &cfg);

    // Saved (two marked entries together) while the server is down: kept, said as waiting.
    freshrss.stop();
    let chosen: Vec<String> = keys(&sandbox, "1").into_iter().take(2).collect();
    assert_eq!(sorted(&sandbox, &chosen), (2, 0), "a greader account's entries are saved on its server");
    mark_here(&sandbox, &chosen, |ids| UserWrite::SaveOnServer { ids });
    mark_here(&sandbox, &chosen[..1], |ids| UserWrite::SaveOnServer { ids });
    assert_eq!(waiting(&sandbox, "save"), 2, "one change per entry, however often it is saved");
    let offline = sync(&sandbox, &cfg);
    assert_eq!(offline.status.code(), Some(3), "{}", stderr(&offline));
    assert!(stderr(&offline).contains("2 changes waiting"), "{}", stderr(&offline));

    // Back: the next sync (another process) sends them, and the server has the label on exactly those items.
    freshrss.serve();
    let back = synced(&sandbox, &cfg);
    assert!(stdout(&back).contains("2 entries saved for later on the server"), "{}", stdout(&back));
    assert_eq!(waiting(&sandbox, "save"), 0, "off the log once the server took them");
    let labelled: serde_json::Value =
        serde_json::from_str(&api.get("/reader/api/0/stream/items/ids?n=1000&s=user/-/label/Read%20Later")).unwrap();
    let there: BTreeSet<String> = labelled["itemRefs"]
        .as_array()
        .map(|refs| refs.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    assert_eq!(there, chosen.iter().cloned().collect::<BTreeSet<_>>(), "the label is on the saved items only");

    // Another device syncing afresh sees the label on those entries as their own category, and no folder of it.
    let phone = Sandbox::new();
    let phone_cfg = phone.write("config.toml", &config);
    synced(&phone, &phone_cfg);
    let labelled_here = keys(&phone, "e.categories LIKE '%Read Later%'");
    assert_eq!(labelled_here, there, "the label comes back down on the entries");
    let folders = folder_names(&phone);
    assert!(!folders.iter().any(|f| f == "Read Later"), "not a folder: {folders:?}");
}

#[test]
fn an_entry_of_a_fever_account_is_for_the_save_command_and_never_waits_for_the_server() {
    let test = "an_entry_of_a_fever_account_is_for_the_save_command_and_never_waits_for_the_server";
    let freshrss = match FreshRss::start() {
        Ok(server) => server,
        Err(why) => return skipped(test, &why),
    };
    let feeds_server = Server::start();
    populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let config = format!(
        "refresh_on_startup = false\n[[accounts]]\nname = \"FreshRSS\"\nkind = \"fever\"\n\
         url = \"http://127.0.0.1:{}/api/fever.php\"\nuser = \"alice\"\npassword = \"{}\"\n",
        freshrss.port,
        support::freshrss::PASSWORD
    );
    let cfg = sandbox.write("config.toml", config);
    synced(&sandbox, &cfg);
    let all: Vec<String> = keys(&sandbox, "1").into_iter().collect();
    assert_eq!(all.len(), 12);
    assert_eq!(sorted(&sandbox, &all), (0, 12), "every entry goes to the save_command, with its address");
    mark_here(&sandbox, &all, |ids| UserWrite::SaveOnServer { ids });
    assert_eq!(waiting(&sandbox, "save"), 0, "nothing waits for a server that cannot save");
}

/// A Miniflux of two feeds and 20 entries, over its own API.
fn miniflux(save_integration: bool) -> Miniflux {
    let feeds = vec![
        (1, "http://example.org/a.xml".to_string(), "Alpha".to_string(), "Tech".to_string()),
        (2, "http://example.org/b.xml".to_string(), "Beta".to_string(), "All".to_string()),
    ];
    let entries = (1..=20u64)
        .map(|id| Entry { id, feed: 1 + id % 2, published: 1_700_000_000 + id as i64, read: false, starred: false })
        .collect();
    Miniflux::start(State { feeds, entries, save_integration, ..State::default() })
}

#[test]
fn a_miniflux_entry_goes_to_minifluxs_own_save_by_its_id() {
    let server = miniflux(true);
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    synced(&sandbox, &cfg);
    let chosen = vec!["7".to_string(), "12".to_string()];
    assert_eq!(sorted(&sandbox, &chosen), (2, 0));
    mark_here(&sandbox, &chosen, |ids| UserWrite::SaveOnServer { ids });
    let out = synced(&sandbox, &cfg);
    assert!(stdout(&out).contains("2 entries saved for later on the server"), "{}", stdout(&out));
    let mut saved = server.state().saved.clone();
    saved.sort_unstable();
    assert_eq!(saved, [7, 12], "one save each, by the entry's id");
    let asked: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/save"))
        .map(|r| r.path)
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(waiting(&sandbox, "save"), 0);
}

#[test]
fn a_miniflux_without_an_integration_refuses_the_save_and_the_sync_says_what_to_set_up() {
    let server = miniflux(false);
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    synced(&sandbox, &cfg);
    mark_here(&sandbox, &["3".to_string()], |ids| UserWrite::SaveOnServer { ids });
    let out = synced(&sandbox, &cfg);
    let said = stdout(&out);
    assert!(said.contains("saving 1 entry for later refused"), "{said}");
    assert!(said.contains("no third-party integration enabled"), "the server's reason: {said}");
    assert!(said.contains("Integrations") && said.contains("save_command"), "what to do: {said}");
    assert!(server.state().saved.is_empty());
    assert_eq!(waiting(&sandbox, "save"), 0, "a refusal is said once, not sent again at every sync");
}
