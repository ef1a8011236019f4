//! Dates as feeds write them, everything out in UTC:
//!
//! - W3C-DTF / ISO 8601 in every precision (`2003`, `2003-12`, `2003-12-31T10:14:55.12+01:00`), compact
//!   (`20031231`, `031231`), ordinal (`2003-335`, `03335`) and week dates (`2003-W01-1`), two-digit years
//!   (`03-12-31`, `-0312`), and the slips real feeds make (a space for the `T`, `2003-012-31`, a month name);
//! - RFC 822 / 2822 with every zone name, military letter and numeric offset, and with the real-world
//!   variants: missing seconds, two-digit years, wrong or localized day names, extra commas and spaces, US zone
//!   letters (`PT`, `ET`…), `Etc/GMT`, `GMT+01:00`, month names in the languages feeds are written in;
//! - asctime (`Sun Jan  4 16:29:06 2004`), `Jan 15, 2024`, `2024/01/15`, `15.01.2024`, Unix timestamps, and
//!   the Korean forms of Korean blog software (`2004년 05월 28일 01:31:15`, `2004-05-25 오후 11:23:17`, in KST).
//!
//! Values out of range (month 13, day 32, hour 25, second 61, offset -99:99) make the date invalid: they are
//! rejected, never clamped. A date without a zone is read as UTC and flagged. Pure: strings in, dates out.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

/// A parsed date, and whether its zone had to be assumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub at: DateTime<Utc>,
    pub zone_missing: bool,
}

/// Korea's offset, assumed for the Korean date forms, which carry none.
const KST: i32 = 9 * 3600;

/// Parses one date string, or `None` when it is not a valid date.
pub fn parse_date(raw: &str) -> Option<Parsed> {
    let s = raw.trim().trim_matches('\u{a0}');
    if s.is_empty() || s.chars().count() > 80 {
        return None;
    }
    if let Some(parsed) = rfc_822_exactly(s.as_bytes()).or_else(|| rfc_3339_exactly(s.as_bytes())) {
        return Some(parsed);
    }
    unix(s).or_else(|| iso(s)).or_else(|| korean(s)).or_else(|| numeric_date(without_weekday(s))).or_else(|| words(s))
}

/// The value of the ASCII digits `digits`, when they are all digits.
fn digits_value(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, b| b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0')))
}

/// A date written exactly as RFC 822 (with a four-digit year) writes it, as most RSS feeds do: `Tue, 10 Jun
/// 2025 04:00:00 GMT` or `10 Jun 2025 04:00:00 +0200`. Read without the general reader's tokens and strings,
/// to the same value it gives (`None` for anything else, which the general reader then takes).
fn rfc_822_exactly(s: &[u8]) -> Option<Parsed> {
    let s = match s {
        [a, b, c, b',', b' ', rest @ ..] if [a, b, c].iter().all(|x| x.is_ascii_alphabetic()) => rest,
        _ => s,
    };
    let (day, s) = match s {
        [d, b' ', rest @ ..] => (digits_value(&[*d])?, rest),
        [d, e, b' ', rest @ ..] => (digits_value(&[*d, *e])?, rest),
        _ => return None,
    };
    let [m1, m2, m3, b' ', y1, y2, y3, y4, b' ', h1, h2, b':', n1, n2, b':', s1, s2, b' ', zone @ ..] = s else {
        return None;
    };
    let name = [m1.to_ascii_lowercase(), m2.to_ascii_lowercase(), m3.to_ascii_lowercase()];
    let month = MONTHS.iter().position(|m| m.as_bytes() == name)? as u32 + 1;
    let year = digits_value(&[*y1, *y2, *y3, *y4])? as i32;
    let offset = match zone {
        b"GMT" | b"UT" | b"UTC" | b"Z" => 0,
        [sign @ (b'+' | b'-'), h1, h2, m1, m2] => {
            let (hours, minutes) = (digits_value(&[*h1, *h2])?, digits_value(&[*m1, *m2])?);
            if hours > 14 || minutes >= 60 {
                return None;
            }
            let offset = (hours * 3600 + minutes * 60) as i32;
            if *sign == b'-' { -offset } else { offset }
        }
        _ => return None,
    };
    let time = clock(&[*h1, *h2], &[*n1, *n2], &[*s1, *s2])?;
    finish(NaiveDate::from_ymd_opt(year, month, day)?.and_time(time), Some(offset))
}

