//! Dates as feeds write them: RFC 822 with its real-world variants (named zones, missing seconds, two-digit
//! years, wrong day names, extra spaces), RFC 3339 / ISO 8601, `Jan 15, 2024`, `2024/01/15`, `15-01-2024`, and
//! Unix timestamps. Everything comes out in UTC; a date without a zone is read as UTC and flagged.
//!
//! Pure: strings in, dates out.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

/// A parsed date, and whether its zone had to be assumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub at: DateTime<Utc>,
    pub zone_missing: bool,
}

/// Parses one date string, or `None` when it is not a date.
pub fn parse_date(raw: &str) -> Option<Parsed> {
    let s = raw.trim();
    if s.is_empty() || s.len() > 80 {
        return None;
    }
    let parsed = unix(s).or_else(|| iso(s)).or_else(|| numeric_date(s)).or_else(|| words(s))?;
    let year = parsed.at.format("%Y").to_string().parse::<i32>().ok()?;
    (1900..=2200).contains(&year).then_some(parsed)
}

/// Seconds (or milliseconds) since the epoch.
fn unix(s: &str) -> Option<Parsed> {
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = s.parse().ok()?;
    let at = match s.len() {
        9 | 10 => DateTime::from_timestamp(n, 0)?,
        12 | 13 => DateTime::from_timestamp_millis(n)?,
        _ => return None,
    };
    Some(Parsed { at, zone_missing: false })
}

/// RFC 3339 and the ISO 8601 shapes feeds use: `2025-06-10`, `2025-06-10T04:00`, `2025-06-10 04:00:00.123+0100`.
fn iso(s: &str) -> Option<Parsed> {
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(Parsed { at: d.with_timezone(&Utc), zone_missing: false });
    }
    let bytes = s.as_bytes();
    if bytes.len() < 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let date = NaiveDate::parse_from_str(&s[..10], "%Y-%m-%d").ok()?;
    let rest = s[10..].trim_start_matches(['T', 't', ' ']);
    if rest.is_empty() {
        return Some(Parsed { at: Utc.from_utc_datetime(&date.and_time(NaiveTime::MIN)), zone_missing: true });
    }
    let zone_at = rest.find(['Z', 'z', '+', '-']).unwrap_or(rest.len());
    let time = parse_time(&rest[..zone_at])?;
    let zone = rest[zone_at..].trim();
    let (offset, zone_missing) = if zone.is_empty() { (0, true) } else { (zone_offset(zone)?, false) };
    finish(date.and_time(time), offset, zone_missing)
}

