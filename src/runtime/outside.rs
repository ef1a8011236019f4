//! Watching the database for other processes' writes while the reader runs.

use crate::app::Event;
use crate::store::{DbThread, StoreError};
use tokio::sync::mpsc;

/// How often the reader looks for writes by other processes (`tidings refresh`, `add` or `import` beside it).
pub(super) const WATCH_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// Says [`Event::ChangedOutside`] whenever another process commits to the database, so the reader's counts,
/// feed list and lists follow a headless refresh or a feed added from the command line.
///
/// SQLite's `data_version` on the writer's connection moves only for commits made through *other* connections;
/// the reader's own connection never writes, so what moves it is another process. Ends when the reader does.
pub(super) async fn watch_outside(writer: DbThread, inbox: mpsc::UnboundedSender<Event>, every: std::time::Duration) {
    let version =
        || writer.call(|c| c.query_row("PRAGMA data_version", [], |r| r.get::<_, i64>(0)).map_err(StoreError::from));
    let Ok(mut seen) = version().await else { return };
    let mut clock = tokio::time::interval(every);
    clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        clock.tick().await;
        let Ok(now) = version().await else { return };
        if now != seen {
            seen = now;
            if inbox.send(Event::ChangedOutside).is_err() {
                return;
            }
        }
    }
}
