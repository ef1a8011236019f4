//! A cursor over a list that scrolls: the selected index and the first row shown. Shared by the feed list, the
//! entry list and the dialogs that list things; one place knows how moving and scrolling work.

/// How far a move goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    By(isize),
    /// A page (the rows shown), or half of one.
    Pages(isize),
    HalfPages(isize),
    First,
    Last,
}

impl Step {
    /// The step as a signed number of rows, for a view `height` rows tall.
    pub fn rows(self, height: usize, len: usize) -> isize {
        let page = height.saturating_sub(1).max(1) as isize;
        match self {
            Step::By(n) => n,
            Step::Pages(n) => n * page,
            Step::HalfPages(n) => n * (height / 2).max(1) as isize,
            Step::First => -(len as isize),
            Step::Last => len as isize,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListCursor {
    /// The selected index.
    pub index: usize,
    /// The first index shown.
    pub offset: usize,
}

impl ListCursor {
    /// Moves by `step` within `len` items, keeping the cursor on screen in a view `height` rows tall.
    pub fn step(&mut self, step: Step, len: usize, height: usize) {
        if len == 0 {
            *self = ListCursor::default();
            return;
        }
        let target = self.index as isize + step.rows(height, len);
        self.index = target.clamp(0, len as isize - 1) as usize;
        self.show(height);
    }

    /// Puts the cursor on `index` (clamped to the list) and scrolls it into view.
    pub fn select(&mut self, index: usize, len: usize, height: usize) {
        self.index = index.min(len.saturating_sub(1));
        self.show(height);
    }

    /// Scrolls so the cursor is on screen in a view `height` rows tall.
    pub fn show(&mut self, height: usize) {
        let height = height.max(1);
        if self.index < self.offset {
            self.offset = self.index;
        } else if self.index >= self.offset + height {
            self.offset = self.index + 1 - height;
        }
    }
}

/// The first line shown of a text `len` lines long in a view `height` rows tall, after scrolling by `step`.
pub fn scroll(offset: usize, step: Step, len: usize, height: usize) -> usize {
    let max = len.saturating_sub(height);
    (offset as isize + step.rows(height, len)).clamp(0, max as isize) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stay_in_the_list_and_on_screen() {
        let mut c = ListCursor::default();
        c.step(Step::By(5), 100, 10);
        assert_eq!((c.index, c.offset), (5, 0));
        c.step(Step::Pages(1), 100, 10);
        assert_eq!((c.index, c.offset), (14, 5));
        c.step(Step::HalfPages(-1), 100, 10);
        assert_eq!(c.index, 9);
        c.step(Step::Last, 100, 10);
        assert_eq!((c.index, c.offset), (99, 90));
        c.step(Step::By(3), 100, 10);
        assert_eq!(c.index, 99);
        c.step(Step::First, 100, 10);
        assert_eq!((c.index, c.offset), (0, 0));
        c.step(Step::By(-1), 100, 10);
        assert_eq!(c.index, 0);
    }

    #[test]
    fn an_empty_list_resets_the_cursor() {
        let mut c = ListCursor { index: 7, offset: 3 };
        c.step(Step::By(1), 0, 10);
        assert_eq!(c, ListCursor::default());
    }

    #[test]
    fn text_scrolls_within_its_length() {
        assert_eq!(scroll(0, Step::Pages(1), 100, 20), 19);
        assert_eq!(scroll(90, Step::Pages(1), 100, 20), 80);
        assert_eq!(scroll(5, Step::First, 100, 20), 0);
        assert_eq!(scroll(0, Step::By(3), 10, 20), 0, "a short text does not scroll");
    }
}