/// A date written exactly as RFC 3339 writes it, as Atom feeds do: `2025-06-10T04:00:00Z`,
/// `2025-06-10T04:00:00.123+02:00` (or with no zone, which then is missing). Read to the value the general
/// reader gives; `None` for anything else.
fn rfc_3339_exactly(s: &[u8]) -> Option<Parsed> {
    let [y1, y2, y3, y4, b'-', mo1, mo2, b'-', d1, d2, b'T', h1, h2, b':', n1, n2, b':', s1, s2, rest @ ..] = s else {
        return None;
    };
    let rest = match rest {
        [b'.', fraction @ ..] => {
            let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 {
                return None;
            }
            &fraction[digits..]
        }
        _ => rest,
    };
    let offset = match rest {
        [] => None,
        b"Z" => Some(0),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (hours, minutes) = (digits_value(&[*h1, *h2])?, digits_value(&[*m1, *m2])?);
            if hours > 14 || minutes >= 60 {
                return None;
            }
            let offset = (hours * 3600 + minutes * 60) as i32;
            Some(if *sign == b'-' { -offset } else { offset })
        }
        _ => return None,
    };
    let date = NaiveDate::from_ymd_opt(
        digits_value(&[*y1, *y2, *y3, *y4])? as i32,
        digits_value(&[*mo1, *mo2])?,
        digits_value(&[*d1, *d2])?,
    )?;
    finish(date.and_time(clock(&[*h1, *h2], &[*n1, *n2], &[*s1, *s2])?), offset)
}

/// Hours, minutes and seconds of two digits each, as [`parse_time`] reads them (a leap second is the last
/// second of its minute).
fn clock(hours: &[u8], minutes: &[u8], seconds: &[u8]) -> Option<NaiveTime> {
    let second = digits_value(seconds)?;
    NaiveTime::from_hms_opt(digits_value(hours)?, digits_value(minutes)?, if second == 60 { 59 } else { second })
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

/// W3C-DTF and ISO 8601: a date in any of its forms, then optionally `T` (or a space) and a time with a zone.
fn iso(s: &str) -> Option<Parsed> {
    let split = s
        .char_indices()
        .find(|(i, c)| ((*c == 'T' || *c == 't') && s[..*i].ends_with(|p: char| p.is_ascii_digit())) || *c == ' ')
        .map(|(i, _)| i);
    let (date_part, time_part) = match split {
        Some(i) => (&s[..i], s[i + 1..].trim_start()),
        None => (s, ""),
    };
    let date = iso_date(date_part)?;
    if time_part.is_empty() {
        return finish(date.and_time(NaiveTime::MIN), None);
    }
    let clock_end =
        time_part.find(|c: char| !(c.is_ascii_digit() || matches!(c, ':' | '.' | ','))).unwrap_or(time_part.len());
    let time = iso_time(&time_part[..clock_end])?;
    let zone = time_part[clock_end..].trim();
    let offset = if zone.is_empty() { None } else { Some(zone_offset(zone)?) };
    finish(date.and_time(time), offset)
}

/// The date forms of ISO 8601 and W3C-DTF.
fn iso_date(d: &str) -> Option<NaiveDate> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let num = |s: &str| -> Option<u32> { if digits(s) { s.parse().ok() } else { None } };
    if digits(d) {
        return match d.len() {
            4 => NaiveDate::from_ymd_opt(num(d)? as i32, 1, 1),
            5 => NaiveDate::from_yo_opt(century(num(&d[..2])?), num(&d[2..])?),
            6 => NaiveDate::from_ymd_opt(century(num(&d[..2])?), num(&d[2..4])?, num(&d[4..])?),
            7 => NaiveDate::from_yo_opt(num(&d[..4])? as i32, num(&d[4..])?),
            8 => NaiveDate::from_ymd_opt(num(&d[..4])? as i32, num(&d[4..6])?, num(&d[6..])?),
            _ => None,
        };
    }
    // "-0312", "-03-12": a two-digit year and a month.
    if let Some(rest) = d.strip_prefix('-') {
        let rest = rest.replace('-', "");
        return (rest.len() == 4 && digits(&rest))
            .then(|| NaiveDate::from_ymd_opt(century(num(&rest[..2])?), num(&rest[2..])?, 1))?;
    }
    // Week dates: "2003-W01-1", "2003W011", "2003-W01".
    if let Some((year, week)) = d.split_once(['W', 'w']) {
        let year = num(year.trim_end_matches('-'))? as i32;
        let week = week.replace('-', "");
        if !digits(&week) {
            return None;
        }
        let (w, day) = match week.len() {
            2 => (num(&week)?, 1),
            3 => (num(&week[..2])?, num(&week[2..])?),
            _ => return None,
        };
        let weekday = chrono::Weekday::try_from(u8::try_from(day.checked_sub(1)?).ok()?).ok()?;
        return NaiveDate::from_isoywd_opt(year, w, weekday);
    }
    let parts: Vec<&str> = d.split('-').collect();
    let year = |y: &str| -> Option<i32> {
        match y.len() {
            4 => Some(num(y)? as i32),
            2 => Some(century(num(y)?)),
            _ => None,
        }
    };
    // A month: two digits, Google's three ("012"), or a name ("július").
    let month = |m: &str| -> Option<u32> {
        match m.len() {
            1 | 2 => num(m),
            3 if m.starts_with('0') => num(m),
            _ if !digits(m) => month_of(&m.to_lowercase()),
            _ => None,
        }
    };
    match parts.as_slice() {
        [y, o] if o.len() == 3 && digits(o) => NaiveDate::from_yo_opt(year(y)?, num(o)?),
        [y, m] if y.len() == 4 => NaiveDate::from_ymd_opt(year(y)?, month(m)?, 1),
        [y, m, day] if (1..=2).contains(&day.len()) => NaiveDate::from_ymd_opt(year(y)?, month(m)?, num(day)?),
        _ => None,
    }
}