/// `2024/01/15`, `15-01-2024`, `15.01.2024`, `01/15/2024`, each with an optional time.
fn numeric_date(s: &str) -> Option<Parsed> {
    let (date_part, rest) = s.split_once(' ').unwrap_or((s, ""));
    let sep = ['/', '-', '.'].into_iter().find(|c| date_part.contains(*c))?;
    let parts: Vec<&str> = date_part.split(sep).collect();
    let [a, b, c] = parts.as_slice() else { return None };
    let nums: Vec<u32> = [a, b, c].iter().map(|p| p.parse::<u32>().ok()).collect::<Option<_>>()?;
    let (year, month, day) = if a.len() == 4 {
        (nums[0] as i32, nums[1], nums[2])
    } else if c.len() == 4 {
        match sep {
            // With slashes, the US order unless the first number cannot be a month.
            '/' if nums[0] <= 12 && nums[1] > 12 => (nums[2] as i32, nums[0], nums[1]),
            '/' if nums[0] > 12 => (nums[2] as i32, nums[1], nums[0]),
            '/' => (nums[2] as i32, nums[0], nums[1]),
            _ => (nums[2] as i32, nums[1], nums[0]),
        }
    } else {
        return None;
    };
    let date = NaiveDate::from_ymd_opt(year, month, day)?;
    let rest = rest.trim();
    if rest.is_empty() {
        return Some(Parsed { at: Utc.from_utc_datetime(&date.and_time(NaiveTime::MIN)), zone_missing: true });
    }
    let (time_part, zone) = rest.split_once(' ').unwrap_or((rest, ""));
    let zone_at = time_part.find(['Z', '+', '-']).unwrap_or(time_part.len());
    let time = parse_time(&time_part[..zone_at])?;
    let zone = format!("{}{}", &time_part[zone_at..], zone).trim().to_string();
    let (offset, missing) = if zone.is_empty() { (0, true) } else { (zone_offset(&zone)?, false) };
    finish(date.and_time(time), offset, missing)
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// Month names in the other languages feeds localize RFC 822 dates into (French, German, Spanish, Italian,
/// Portuguese, Dutch), by prefix, and Thai abbreviations. Checked after the English ones.
#[rustfmt::skip]
const LOCAL_MONTHS: &[(&str, u32)] = &[
    ("janv", 1), ("ene", 1), ("gen", 1), ("jän", 1),
    ("févr", 2), ("fevr", 2), ("fév", 2), ("fev", 2),
    ("mär", 3), ("mrz", 3), ("mrt", 3), ("mars", 3),
    ("avr", 4), ("abr", 4),
    ("mai", 5), ("mei", 5), ("mag", 5),
    ("juin", 6), ("giu", 6),
    ("juil", 7), ("lug", 7),
    ("août", 8), ("aoû", 8), ("ago", 8),
    ("sept", 9), ("set", 9),
    ("okt", 10), ("ott", 10), ("out", 10),
    ("déc", 12), ("dez", 12), ("dic", 12),
    ("ม.ค", 1), ("ก.พ", 2), ("มี.ค", 3), ("เม.ย", 4), ("พ.ค", 5), ("มิ.ย", 6),
    ("ก.ค", 7), ("ส.ค", 8), ("ก.ย", 9), ("ต.ค", 10), ("พ.ย", 11), ("ธ.ค", 12),
];

/// The month a word names, in English or one of [`LOCAL_MONTHS`].
fn month_of(word: &str) -> Option<u32> {
    if word.chars().count() < 3 {
        return None;
    }
    if let Some(m) = MONTHS.iter().position(|m| word.starts_with(m)) {
        return Some(m as u32 + 1);
    }
    LOCAL_MONTHS.iter().find(|(prefix, _)| word.starts_with(prefix)).map(|(_, m)| *m)
}

/// RFC 822 and its relatives, read as a bag of tokens: a day, a month name, a year, a time, a zone, and a
/// weekday that is ignored (feeds get it wrong).
fn words(s: &str) -> Option<Parsed> {
    let mut day = None;
    let mut month = None;
    let mut year: Option<i32> = None;
    let mut time = None;
    let mut offset = None;
    let mut pm: Option<bool> = None;
    // A leading word before a comma is the day of the week, in whatever language: skip it.
    let s = match s.split_once(',') {
        Some((head, rest))
            if !head.trim().is_empty()
                && !head.trim().contains(char::is_whitespace)
                && !head.chars().any(|c| c.is_ascii_digit()) =>
        {
            rest
        }
        _ => s,
    };
    // Thai abbreviations carry dots inside ("พ.ย."); keep those, drop the others.
    let cleaned: String = s
        .char_indices()
        .map(|(i, c)| {
            let thai_before = s[..i].chars().next_back().is_some_and(|p| ('\u{0E00}'..='\u{0E7F}').contains(&p));
            if c == ',' || (c == '.' && !thai_before) { ' ' } else { c }
        })
        .collect();
    let tokens: Vec<&str> = cleaned.split_whitespace().collect();
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        let lower = token.to_ascii_lowercase();
        i += 1;
        if token.contains(':') && token.starts_with(|c: char| c.is_ascii_digit()) {
            // A time, perhaps with the zone glued on: "04:00:00+0100", "4:00pm".
            let end = token.find(['+', '-', 'Z']).unwrap_or(token.len());
            let (clock, suffix) =
                token[..end].split_at(token[..end].find(|c: char| c.is_ascii_alphabetic()).unwrap_or(end));
            time = Some(parse_time(clock)?);
            match suffix.to_ascii_lowercase().as_str() {
                "am" => pm = Some(false),
                "pm" => pm = Some(true),
                _ => {}
            }
            if end < token.len() {
                offset = Some(zone_offset(&token[end..])?);
            }
            continue;
        }
        if lower == "am" || lower == "pm" {
            pm = Some(lower == "pm");
            continue;
        }
        if (token.starts_with('+') || token.starts_with('-'))
            && token[1..].chars().all(|c| c.is_ascii_digit() || c == ':')
        {
            offset = Some(zone_offset(token)?);
            continue;
        }
        if let Ok(n) = token.parse::<u32>() {
            if token.len() == 4 || n > 31 {
                year = Some(n as i32);
            } else if day.is_none() {
                day = Some(n);
            } else if year.is_none() {
                // Two-digit years: 70–99 are the 1900s, the rest this century.
                year = Some(if n >= 70 { 1900 + n as i32 } else { 2000 + n as i32 });
            }
            continue;
        }
        if let Some(m) = month_of(&lower) {
            month = Some(m);
            continue;
        }
        if lower.len() >= 3 && WEEKDAYS.iter().any(|d| lower.starts_with(d)) {
            continue;
        }
        if let Some(o) = named_zone(&lower) {
            offset = Some(o);
            continue;
        }
        // "GMT+0200", "UTC-5"
        if let Some(rest) = lower.strip_prefix("gmt").or_else(|| lower.strip_prefix("utc"))
            && let Some(o) = zone_offset(rest)
        {
            offset = Some(o);
            continue;
        }
        return None;
    }
    let date = NaiveDate::from_ymd_opt(year?, month?, day?)?;
    let mut time = time.unwrap_or(NaiveTime::MIN);
    if let Some(pm) = pm {
        use chrono::Timelike;
        let hour = time.hour() % 12 + if pm { 12 } else { 0 };
        time = time.with_hour(hour)?;
    }
    finish(date.and_time(time), offset.unwrap_or(0), offset.is_none())
}

