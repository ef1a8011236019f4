use super::*;

fn enc(encoding: &'static encoding_rs::Encoding, text: &str) -> Vec<u8> {
    encoding.encode(text).0.into_owned()
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    text.encode_utf16().flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() }).collect()
}

fn utf32(text: &str, big_endian: bool) -> Vec<u8> {
    text.chars().flat_map(|c| if big_endian { (c as u32).to_be_bytes() } else { (c as u32).to_le_bytes() }).collect()
}

/// A tiny feed: the parser stand-in accepts text that holds a `<rss` root.
fn feed(decl: Option<&str>, title: &str) -> String {
    let decl = decl.map(|e| format!("<?xml version=\"1.0\" encoding=\"{e}\"?>\n")).unwrap_or_default();
    format!("{decl}<rss version=\"2.0\"><channel><title>{title}</title></channel></rss>")
}

fn accept_rss(text: &str) -> Result<String, Rejection<String>> {
    if text.contains("<rss") {
        Ok(text.to_string())
    } else {
        Err(Rejection { error: "no rss root".into(), retry: true })
    }
}

fn run(bytes: &[u8], content_type: Option<&str>) -> (String, Decision) {
    let options = Options { content_type, ..Options::default() };
    match decode_with(bytes, &options, accept_rss) {
        Ok(r) => r,
        Err(Failure::Decode(e)) => panic!("decode error: {e}"),
        Err(Failure::Rejected { error, decision }) => panic!("rejected: {error} {decision:?}"),
    }
}

#[test]
fn well_labelled_utf8_takes_the_strict_path() {
    let (text, d) = run(feed(Some("utf-8"), "Grüße").as_bytes(), Some("application/rss+xml; charset=utf-8"));
    assert!(text.contains("Grüße"));
    assert_eq!((d.encoding.as_str(), d.source, d.lenient), ("UTF-8", Source::HttpCharset, false));
    assert!(d.overridden.is_empty() && d.notes.is_empty(), "{d:?}");
}

#[test]
fn http_charset_beats_a_lying_declaration_and_says_so() {
    let bytes = enc(encoding_rs::KOI8_R, &feed(Some("utf-8"), "Новости"));
    let (text, d) = run(&bytes, Some("application/rss+xml; charset=koi8-r"));
    assert!(text.contains("Новости"));
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>"));
    assert_eq!((d.encoding.as_str(), d.source), ("KOI8-R", Source::HttpCharset));
    assert_eq!(d.overridden, vec!["xml_declaration"]);
    assert_eq!(d.summary(), "KOI8-R from the HTTP charset; the XML declaration said utf-8 and was overridden");
}

#[test]
fn koi8r_served_as_text_html_with_a_utf8_declaration_is_still_read_right() {
    let bytes = enc(encoding_rs::KOI8_R, &feed(Some("utf-8"), "Как пережить новогоднюю ночь"));
    let options = Options { content_type: Some("text/html"), tld: Some("ru"), ..Options::default() };
    let (text, d) = decode_with(&bytes, &options, accept_rss).unwrap();
    assert!(text.contains("Как пережить новогоднюю ночь"), "{text}");
    assert_eq!(d.source, Source::Detector);
    assert!(d.lenient);
    assert_eq!(d.overridden, vec!["xml_declaration"]);
    assert!(d.strict.rule.contains("not an XML media type"), "{:?}", d.strict);
}

#[test]
fn bom_beats_the_charset_parameter() {
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend(feed(None, "é").as_bytes());
    let (text, d) = run(&bytes, Some("text/xml; charset=windows-1252"));
    assert!(text.contains("<title>é</title>") && !text.starts_with('\u{feff}'));
    assert_eq!(d.source, Source::Bom);
    assert_eq!(d.overridden, vec!["http_charset"]);
}

#[test]
fn bom_beats_a_conflicting_declaration_after_the_strict_error() {
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend(feed(Some("US-ASCII"), "“quoted”").as_bytes());
    let (text, d) = run(&bytes, None);
    assert!(text.contains("“quoted”"));
    assert_eq!(d.source, Source::Bom);
    assert!(d.lenient);
    assert!(d.strict.rule.starts_with("raw 1.4"), "{}", d.strict.rule);
}