/// A two-digit year: 70–99 are the 1900s, the rest this century.
fn century(yy: u32) -> i32 {
    if yy >= 70 { 1900 + yy as i32 } else { 2000 + yy as i32 }
}

/// `hh:mm`, `hh:mm:ss`, `hh:mm:ss.fff`, or compact `hhmm`, `hhmmss`.
fn iso_time(t: &str) -> Option<NaiveTime> {
    if t.contains(':') {
        return parse_time(t);
    }
    let (clock, _fraction) = t.split_once(['.', ',']).unwrap_or((t, ""));
    match clock.len() {
        4 => parse_time(&format!("{}:{}", &clock[..2], &clock[2..])),
        6 => parse_time(&format!("{}:{}:{}", &clock[..2], &clock[2..4], &clock[4..])),
        _ => None,
    }
}

/// The Korean forms: `2004년 05월 28일 01:31:15` (OnBlog) and `2004-05-25 오후 11:23:17` (Nate), both in KST.
fn korean(s: &str) -> Option<Parsed> {
    // Every other date is ASCII: no Korean word to look for.
    if s.is_ascii() {
        return None;
    }
    let dated = s.contains('년') || s.contains('월') || s.contains('일');
    let pm = s.contains("오후");
    if !dated && !pm && !s.contains("오전") {
        return None;
    }
    let numbers: Vec<u32> = s
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let date = NaiveDate::from_ymd_opt(*numbers.first()? as i32, *numbers.get(1)?, *numbers.get(2)?)?;
    let mut hour = numbers.get(3).copied().unwrap_or(0);
    if pm && hour < 12 {
        hour += 12;
    } else if s.contains("오전") && hour == 12 {
        hour = 0;
    }
    let time =
        NaiveTime::from_hms_opt(hour, numbers.get(4).copied().unwrap_or(0), numbers.get(5).copied().unwrap_or(0))?;
    finish(date.and_time(time), Some(KST))
}

/// The text after a leading day name and its comma ("Fri, 2006/09/15" → "2006/09/15").
fn without_weekday(s: &str) -> &str {
    match s.split_once(',') {
        Some((head, rest))
            if !head.trim().is_empty()
                && !head.trim().contains(char::is_whitespace)
                && !head.chars().any(|c| c.is_ascii_digit()) =>
        {
            rest.trim()
        }
        _ => s,
    }
}

