//! A second, light look at a feed's items for what feed-rs does not keep: `media:title` outside a media group
//! and `dc:title` (titles), `dc:subject` (categories) and `dc:date` (which must beat `pubDate`). Run only when
//! one of those matters.

use quick_xml::events::Event;

/// What the second look found in one `<item>` or `<entry>`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemExtras {
    /// The first `*:title` child.
    pub title: Option<String>,
    pub subjects: Vec<String>,
    pub dc_date: Option<String>,
    /// The `url` of a `media:thumbnail` directly in the item.
    pub thumbnail: Option<String>,
}

/// True when a second look could add something feed-rs missed.
pub fn worth_scanning(text: &str, missing_titles: bool) -> bool {
    missing_titles
        || text.contains("dc:subject")
        || text.contains("media:thumbnail")
        || (text.contains("dc:date") && text.contains("pubDate"))
}

/// Every item's extras, in document order.
pub fn scan_items(text: &str) -> Vec<ItemExtras> {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = false;
    let mut items: Vec<ItemExtras> = Vec::new();
    let mut depth = 0usize;
    let mut item_depth: Option<usize> = None;
    // The field being read (its qualified name) and its text so far.
    let mut field: Option<String> = None;
    let mut current = String::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                depth += 1;
                let name = e.name().as_ref().to_string();
                let local = e.local_name().as_ref().to_string();
                match item_depth {
                    None if local == "item" || local == "entry" => {
                        item_depth = Some(depth);
                        items.push(ItemExtras::default());
                    }
                    Some(d) if depth == d + 1 && (local == "title" || name == "dc:subject" || name == "dc:date") => {
                        field = Some(name);
                        current.clear();
                    }
                    _ => {}
                }
            }
            Ok(Event::Empty(e)) => {
                let local = e.local_name().as_ref().to_string();
                match item_depth {
                    None if local == "item" || local == "entry" => items.push(ItemExtras::default()),
                    Some(d) if depth == d && e.name().as_ref() == "media:thumbnail" => {
                        let url =
                            e.attributes().flatten().find(|a| a.key.as_ref() == "url").map(|a| a.value.to_string());
                        if let (Some(url), Some(item)) = (url, items.last_mut()) {
                            item.thumbnail =
                                item.thumbnail.take().or(Some(crate::text::decode_entities(&url).into_owned()));
                        }
                    }
                    _ => {}
                }
            }
            Ok(Event::Text(t)) if field.is_some() => {
                current.push_str(&crate::text::decode_entities(&t.clone().into_inner()))
            }
            Ok(Event::CData(t)) if field.is_some() => current.push_str(&t.clone().into_inner()),
            Ok(Event::End(_)) => {
                if let (Some(name), Some(item)) = (field.take(), items.last_mut()) {
                    let value = std::mem::take(&mut current);
                    match name.as_str() {
                        "dc:subject" => item.subjects.push(value),
                        "dc:date" => item.dc_date = item.dc_date.take().or(Some(value)),
                        _ => item.title = item.title.take().or(Some(value)),
                    }
                }
                if item_depth == Some(depth) {
                    item_depth = None;
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    items
}

/// The Syndication module's `sy:updatePeriod` / `sy:updateFrequency` as seconds between updates.
pub fn update_period(text: &str) -> Option<u64> {
    if !text.contains("updatePeriod") {
        return None;
    }
    let value = |name: &str| {
        let open = format!("<sy:{name}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find('<')? + start;
        Some(text[start..end].trim().to_ascii_lowercase())
    };
    let period: u64 = match value("updatePeriod")?.as_str() {
        "hourly" => 3600,
        "daily" => 86_400,
        "weekly" => 7 * 86_400,
        "monthly" => 30 * 86_400,
        "yearly" => 365 * 86_400,
        _ => return None,
    };
    let frequency = value("updateFrequency").and_then(|f| f.parse::<u64>().ok()).filter(|f| *f > 0).unwrap_or(1);
    Some(period / frequency)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_period_from_the_syndication_module() {
        let xml =
            "<channel><sy:updatePeriod> daily </sy:updatePeriod><sy:updateFrequency>2</sy:updateFrequency></channel>";
        assert_eq!(update_period(xml), Some(43_200));
        assert_eq!(update_period("<sy:updatePeriod>hourly</sy:updatePeriod>"), Some(3600));
        assert_eq!(update_period("<channel/>"), None);
    }

    #[test]
    fn finds_titles_subjects_and_dc_dates_per_item() {
        let xml = r#"<rss><channel><title>feed</title>
<item><media:title>M</media:title><dc:subject>a</dc:subject><dc:subject>b</dc:subject><dc:date>2025-01-01</dc:date></item>
<item><title>T</title><media:title>ignored</media:title><media:thumbnail url="http://x/t.jpg"/></item><item/></channel></rss>"#;
        let items = scan_items(xml);
        assert_eq!(items.len(), 3);
        assert_eq!(
            items[0],
            ItemExtras {
                title: Some("M".into()),
                subjects: vec!["a".into(), "b".into()],
                dc_date: Some("2025-01-01".into()),
                thumbnail: None
            }
        );
        assert_eq!(items[1].title.as_deref(), Some("T"));
        assert_eq!(items[1].thumbnail.as_deref(), Some("http://x/t.jpg"));
        assert_eq!(items[2], ItemExtras::default());
    }
}
