//! The statements a piece of a test runs, as SQLite traces them.

use rusqlite::Connection;
use std::sync::{Arc, Mutex};

/// Runs `f` on `conn` and returns the statements it ran, each on one line.
pub(super) fn statements_of(conn: &mut Connection, f: impl FnOnce(&mut Connection)) -> Vec<String> {
    let said = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = said.clone();
    conn.trace_v2(
        rusqlite::trace::TraceEventCodes::SQLITE_TRACE_STMT,
        Some(move |event: rusqlite::trace::TraceEvent<'_>| {
            if let rusqlite::trace::TraceEvent::Stmt(_, sql) = event {
                log.lock().unwrap().push(sql.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        }),
    )
    .unwrap();
    f(conn);
    conn.trace_v2(rusqlite::trace::TraceEventCodes::empty(), None::<fn(rusqlite::trace::TraceEvent<'_>)>).unwrap();
    std::mem::take(&mut *said.lock().unwrap())
}
