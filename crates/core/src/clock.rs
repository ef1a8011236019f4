//! Time for people: dates and times shown in a [`Zone`] that the caller chooses. Nothing here reads the clock,
//! the environment or the system's time zone: the reader passes the current time (from its tick) and the zone
//! (the system's rules, looked up by the program's edge, or a fixed one in tests), so every screen can be drawn
//! the same way twice.

use chrono::{DateTime, FixedOffset, TimeZone};

/// The time zone dates are shown in.
#[derive(Clone, Copy, Debug)]
pub enum Zone {
    /// A zone with rules (daylight saving): the offset from UTC, in seconds, at each instant. The program's edge
    /// gives the system's local zone this way (it reads `TZ` and the system's tables; the core does not).
    Rules(fn(i64) -> i32),
    /// A fixed offset from UTC: tests, and users who set one.
    Fixed(FixedOffset),
}

impl PartialEq for Zone {
    fn eq(&self, other: &Zone) -> bool {
        match (self, other) {
            (Zone::Rules(a), Zone::Rules(b)) => std::ptr::fn_addr_eq(*a, *b),
            (Zone::Fixed(a), Zone::Fixed(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Zone {}

impl Zone {
    /// UTC, a fixed zone.
    pub fn utc() -> Zone {
        Zone::Fixed(FixedOffset::east_opt(0).expect("zero is a valid offset"))
    }

    /// `ts` (seconds since the epoch) formatted with a chrono format string in this zone; empty when `ts` is
    /// out of range.
    pub fn format(self, ts: i64, pattern: &str) -> String {
        let Some(utc) = DateTime::from_timestamp(ts, 0) else { return String::new() };
        match self {
            Zone::Rules(offset_at) => match FixedOffset::east_opt(offset_at(ts)) {
                Some(offset) => offset.from_utc_datetime(&utc.naive_utc()).format(pattern).to_string(),
                None => utc.format(pattern).to_string(),
            },
            Zone::Fixed(offset) => offset.from_utc_datetime(&utc.naive_utc()).format(pattern).to_string(),
        }
    }

    /// A date for lists: `2025-06-10`.
    pub fn date(self, ts: i64) -> String {
        self.format(ts, "%Y-%m-%d")
    }

    /// A date and time: `2025-06-10 14:05`.
    pub fn datetime(self, ts: i64) -> String {
        self.format(ts, "%Y-%m-%d %H:%M")
    }

    /// A moment near `now`: the time alone when it falls on the same day, else the date too.
    pub fn moment(self, ts: i64, now: i64) -> String {
        if self.date(ts) == self.date(now) { self.format(ts, "%H:%M") } else { self.datetime(ts) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zone_with_rules_takes_each_instants_offset() {
        // Summer time from the epoch's 1_750_000_000th second on: an hour more.
        let rules = Zone::Rules(|ts| if ts >= 1_750_000_000 { 7200 } else { 3600 });
        assert_eq!(rules.format(1_749_999_000, "%H:%M"), "15:50");
        assert_eq!(rules.format(1_750_001_000, "%H:%M"), "17:23");
    }

    const JUNE_10_2025_0405_UTC: i64 = 1_749_528_300;

    #[test]
    fn a_fixed_zone_shifts_dates_and_times() {
        let tokyo = Zone::Fixed(FixedOffset::east_opt(9 * 3600).unwrap());
        assert_eq!(Zone::utc().datetime(JUNE_10_2025_0405_UTC), "2025-06-10 04:05");
        assert_eq!(tokyo.datetime(JUNE_10_2025_0405_UTC), "2025-06-10 13:05");
        let samoa = Zone::Fixed(FixedOffset::west_opt(11 * 3600).unwrap());
        assert_eq!(samoa.date(JUNE_10_2025_0405_UTC), "2025-06-09");
    }

    #[test]
    fn a_moment_today_is_a_time_and_another_day_a_date_and_time() {
        let utc = Zone::utc();
        assert_eq!(utc.moment(JUNE_10_2025_0405_UTC + 3600, JUNE_10_2025_0405_UTC), "05:05");
        assert_eq!(utc.moment(JUNE_10_2025_0405_UTC + 86_400, JUNE_10_2025_0405_UTC), "2025-06-11 04:05");
    }

    #[test]
    fn out_of_range_times_format_as_nothing() {
        assert_eq!(Zone::utc().date(i64::MAX), "");
    }
}