/// `2024/01/15`, `15-01-2024`, `15.01.2024`, `01/15/2024`, each with an optional time and zone.
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
        return finish(date.and_time(NaiveTime::MIN), None);
    }
    let (time_part, zone) = rest.split_once(' ').unwrap_or((rest, ""));
    let zone_at = time_part.find(['Z', '+', '-']).unwrap_or(time_part.len());
    let time = parse_time(&time_part[..zone_at])?;
    let zone = format!("{}{}", &time_part[zone_at..], zone).trim().to_string();
    let offset = if zone.is_empty() { None } else { Some(zone_offset(&zone)?) };
    finish(date.and_time(time), offset)
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// Month names (by prefix) in the other languages feeds localize their dates into: French, German, Spanish,
/// Italian, Portuguese, Dutch, Polish, Czech, Hungarian, Turkish, Russian, Ukrainian, Greek and Thai.
/// Checked after the English ones.
#[rustfmt::skip]
const LOCAL_MONTHS: &[(&str, u32)] = &[
    ("janv", 1), ("ene", 1), ("gen", 1), ("jän", 1), ("sty", 1), ("led", 1), ("oca", 1), ("янв", 1), ("січ", 1),
    ("févr", 2), ("fevr", 2), ("fév", 2), ("fev", 2), ("lut", 2), ("úno", 2), ("şub", 2), ("фев", 2), ("лют", 2),
    ("mär", 3), ("mrz", 3), ("mrt", 3), ("márc", 3), ("bře", 3), ("мар", 3), ("бер", 3),
    ("avr", 4), ("abr", 4), ("kwi", 4), ("dub", 4), ("ápr", 4), ("nis", 4), ("апр", 4), ("кві", 4),
    ("mai", 5), ("mei", 5), ("mag", 5), ("maj", 5), ("máj", 5), ("kvě", 5), ("ма", 5), ("тра", 5),
    ("juin", 6), ("giu", 6), ("cze", 6), ("čer", 6), ("jún", 6), ("haz", 6), ("июн", 6), ("чер", 6),
    ("juil", 7), ("lug", 7), ("lip", 7), ("čvc", 7), ("júl", 7), ("tem", 7), ("июл", 7), ("лип", 7),
    ("août", 8), ("aoû", 8), ("ago", 8), ("sie", 8), ("srp", 8), ("ağu", 8), ("авг", 8), ("сер", 8),
    ("sept", 9), ("set", 9), ("wrz", 9), ("zář", 9), ("szept", 9), ("eyl", 9), ("сен", 9), ("вер", 9),
    ("okt", 10), ("ott", 10), ("out", 10), ("paź", 10), ("říj", 10), ("eki", 10), ("окт", 10), ("жов", 10),
    ("lis", 11), ("kas", 11), ("ноя", 11),
    ("déc", 12), ("dez", 12), ("dic", 12), ("gru", 12), ("pro", 12), ("ara", 12), ("дек", 12), ("гру", 12),
    ("ιαν", 1), ("φεβ", 2), ("μαρ", 3), ("μάρ", 3), ("απρ", 4), ("μαΐ", 5), ("μαι", 5), ("μάι", 5), ("μαη", 5),
    ("μάη", 5), ("ιουν", 6), ("ιούν", 6), ("ιουλ", 7), ("ιούλ", 7), ("αυγ", 8), ("αύγ", 8), ("σεπ", 9),
    ("οκτ", 10), ("νοε", 11), ("νοέ", 11), ("δεκ", 12),
    ("ม.ค", 1), ("ก.พ", 2), ("มี.ค", 3), ("เม.ย", 4), ("พ.ค", 5), ("มิ.ย", 6),
    ("ก.ค", 7), ("ส.ค", 8), ("ก.ย", 9), ("ต.ค", 10), ("พ.ย", 11), ("ธ.ค", 12),
];