#[test]
fn utf16_both_orders_with_and_without_bom() {
    let doc = feed(Some("UTF-16"), "日本語");
    for big_endian in [true, false] {
        let mut with_bom = if big_endian { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
        with_bom.extend(utf16(&doc, big_endian));
        let (text, d) = run(&with_bom, None);
        assert!(text.contains("日本語") && text.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>"));
        assert_eq!(d.source, Source::Bom);
        let (text, d) = run(&utf16(&doc, big_endian), None);
        assert!(text.contains("日本語"));
        assert_eq!(d.source, Source::FirstBytes, "{d:?}");
        assert_eq!(d.encoding, if big_endian { "UTF-16BE" } else { "UTF-16LE" });
    }
}

#[test]
fn utf16_without_declaration_or_bom_is_found_by_its_first_bytes() {
    let (text, d) = run(&utf16(&feed(None, "Ωmega"), false), Some("application/xml"));
    assert!(text.contains("Ωmega"));
    assert_eq!((d.encoding.as_str(), d.source), ("UTF-16LE", Source::FirstBytes));
}

#[test]
fn utf32_with_bom_and_by_appendix_f() {
    let doc = feed(Some("UTF-32"), "😀 ok");
    let mut bytes = vec![0x00, 0x00, 0xFE, 0xFF];
    bytes.extend(utf32(&doc, true));
    let (text, d) = run(&bytes, None);
    assert!(text.contains("😀 ok"));
    assert_eq!((d.encoding.as_str(), d.source), ("UTF-32BE", Source::Bom));
    let (text, d) = run(&utf32(&doc, false), None);
    assert!(text.contains("😀 ok"));
    assert_eq!((d.encoding.as_str(), d.source), ("UTF-32LE", Source::FirstBytes));
}

#[test]
fn text_xml_without_charset_is_ascii_strictly_but_the_text_still_comes_out_right() {
    let (_, d) = run(feed(Some("utf-8"), "plain").as_bytes(), Some("text/xml"));
    assert_eq!((d.encoding.as_str(), d.source), ("US-ASCII", Source::MediaTypeDefault));
    assert!(d.overridden.is_empty(), "ASCII reads the same in both: {d:?}");
    let (text, d) = run(feed(Some("utf-8"), "Iñtërnâtiônàlizætiøn").as_bytes(), Some("text/xml"));
    assert!(text.contains("Iñtërnâtiônàlizætiøn"));
    assert_eq!((d.encoding.as_str(), d.source), ("UTF-8", Source::XmlDeclaration));
    assert!(d.lenient);
}

#[test]
fn iso_8859_1_reads_as_windows_1252() {
    let (text, d) = run(&enc(encoding_rs::WINDOWS_1252, &feed(None, "“curly”")), Some("text/xml; charset=ISO-8859-1"));
    assert!(text.contains("“curly”"));
    assert_eq!(d.encoding, "windows-1252");
}

#[test]
fn utf8_declared_as_iso_8859_1_is_read_as_utf8() {
    let (text, d) = run(feed(Some("ISO-8859-1"), "테스트 Café").as_bytes(), None);
    assert!(text.contains("테스트 Café"), "{text}");
    assert_eq!(d.encoding, "UTF-8");
    assert_eq!(d.overridden, vec!["xml_declaration"]);
    // Declared windows-1252 is believed: there the same bytes are letters.
    let (text, d) = run(feed(Some("windows-1252"), "Euro €").as_bytes(), None);
    assert!(text.contains("Euro â‚¬"), "{text}");
    assert_eq!(d.encoding, "windows-1252");
}

#[test]
fn legacy_bytes_without_any_label_go_to_the_detector() {
    let bytes = enc(encoding_rs::SHIFT_JIS, &feed(None, "DrecomRSSに記事投稿が反映されない問題について調べています"));
    let (text, d) = run(&bytes, Some("application/xml"));
    assert!(text.contains("記事投稿"), "{text}");
    assert_eq!((d.encoding.as_str(), d.source), ("Shift_JIS", Source::Detector));
    assert_eq!(d.signals.detected.as_deref(), Some("Shift_JIS"));
}

#[test]
fn mac_cyrillic_is_told_from_windows_1251() {
    let text = "Москва и Санкт-Петербург. Новости России: Правительство обсудило бюджет. Москва.";
    let bytes = enc(encoding_rs::X_MAC_CYRILLIC, &feed(None, text));
    let (decoded, d) = run(&bytes, None);
    assert!(decoded.contains(text), "{decoded}");
    assert_eq!(d.encoding, "x-mac-cyrillic");
}

#[test]
fn code_pages_outside_whatwg_are_decoded() {
    let mut bytes = b"<?xml version=\"1.0\" encoding=\"cp437\"?><rss version=\"2.0\"><channel><title>".to_vec();
    bytes.push(0x80); // Ç in cp437
    bytes.extend(b"</title></channel></rss>");
    let (text, d) = run(&bytes, None);
    assert!(text.contains("<title>Ç</title>"));
    assert_eq!((d.encoding.as_str(), d.source), ("IBM437", Source::XmlDeclaration));
}

#[test]
fn ebcdic_documents_are_decoded_by_table() {
    let page = codepages::CODE_PAGES.iter().find(|p| p.name == "IBM037").unwrap();
    let doc = feed(Some("cp037"), "Ø");
    let bytes: Vec<u8> = doc.chars().map(|c| page.table.iter().position(|u| *u == c as u16).unwrap() as u8).collect();
    let (text, d) = run(&bytes, None);
    assert!(text.contains("<title>Ø</title>"), "{text}");
    assert_eq!(d.encoding, "IBM037");
}

#[test]
fn an_encoding_nobody_can_decode_is_reported_not_garbled() {
    let bytes =
        b"<?xml version=\"1.0\" encoding=\"UTF-7\"?><rss version=\"2.0\"><channel><title>+AOk-</title></channel></rss>";
    let result = decode_with(bytes, &Options::default(), accept_rss);
    assert!(
        matches!(result, Err(Failure::Decode(DecodeError::Unsupported(ref n))) if n.contains("UTF-7")),
        "{result:?}"
    );
}

#[test]
fn a_forced_encoding_beats_every_signal() {
    let bytes = enc(encoding_rs::KOI8_R, &feed(Some("utf-8"), "Да"));
    let options = Options { content_type: Some("text/xml; charset=utf-8"), forced: Some("koi8-r"), tld: None };
    let (text, d) = decode_with(&bytes, &options, accept_rss).unwrap();
    assert!(text.contains("Да"));
    assert_eq!(d.source, Source::Override);
    assert!(!d.lenient);
}

#[test]
fn an_unusable_forced_encoding_is_noted_and_ignored() {
    let options = Options { forced: Some("klingon"), ..Options::default() };
    let (_, d) = decode_with(feed(None, "x").as_bytes(), &options, accept_rss).unwrap();
    assert_eq!(d.encoding, "UTF-8");
    assert!(d.notes.iter().any(|n| n.contains("klingon")));
}

#[test]
fn json_is_utf8_unless_told_otherwise() {
    let (text, d) = decode(
        r#"{"version":"https://jsonfeed.org/version/1.1","title":"Ça"}"#.as_bytes(),
        Some("application/feed+json"),
        None,
    )
    .map(|d| (d.text, d.decision))
    .unwrap();
    assert!(text.contains("Ça"));
    assert_eq!((d.encoding.as_str(), d.source, d.lenient), ("UTF-8", Source::Default, false));
}

#[test]
fn rejection_without_retry_stops_the_chain() {
    let mut calls = 0;
    let result: Result<(String, Decision), Failure<&str>> = decode_with(
        b"<html><body>hi</body></html>",
        &Options { content_type: Some("text/html"), ..Options::default() },
        |_| {
            calls += 1;
            Err(Rejection { error: "html", retry: false })
        },
    );
    assert!(matches!(result, Err(Failure::Rejected { error: "html", .. })));
    assert_eq!(calls, 1);
}

#[test]
fn bad_input_gives_errors_or_warned_best_effort_never_a_panic() {
    assert!(matches!(decode_with(b"", &Options::default(), accept_rss), Err(Failure::Decode(DecodeError::Empty))));
    assert!(matches!(
        decode_with(&[0xEF, 0xBB, 0xBF], &Options::default(), accept_rss),
        Err(Failure::Decode(DecodeError::OnlyBom))
    ));
    // A UTF-8 document cut inside its last character.
    let mut cut = feed(Some("utf-8"), "naïve café").into_bytes();
    cut.extend("é".as_bytes().first());
    let (text, d) = run(&cut, None);
    assert!(text.contains("naïve café") && text.ends_with('\u{FFFD}'));
    assert!(d.notes.iter().any(|n| n.contains("replaced")), "{d:?}");
    // A declaration that never closes.
    let broken = b"<?xml version=\"1.0\" encoding=\"windows-1251\"\n<rss version=\"2.0\"><channel><title>t</title></channel></rss>";
    let (text, d) = run(broken, None);
    assert!(text.starts_with("<rss"));
    assert!(d.notes.iter().any(|n| n.contains("never closes")));
}

#[test]
fn a_hundred_megabytes_of_nul_is_refused_as_binary() {
    let nuls = vec![0u8; 100 << 20];
    assert!(matches!(decode_with(&nuls, &Options::default(), accept_rss), Err(Failure::Decode(DecodeError::Binary))));
}

#[test]
fn tld_comes_from_the_host() {
    assert_eq!(tld_of("https://lenta.ru/rss").as_deref(), Some("ru"));
    assert_eq!(tld_of("http://127.0.0.1:8080/feed"), None);
    assert_eq!(tld_of("not a url"), None);
}

const JAPANESE: &str = "東京の天気は晴れ、気温は二十度です";

/// The tiny feed, its title in Japanese, in ISO-2022-JP, declaring `decl`.
fn iso_2022_jp_feed(decl: Option<&str>) -> Vec<u8> {
    let bytes = enc(encoding_rs::ISO_2022_JP, &feed(decl, JAPANESE));
    assert!(bytes.is_ascii() && bytes.contains(&0x1B), "ISO-2022-JP is 7-bit with escapes");
    bytes
}

#[test]
fn iso_2022_jp_is_read_by_its_escape_sequences_under_every_label_and_lie() {
    let content_types = [
        None,
        Some(""),
        Some("text/xml"),
        Some("application/xml"),
        Some("application/rss+xml"),
        Some("application/octet-stream"),
        Some("text/html"),
        Some("text/plain; charset=us-ascii"),
        Some("application/rss+xml; charset=utf-8"),
        Some("text/xml; charset=us-ascii"),
        Some("application/xml; charset=iso-8859-1"),
        Some("text/xml; charset=shift_jis"),
        Some("application/atom+xml; charset=euc-jp"),
        Some("application/rss+xml; charset=iso-2022-jp"),
    ];
    let declarations =
        [None, Some("utf-8"), Some("us-ascii"), Some("iso-8859-1"), Some("shift_jis"), Some("iso-2022-jp")];
    for content_type in content_types {
        for decl in declarations {
            let (text, d) = run(&iso_2022_jp_feed(decl), content_type);
            assert!(text.contains(JAPANESE), "{content_type:?} × {decl:?}: {text}");
            assert!(!text.contains('\u{1b}'), "{content_type:?} × {decl:?}");
            assert_eq!(d.encoding, "ISO-2022-JP", "{content_type:?} × {decl:?}");
            assert_eq!(d.signals.escape_sequences.as_deref(), Some("ISO-2022-JP"));
            let labelled = |l: &str| l.to_ascii_lowercase().contains("2022");
            let said_so = decl.is_some_and(labelled) || content_type.is_some_and(labelled);
            if !said_so {
                assert_eq!(d.source, Source::EscapeSequences, "{content_type:?} × {decl:?}: {d:?}");
                assert!(d.summary().starts_with("ISO-2022-JP from its escape sequences"), "{}", d.summary());
            }
            // Every label that named another encoding lost, and the decision says so.
            if decl.is_some_and(|l| !labelled(l)) {
                assert!(d.overridden.contains(&"xml_declaration".to_string()), "{content_type:?} × {decl:?}: {d:?}");
            }
        }
    }
}

#[test]
fn the_set_aside_reading_is_explained() {
    let (_, d) = run(&iso_2022_jp_feed(Some("utf-8")), Some("text/xml; charset=us-ascii"));
    assert_eq!(d.source, Source::EscapeSequences);
    assert!(d.lenient);
    assert!(d.notes.iter().any(|n| n.contains("US-ASCII") && n.contains("U+001B")), "{:?}", d.notes);
    assert!(d.signals_line().contains("escape sequences of ISO-2022-JP"), "{}", d.signals_line());
}

#[test]
fn a_byte_order_mark_beats_escape_sequences() {
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend(iso_2022_jp_feed(None));
    let (text, d) = run(&bytes, Some("application/xml"));
    assert_eq!((d.encoding.as_str(), d.source), ("UTF-8", Source::Bom), "{d:?}");
    assert!(!text.contains(JAPANESE));
}

#[test]
fn escape_encodings_nobody_can_decode_are_reported_not_garbled() {
    // ISO-2022-KR: the designation ESC $ ) C, then SO/SI around the Korean bytes.
    let mut bytes = b"<?xml version=\"1.0\"?>\x1b$)C<rss version=\"2.0\"><channel><title>".to_vec();
    bytes.extend(b"\x0e\x30\x21\x0f</title></channel></rss>");
    let result = decode_with(&bytes, &Options { content_type: Some("text/xml"), ..Options::default() }, accept_rss);
    assert!(
        matches!(result, Err(Failure::Decode(DecodeError::Unsupported(ref n))) if n.contains("ISO-2022-KR")),
        "{result:?}"
    );
}

#[test]
fn stray_control_characters_in_every_reading_keep_the_strict_one() {
    let bytes = feed(Some("utf-8"), "bell\u{7} and café").into_bytes();
    let (text, d) = run(&bytes, Some("application/rss+xml; charset=utf-8"));
    assert!(text.contains("bell\u{7} and café"));
    assert_eq!((d.encoding.as_str(), d.source, d.lenient), ("UTF-8", Source::HttpCharset, false), "{d:?}");
    // A terminal colour code is not an escape-based encoding.
    let bytes = feed(None, "\u{1b}[31mred").into_bytes();
    let (_, d) = run(&bytes, Some("text/xml"));
    assert_eq!((d.encoding.as_str(), d.source), ("US-ASCII", Source::MediaTypeDefault), "{d:?}");
}