fn finish(local: NaiveDateTime, offset_secs: i32, zone_missing: bool) -> Option<Parsed> {
    let at = Utc.from_utc_datetime(&(local - chrono::Duration::seconds(i64::from(offset_secs))));
    Some(Parsed { at, zone_missing })
}

/// `hh:mm`, `hh:mm:ss`, `hh:mm:ss.fff`.
fn parse_time(s: &str) -> Option<NaiveTime> {
    let s = s.trim();
    let mut parts = s.split(':');
    let hour: u32 = parts.next()?.trim().parse().ok()?;
    let minute: u32 = parts.next().unwrap_or("0").trim().parse().ok()?;
    let second_part = parts.next().unwrap_or("0");
    let second: u32 = second_part.split(['.', ',']).next()?.trim().parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    // A leap second is read as the last second of the minute.
    NaiveTime::from_hms_opt(hour, minute, second.min(59))
}

/// `Z`, `+01:00`, `+0100`, `-5`, `GMT`: seconds east of UTC.
fn zone_offset(s: &str) -> Option<i32> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("z") {
        return Some(0);
    }
    if let Some(o) = named_zone(&s.to_ascii_lowercase()) {
        return Some(o);
    }
    let sign = match s.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let digits: String = s[1..].chars().filter(|c| *c != ':').collect();
    if digits.is_empty() || digits.len() > 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (hours, minutes) = match digits.len() {
        1 | 2 => (digits.parse::<i32>().ok()?, 0),
        3 => (digits[..1].parse::<i32>().ok()?, digits[1..].parse::<i32>().ok()?),
        _ => (digits[..2].parse::<i32>().ok()?, digits[2..].parse::<i32>().ok()?),
    };
    (hours <= 14 && minutes < 60).then_some(sign * (hours * 3600 + minutes * 60))
}