/// The month a (lowercase) word names, in English or one of [`LOCAL_MONTHS`].
fn month_of(word: &str) -> Option<u32> {
    if word.chars().count() < 2 {
        return None;
    }
    if word.chars().count() >= 3
        && let Some(m) = MONTHS.iter().position(|m| word.starts_with(m))
    {
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
    let s = without_weekday(s);
    // Thai abbreviations carry dots inside ("พ.ย."); keep those, drop the others.
    let cleaned: String = s
        .char_indices()
        .map(|(i, c)| {
            let thai_before = s[..i].chars().next_back().is_some_and(|p| ('\u{0E00}'..='\u{0E7F}').contains(&p));
            if c == ',' || (c == '.' && !thai_before) { ' ' } else { c }
        })
        .collect();
    for token in cleaned.split_whitespace() {
        let lower = token.to_lowercase();
        if token.contains(':') && token.starts_with(|c: char| c.is_ascii_digit()) {
            // A time, perhaps with the zone glued on: "04:00:00+0100", "4:00pm".
            let end = token.find(['+', '-', 'Z']).unwrap_or(token.len());
            let (clock, suffix) =
                token[..end].split_at(token[..end].find(|c: char| c.is_ascii_alphabetic()).unwrap_or(end));
            time = Some(parse_time(clock)?);
            match suffix.to_ascii_lowercase().as_str() {
                "am" => pm = Some(false),
                "pm" => pm = Some(true),
                "" => {}
                _ => return None,
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
        if token.starts_with(['+', '-']) {
            offset = Some(zone_offset(token)?);
            continue;
        }
        if token.bytes().all(|b| b.is_ascii_digit()) {
            let n: u32 = token.parse().ok()?;
            match token.len() {
                4 if year.is_none() => year = Some(n as i32),
                1 | 2 if day.is_none() => day = Some(n),
                2 if year.is_none() => year = Some(century(n)),
                _ => return None,
            }
            continue;
        }
        if let Some(m) = month_of(&lower).filter(|_| month.is_none()) {
            month = Some(m);
            continue;
        }
        if lower.len() >= 3 && WEEKDAYS.iter().any(|d| lower.starts_with(d)) {
            continue;
        }
        if let Some(o) = zone_offset(&lower) {
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
    finish(date.and_time(time), offset)
}

/// The moment a local time at an offset (seconds east of UTC; `None` when the zone is unknown) stands for.
fn finish(local: NaiveDateTime, offset_secs: Option<i32>) -> Option<Parsed> {
    let utc = local.checked_sub_signed(chrono::Duration::seconds(i64::from(offset_secs.unwrap_or(0))))?;
    Some(Parsed { at: Utc.from_utc_datetime(&utc), zone_missing: offset_secs.is_none() })
}

/// `hh:mm`, `hh:mm:ss`, `hh:mm:ss.fff`. A leap second (`:60`) reads as the last second of its minute; hours,
/// minutes and seconds beyond that are not a time.
fn parse_time(s: &str) -> Option<NaiveTime> {
    let s = s.trim();
    let mut parts = s.split(':');
    let number = |p: &str| -> Option<u32> {
        (!p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().ok())?
    };
    let hour = number(parts.next()?)?;
    let minute = number(parts.next().unwrap_or("0"))?;
    let second_part = parts.next().unwrap_or("0");
    let (second, fraction) = second_part.split_once(['.', ',']).unwrap_or((second_part, "0"));
    if !fraction.bytes().all(|b| b.is_ascii_digit()) || parts.next().is_some() {
        return None;
    }
    let second = number(second)?;
    let second = if second == 60 { 59 } else { second };
    NaiveTime::from_hms_opt(hour, minute, second)
}

/// A zone: `Z`, a numeric offset (`+01:00`, `+0100`, `-5`), a name (`GMT`, `EST`, `PT`, `CEST`…), an RFC 822
/// military letter, `GMT+2` / `UTC-05:00`, or `Etc/GMT-2` (whose sign is POSIX's, the other way round).
/// Seconds east of UTC.
fn zone_offset(s: &str) -> Option<i32> {
    let lower = s.trim().to_ascii_lowercase();
    if let Some(o) = named_zone(&lower) {
        return Some(o);
    }
    if let Some(rest) = lower.strip_prefix("etc/gmt").or_else(|| lower.strip_prefix("etc/utc")) {
        return if rest.is_empty() { Some(0) } else { numeric_offset(rest).map(|o| -o) };
    }
    if let Some(rest) =
        lower.strip_prefix("gmt").or_else(|| lower.strip_prefix("utc")).or_else(|| lower.strip_prefix("ut"))
    {
        return numeric_offset(rest);
    }
    numeric_offset(&lower)
}

/// `+01:00`, `+0100`, `-5`, `+530`.
fn numeric_offset(s: &str) -> Option<i32> {
    let sign = match s.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let body = &s[1..];
    if body.matches(':').count() > 1 || body.starts_with(':') || body.ends_with(':') {
        return None;
    }
    let digits: String = body.chars().filter(|c| *c != ':').collect();
    if digits.is_empty() || digits.len() > 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (hours, minutes) = match (body.split_once(':'), digits.len()) {
        (Some((h, m)), _) => (h.parse::<i32>().ok()?, m.parse::<i32>().ok()?),
        (None, 1 | 2) => (digits.parse::<i32>().ok()?, 0),
        (None, 3) => (digits[..1].parse::<i32>().ok()?, digits[1..].parse::<i32>().ok()?),
        (None, _) => (digits[..2].parse::<i32>().ok()?, digits[2..].parse::<i32>().ok()?),
    };
    (hours <= 14 && minutes < 60).then_some(sign * (hours * 3600 + minutes * 60))
}

/// Zone names: RFC 822's (with its military letters, signed as RFC 822 writes them), the US letters feeds
/// use (`PT`, `ET`…), and the common others.
fn named_zone(name: &str) -> Option<i32> {
    if name.len() == 1 {
        let c = name.as_bytes()[0];
        let hours = match c {
            b'z' => 0,
            b'a'..=b'i' => -i32::from(c - b'a' + 1),
            b'k'..=b'm' => -i32::from(c - b'k' + 10),
            b'n'..=b'y' => i32::from(c - b'n' + 1),
            _ => return None,
        };
        return Some(hours * 3600);
    }
    let hours: f32 = match name {
        "gmt" | "ut" | "utc" | "wet" | "zulu" | "universal" => 0.0,
        "est" | "et" => -5.0,
        "edt" => -4.0,
        "cst" | "ct" => -6.0,
        "cdt" => -5.0,
        "mst" | "mt" => -7.0,
        "mdt" => -6.0,
        "pst" | "pt" => -8.0,
        "pdt" => -7.0,
        "akst" => -9.0,
        "akdt" => -8.0,
        "hst" => -10.0,
        "ast" | "at" => -4.0,
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

    /// The general reader, without the exact-shape shortcuts.
    fn general(s: &str) -> Option<Parsed> {
        let s = s.trim().trim_matches('\u{a0}');
        unix(s)
            .or_else(|| iso(s))
            .or_else(|| korean(s))
            .or_else(|| numeric_date(without_weekday(s)))
            .or_else(|| words(s))
    }

    #[test]
    fn the_shortcuts_read_what_the_general_reader_reads() {
        let mut tried = 0;
        for weekday in ["", "Tue, ", "Sun, ", "Xyz, ", "1ue, "] {
            for day in ["1", "10", "31", "32", "0", "x1"] {
                for month in ["Jun", "jun", "JUN", "Jux", "June"] {
                    for time in ["04:00:00", "23:59:60", "24:00:00", "4:00:00", "04:60:00"] {
                        for zone in ["GMT", "UT", "UTC", "Z", "+0200", "-0930", "+1500", "-0060", "EST", "gmt", ""] {
                            let date = format!("{weekday}{day} {month} 2025 {time} {zone}");
                            assert_eq!(parse_date(&date), general(&date), "{date}");
                            assert!(rfc_822_exactly(date.as_bytes()).is_none_or(|p| Some(p) == general(&date)));
                            tried += 1;
                        }
                    }
                }
            }
        }
        for date in ["2025-06-10", "2025-02-30", "2025-13-01", "2025-06-10x"] {
            for time in ["T04:00:00", "T23:59:60", "T24:00:00", "T04:00:00.5", "T04:00:00.", "t04:00:00", "T4:00:00"] {
                for zone in ["", "Z", "+02:00", "-09:30", "+15:00", "+02:60", "+0200", "z", " Z"] {
                    let date = format!("{date}{time}{zone}");
                    assert_eq!(parse_date(&date), general(&date), "{date}");
                    assert!(rfc_3339_exactly(date.as_bytes()).is_none_or(|p| Some(p) == general(&date)));
                    tried += 1;
                }
            }
        }
        assert!(rfc_822_exactly(b"Tue, 10 Jun 2025 04:00:00 GMT").is_some());
        assert!(rfc_3339_exactly(b"2025-06-10T04:00:00.123+02:00").is_some());
        assert!(tried > 8_000);
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
        assert_eq!(utc("Tue, 10 Jun, 2025 04:00:00 UTC"), "2025-06-10T04:00:00Z", "extra comma");
        assert_eq!(utc("10 Jun 2025 04:00:00 +01:00"), "2025-06-10T03:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 04:00:00 GMT+0200"), "2025-06-10T02:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 04:00:00 GMT-02:30"), "2025-06-10T06:30:00Z");
        assert_eq!(utc("Sun, 1 Jun 1997 4:05:06 -0500"), "1997-06-01T09:05:06Z");
        assert_eq!(utc("Tue, 10 Jun 2025"), "2025-06-10T00:00:00Z", "no time");
        assert_eq!(utc("Tue Jun 10 2025 04:00:00 +0200"), "2025-06-10T02:00:00Z", "month before day");
        assert_eq!(utc("Sat, 01 Jan 0500 00:00:00 +0100"), "0499-12-31T23:00:00Z", "an ancient year");
    }

    #[test]
    fn every_zone_name_rfc_822_and_feeds_use() {
        for (zone, hour) in [("UT", 12), ("GMT", 12), ("Z", 12), ("EST", 17), ("EDT", 16), ("CST", 18), ("CDT", 17)]
            .into_iter()
            .chain([("MST", 19), ("MDT", 18), ("PST", 20), ("PDT", 19), ("MET", 11), ("MEST", 10), ("CEST", 10)])
        {
            assert_eq!(
                utc(&format!("Tue, 10 Jun 2025 12:00:00 {zone}")),
                format!("2025-06-10T{hour}:00:00Z"),
                "{zone}"
            );
        }
        for (zone, hour) in [("ET", 17), ("CT", 18), ("MT", 19), ("PT", 20), ("AT", 16), ("Etc/GMT", 12)] {
            assert_eq!(
                utc(&format!("Tue, 10 Jun 2025 12:00:00 {zone}")),
                format!("2025-06-10T{hour}:00:00Z"),
                "{zone}"
            );
        }
        assert_eq!(utc("Tue, 10 Jun 2025 12:00:00 Etc/GMT-2"), "2025-06-10T10:00:00Z", "POSIX signs are reversed");
        // RFC 822's military letters, with the signs its text gives: A is -1, N is +1, M is -12, Y is +12.
        assert_eq!(utc("Tue, 10 Jun 2025 12:00:00 A"), "2025-06-10T13:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 12:00:00 N"), "2025-06-10T11:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 12:00:00 M"), "2025-06-11T00:00:00Z");
        assert_eq!(utc("Tue, 10 Jun 2025 12:00:00 Y"), "2025-06-10T00:00:00Z");
        assert_eq!(parse_date("Tue, 10 Jun 2025 12:00:00 J"), None, "J is not a zone");
    }

    #[test]
    fn iso_8601_and_rfc_3339() {
        assert_eq!(utc("2025-06-10T04:00:00Z"), "2025-06-10T04:00:00Z");
        assert_eq!(utc("2025-06-10t04:00:00z"), "2025-06-10T04:00:00Z");
        assert_eq!(utc("2025-06-10T04:00:00.123+02:00"), "2025-06-10T02:00:00Z");
        assert_eq!(utc("2025-06-10 04:00:00+0200"), "2025-06-10T02:00:00Z");
        assert_eq!(utc("2025-06-10 04:00:00 -00:30"), "2025-06-10T04:30:00Z");
        assert_eq!(utc("2025-06-10T04:00Z"), "2025-06-10T04:00:00Z");
        assert_eq!(utc("2025-06-10"), "2025-06-10T00:00:00Z");
        assert_eq!(utc("2024-02-28T20:00:00-08:00"), "2024-02-29T04:00:00Z", "across a leap day");
    }

    #[test]
    fn w3c_dtf_reduced_precision() {
        assert_eq!(utc("2025"), "2025-01-01T00:00:00Z");
        assert_eq!(utc("2025-06"), "2025-06-01T00:00:00Z");
    }

    #[test]
    fn iso_8601_compact_ordinal_and_week_forms() {
        assert_eq!(utc("20250610"), "2025-06-10T00:00:00Z");
        assert_eq!(utc("250610"), "2025-06-10T00:00:00Z");
        assert_eq!(utc("25-06-10"), "2025-06-10T00:00:00Z");
        assert_eq!(utc("-2506"), "2025-06-01T00:00:00Z");
        assert_eq!(utc("-25-06"), "2025-06-01T00:00:00Z");
        assert_eq!(utc("25161"), "2025-06-10T00:00:00Z", "two-digit year and day of the year");
        assert_eq!(utc("2025161"), "2025-06-10T00:00:00Z");
        assert_eq!(utc("2025-161"), "2025-06-10T00:00:00Z");
        assert_eq!(utc("2025-W24-2"), "2025-06-10T00:00:00Z");
        assert_eq!(utc("2025W242"), "2025-06-10T00:00:00Z");
        assert_eq!(utc("20250610T041500Z"), "2025-06-10T04:15:00Z");
        assert_eq!(utc("2025-006-10T04:00:00+00:00"), "2025-06-10T04:00:00Z", "a month of three digits");
        assert_eq!(utc("2025-június-10T9:15-05:00"), "2025-06-10T14:15:00Z", "a Hungarian month name");
    }

    #[test]
    fn out_of_range_values_are_rejected_not_clamped() {
        for s in [
            "2025-06-10T04:00:61Z",
            "2025-06-10T04:61:00Z",
            "2025-06-10T25:00:00Z",
            "2025-13-10",
            "2025-06-32",
            "Tue, 32 Jun 2025 04:00:00 GMT",
            "Tue, 10 Jun 2025 1:2:3:4 GMT",
            "Tue, 10 Jun 2025 04:00:00 +zz:00",
            "Tue, 10 Jun 2025 04:00:00 +00:zz",
            "2025-06-10T04:00:00-99:99",
            "2025-06-10T04:00:00+00:xx",
            "2025-06-10T04:xx:00Z",
            "2025-xx-10",
            "2025-06-10-01",
            "2025-06-10T04:00:00-06:00Tmore",
            "Tue, 10 Jun xx 04:00:00 GMT",
            "Tue, Jun x 2025 04:00:00 GMT",
        ] {
            assert_eq!(parse_date(s), None, "{s:?}");
        }
        assert_eq!(utc("2016-12-31T23:59:60Z"), "2016-12-31T23:59:59Z", "a leap second is its minute's last");
    }

    #[test]
    fn asctime_with_and_without_a_zone() {
        assert_eq!(utc("Tue Jun  3 04:00:00 2025"), "2025-06-03T04:00:00Z");
        assert_eq!(utc("Tue Jun 10 04:00:00 +0200 2025"), "2025-06-10T02:00:00Z");
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
        assert_eq!(utc("Mon, 2024/01/15 10:30:00 EDT"), "2024-01-15T14:30:00Z", "Perforce's form");
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
        assert_eq!(utc("Τρι, 10 Ιούν 2025 12:00:00 EST"), "2025-06-10T17:00:00Z", "Greek");
        assert_eq!(utc("Вт, 10 июн 2025 12:00:00 +0300"), "2025-06-10T09:00:00Z", "Russian");
        assert_eq!(utc("wt, 10 cze 2025 12:00:00 +0200"), "2025-06-10T10:00:00Z", "Polish");
        assert_eq!(utc("Sal, 10 Haz 2025 12:00:00 +0300"), "2025-06-10T09:00:00Z", "Turkish");
    }

    #[test]
    fn korean_dates_are_in_korean_time() {
        assert_eq!(utc("2025년 06월 10일 09:30:00"), "2025-06-10T00:30:00Z");
        assert_eq!(utc("2025-06-10 오후 11:23:17"), "2025-06-10T14:23:17Z");
        assert_eq!(utc("2025-06-10 오전 12:05:00"), "2025-06-09T15:05:00Z");
    }

    #[test]
    fn any_text_is_safe_to_read() {
        for s in
            ["-aé1", "-é12", "2003-W1é", "2003-Wé1", "é", "+é", "Tue, é Jun 2025 04:00:00 +é", "2025-é-10", "٣٤٥٦٧"]
        {
            assert_eq!(parse_date(s), None, "{s:?}");
        }
    }

    #[test]
    fn nonsense_is_not_a_date() {
        for s in ["", "yesterday", "2025-13-40", "32 Jun 2025", "Tue, 10 Foo 2025", "12345678901", "013", "today 10:00"]
        {
            assert_eq!(parse_date(s), None, "{s:?}");
        }
    }
}
