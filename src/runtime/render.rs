//! Rendering the article on screen, off the loop's thread: one render at a time is wanted — a render still
//! running for another entry or width is cancelled, so opening and leaving a heavy article never stacks renders.

use crate::app::Event;
use crate::model::EntryId;
use crate::panics::panic_message;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// The render job: the cancel flag of the render running, if one is. Cheap to clone; clones share it.
#[derive(Clone)]
pub(super) struct Render {
    pub(super) running: Arc<Mutex<Option<Arc<AtomicBool>>>>,
    inbox: mpsc::UnboundedSender<Event>,
}

impl Render {
    pub(super) fn new(inbox: mpsc::UnboundedSender<Event>) -> Render {
        Render { running: Arc::default(), inbox }
    }

    /// Renders `html` for `width` columns on a blocking thread, cancelling the render still running; the answer
    /// is [`Event::ArticleRendered`] (none for a render cancelled meanwhile).
    pub(super) fn render(&self, entry_id: EntryId, html: String, width: u16, base: Option<String>) {
        let cancel = Arc::new(AtomicBool::new(false));
        if let Some(before) = self.running.lock().unwrap_or_else(|e| e.into_inner()).replace(cancel.clone()) {
            before.store(true, Ordering::Relaxed);
        }
        let inbox = self.inbox.clone();
        tokio::task::spawn_blocking(move || {
            // A renderer that panics on some document must not leave "Rendering…" on screen forever.
            let rendered = std::panic::catch_unwind(|| {
                crate::render::render_article_cancellable(&html, usize::from(width), base.as_deref(), &cancel)
            });
            let body = match rendered {
                Ok(Ok(body)) => Ok(body),
                // Not wanted any more: the render asked for after it answers instead.
                Ok(Err(crate::render::Cancelled)) => return,
                Err(panic) => Err(format!("the renderer failed: {}", panic_message(&*panic))),
            };
            let _ = inbox.send(Event::ArticleRendered { entry_id, width, body });
        });
    }

    /// Stops the render still running, if one is (the reader quits).
    pub(super) fn cancel(&self) {
        if let Some(cancel) = self.running.lock().unwrap_or_else(|e| e.into_inner()).take() {
            cancel.store(true, Ordering::Relaxed);
        }
    }
}