/// Zone names feeds use, RFC 822's and the common others.
fn named_zone(name: &str) -> Option<i32> {
    let hours: f32 = match name {
        "gmt" | "ut" | "utc" | "z" | "wet" => 0.0,
        "est" => -5.0,
        "edt" => -4.0,
        "cst" => -6.0,
        "cdt" => -5.0,
        "mst" => -7.0,
        "mdt" => -6.0,
        "pst" => -8.0,
        "pdt" => -7.0,
        "akst" => -9.0,
        "akdt" => -8.0,
        "hst" => -10.0,
        "ast" => -4.0,
        "adt" => -3.0,
        "nst" => -3.5,
        "ndt" => -2.5,
        "bst" | "cet" | "met" | "wat" | "west" => 1.0,
        "cest" | "mest" | "eet" | "sast" | "cat" => 2.0,
        "eest" | "msk" | "eat" | "trt" => 3.0,
        "ist" => 5.5,
        "ict" | "wib" => 7.0,
        "hkt" | "sgt" | "awst" | "pht" => 8.0,
        "jst" | "kst" => 9.0,
        "acst" => 9.5,
        "aest" => 10.0,
        "acdt" => 10.5,
        "aedt" => 11.0,
        "nzst" => 12.0,
        "nzdt" => 13.0,
        _ => return None,
    };
    Some((hours * 3600.0) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> String {
        let p = parse_date(s).unwrap_or_else(|| panic!("{s:?} did not parse"));
        p.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    }

    #[test]
    fn rfc_822_and_its_variants() {
        assert_eq!(utc("Tue, 10 Jun 2025 04:00:00 GMT"), "2025-06-10T04:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 04:00:00 +0200"), "2025-06-10T02:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 04:00:00 EST"), "2025-06-10T09:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 04:00:00 PDT"), "2025-06-10T11:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 04:00 GMT"), "2025-06-10T04:00:00Z", "missing seconds");
        assert_eq!(utc("Tue, 10 Jun 25 04:00:00 GMT"), "2025-06-10T04:00:00Z", "two-digit year");
        assert_eq!(utc("Mon, 10 Jun 2025 04:00:00 GMT"), "2025-06-10T04:00:00Z", "wrong day name");
        assert_eq!(utc("  Tue,  10   June 2025   04:00:00   GMT "), "2025-06-10T04:00:00Z", "extra spaces");
        assert_eq!(utc("10 Jun 2025 04:00:00 +01:00"), "2025-06-10T03:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 04:00:00 GMT+0200"), "2025-06-10T02:00:00Z");
        assert_eq!(utc("Sun, 1 Jun 1997 4:05:06 -0500"), "1997-06-01T09:05:06Z");
    }

    #[test]
    fn iso_8601_and_rfc_3339() {
        assert_eq!(utc("2025-06-10T04:00:00Z"), "2025-06-10T04:00:00Z");
        assert_eq!(utc("2025-06-10T04:00:00.123+02:00"), "2025-06-10T02:00:00Z");
        assert_eq!(utc("2025-06-10 04:00:00+0200"), "2025-06-10T02:00:00Z");
        assert_eq!(utc("2025-06-10T04:00Z"), "2025-06-10T04:00:00Z");
        assert_eq!(utc("2025-06-10"), "2025-06-10T00:00:00Z");
    }

    #[test]
    fn a_missing_zone_is_utc_and_flagged() {
        let p = parse_date("2025-06-10T04:00:00").unwrap();
        assert_eq!(p.at.to_rfc3339(), "2025-06-10T04:00:00+00:00");
        assert!(p.zone_missing);
        assert!(parse_date("Tue, 10 Jun 2025 04:00:00").unwrap().zone_missing);
        assert!(!parse_date("2025-06-10T04:00:00Z").unwrap().zone_missing);
    }

    #[test]
    fn other_shapes_feeds_use() {
        assert_eq!(utc("Jan 15, 2024"), "2024-01-15T00:00:00Z");
        assert_eq!(utc("January 15, 2024 3:30 PM"), "2024-01-15T15:30:00Z");
        assert_eq!(utc("2024/01/15"), "2024-01-15T00:00:00Z");
        assert_eq!(utc("2024/01/15 10:30"), "2024-01-15T10:30:00Z");
        assert_eq!(utc("15-01-2024"), "2024-01-15T00:00:00Z");
        assert_eq!(utc("15.01.2024 08:00"), "2024-01-15T08:00:00Z");
        assert_eq!(utc("01/15/2024"), "2024-01-15T00:00:00Z");
        assert_eq!(utc("1718000000"), "2024-06-10T06:13:20Z");
        assert_eq!(utc("1718000000000"), "2024-06-10T06:13:20Z");
    }

    #[test]
    fn localized_month_and_day_names() {
        assert_eq!(utc("Seg, 24 Set 2018 19:42:40 -0300"), "2018-09-24T22:42:40Z");
        assert_eq!(utc("mer, 16 nov 2022 00:38:15 +0100"), "2022-11-15T23:38:15Z");
        assert_eq!(utc("jeu., 12 déc. 2024 10:00:00 +0100"), "2024-12-12T09:00:00Z");
        assert_eq!(utc("Di, 04 Mär 2025 08:00:00 +0100"), "2025-03-04T07:00:00Z");
        assert_eq!(utc("พฤ., 03 พ.ย. 2005 21:24:18 +0000"), "2005-11-03T21:24:18Z");
    }

    #[test]
    fn nonsense_is_not_a_date() {
        for s in ["", "yesterday", "2025-13-40", "32 Jun 2025", "Tue, 10 Foo 2025", "12345", "9999-01-01"] {
            assert_eq!(parse_date(s), None, "{s:?}");
        }
    }
}
