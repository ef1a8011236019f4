//! Statistical detection, the last resort before the blind defaults: chardetng, with the top-level domain as a
//! hint, refined where chardetng is blind by design. chardetng never answers x-mac-cyrillic and does not know
//! IBM855; Russian feeds in those (and in KOI8, IBM866, ISO-8859-5) are told apart here by which reading gives
//! Russian-looking text. Latin-script text is where chardetng confuses windows-1252 with the Central European
//! pages (Hungarian `ő` is byte 0xF5, Western `õ`): those readings are told apart by which one gives the
//! letters of one language.

use super::charset::Charset;
use super::labels::{Label, resolve};

/// chardetng's own answer for `bytes`, and the charset to read them with after refinement.
pub(super) fn detect(bytes: &[u8], tld: Option<&str>) -> (Charset, Charset) {
    let sample = &bytes[..bytes.len().min(256 * 1024)];
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    detector.feed(sample, sample.len() == bytes.len());
    let guess = Charset::Web(detector.guess(tld.map(str::as_bytes), chardetng::Utf8Detection::Allow));
    let refined = refine_cyrillic(sample, guess).or_else(|| refine_latin(sample, guess)).unwrap_or(guess);
    // chardetng says KOI8-U for KOI8-R; they differ only in eight Ukrainian letters.
    let koi8_u = Charset::Web(encoding_rs::KOI8_U);
    if refined == koi8_u && !sample.iter().any(|b| matches!(b, 0xA4 | 0xA6 | 0xA7 | 0xAD | 0xB4 | 0xB6 | 0xB7 | 0xBD)) {
        return (guess, Charset::Web(encoding_rs::KOI8_R));
    }
    (guess, refined)
}

/// The single-byte encodings Russian text has been published in.
const CYRILLIC: &[&str] = &["windows-1251", "koi8-r", "koi8-u", "ibm866", "iso-8859-5", "x-mac-cyrillic", "ibm855"];

/// When the guess is a Cyrillic encoding (or windows-1252, which is what chardetng says for IBM855) and the
/// high bytes form words of their own (as letters of a non-Latin script do), the Cyrillic reading that looks
/// most like Russian text, if it clearly beats the guess.
fn refine_cyrillic(bytes: &[u8], guess: Charset) -> Option<Charset> {
    let candidates: Vec<Charset> = CYRILLIC
        .iter()
        .filter_map(|l| match resolve(l) {
            Label::Charset(c) => Some(c),
            _ => None,
        })
        .collect();
    let plausible_guess = candidates.contains(&guess) || guess == Charset::WINDOWS_1252;
    if !plausible_guess || !high_bytes_form_words(bytes) {
        return None;
    }
    let guess_score = russian_score(bytes, guess);
    let (best, best_score) =
        candidates.iter().map(|c| (*c, russian_score(bytes, *c))).max_by(|a, b| a.1.total_cmp(&b.1))?;
    (best != guess && best_score > 0.5 && best_score > guess_score + 0.01).then_some(best)
}

/// The Latin-script readings chardetng confuses: Western and Central European.
const LATIN: [Charset; 3] = [Charset::WINDOWS_1252, Charset::WINDOWS_1250, Charset::Web(encoding_rs::ISO_8859_2)];

/// The accented letters of languages written in windows-1252 or windows-1250 (and ISO-8859-2): the common ones,
/// then the rare ones (loanwords, a few words).
const ALPHABETS: &[(&str, &str, &str)] = &[
    ("hungarian", "áéíóöőúüű", ""),
    ("czech", "áčéěířšýžůú", "ďňťó"),
    ("slovak", "áčéíýžšúôäľň", "ďĺóŕť"),
    ("polish", "ąćęłńóśż", "ź"),
    ("slovenian", "čšž", "ćđ"),
    ("croatian", "čćšžđ", ""),
    ("romanian", "ăâîşţ", ""),
    ("german", "äöüß", "é"),
    ("french", "àâçéèêîôùûëïœ", "æÿü"),
    ("spanish", "áéíñóú", "ü"),
    ("portuguese", "àáâãçéêíóôõú", "ü"),
    ("italian", "àèéìòù", "íîóú"),
    ("dutch", "éëï", "áèöüóíúàä"),
    ("swedish", "åäö", "éü"),
    ("finnish", "äö", "åšž"),
    ("danish", "æøå", "éóüäö"),
    ("icelandic", "áðéíóúýþæö", ""),
    ("estonian", "äõöü", "šž"),
    ("catalan", "àçèéíïòóúü", ""),
];

/// When the guess is one of the Latin readings and another gives the letters of one language almost only, and
/// more plausibly than the guess, that one. Text with too few accented letters is left to chardetng. (On the
/// corpus, Hungarian read as windows-1252 scores 0.80–0.91 and as windows-1250 1.0; Western text read as
/// windows-1252 is never beaten by its Central European reading.)
fn refine_latin(bytes: &[u8], guess: Charset) -> Option<Charset> {
    if !LATIN.contains(&guess) {
        return None;
    }
    let guess_score = latin_score(bytes, guess)?;
    let (best, best_score) = LATIN
        .iter()
        .filter(|c| **c != guess)
        .filter_map(|c| Some((*c, latin_score(bytes, *c)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    (best_score >= 0.9 && best_score > guess_score + 0.05).then_some(best)
}

/// How much the accented letters of a reading look like one language's, from -1 to 1: each common letter of
/// the language counts 1, a rare one 0.5, a letter the language lacks -1; so do a symbol inside a word and a
/// C1 control. `None` when the bytes are invalid in the charset or hold fewer than 8 accented letters.
fn latin_score(bytes: &[u8], charset: Charset) -> Option<f64> {
    let text = charset.decode_clean(bytes)?;
    let mut letters: Vec<char> = Vec::new();
    let mut misplaced = 0usize;
    let mut previous = ' ';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii() {
            if c.is_alphabetic() {
                letters.extend(c.to_lowercase());
            } else if ('\u{80}'..='\u{9f}').contains(&c)
                || (previous.is_alphabetic() && chars.peek().is_some_and(|n| n.is_alphabetic()))
            {
                misplaced += 1;
            }
        }
        previous = c;
    }
    if letters.len() < 8 {
        return None;
    }
    let total = (letters.len() + misplaced) as f64;
    ALPHABETS
        .iter()
        .map(|(_, common, rare)| {
            let sum: f64 = letters
                .iter()
                .map(|c| match c {
                    c if common.contains(*c) => 1.0,
                    c if rare.contains(*c) => 0.5,
                    _ => -1.0,
                })
                .sum();
            (sum - misplaced as f64) / total
        })
        .max_by(f64::total_cmp)
}

/// True when most bytes above 0x7F sit next to other such bytes rather than inside Latin words: text in a
/// non-Latin alphabet, not accented Latin.
fn high_bytes_form_words(bytes: &[u8]) -> bool {
    let mut high = 0usize;
    let mut in_runs = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if b < 0x80 {
            continue;
        }
        high += 1;
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + 1).copied();
        let latin = |x: Option<u8>| x.is_some_and(|x| x.is_ascii_alphabetic());
        let highish = |x: Option<u8>| x.is_some_and(|x| x >= 0x80);
        if (highish(before) || highish(after)) && !latin(before) && !latin(after) {
            in_runs += 1;
        }
    }
    high >= 16 && in_runs * 10 >= high * 8
}

/// How Russian the non-ASCII text of a reading looks, from -1 (nothing but symbols) to 1 (common lowercase
/// letters only). Lowercase letters dominate real text; a wrong reading turns them into capitals, symbols or
/// letters of other alphabets.
fn russian_score(bytes: &[u8], charset: Charset) -> f64 {
    const COMMON: &str = "оеаинтсрвлкмдпуяыьгзб";
    let (text, _) = charset.decode_lossy(bytes);
    let mut total = 0.0;
    let mut count = 0usize;
    for c in text.chars().filter(|c| !c.is_ascii()) {
        count += 1;
        total += match c {
            c if COMMON.contains(c) => 1.0,
            'а'..='я' | 'ё' => 0.6,
            'А'..='Я' | 'Ё' => 0.3,
            '«' | '»' | '—' | '–' | '№' | '…' | '\u{a0}' | '“' | '”' | '„' => 0.0,
            _ => -1.0,
        };
    }
    if count == 0 { 0.0 } else { total / count as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUSSIAN: &str = "Найдены тела двух погибших в авиакатастрофе под Харьковом. Правительство обсудило бюджет \
        на следующий год, сообщает пресс-служба. В Москве открылся новый парк.";

    fn encoded(label: &str, text: &str) -> Vec<u8> {
        let Label::Charset(c) = resolve(label) else { panic!("{label}") };
        match c {
            Charset::Web(e) => e.encode(text).0.into_owned(),
            Charset::CodePage(p) => {
                text.chars()
                    .map(|ch| {
                        if ch.is_ascii() {
                            ch as u8
                        } else {
                            p.table.iter().position(|u| *u == ch as u16).unwrap() as u8
                        }
                    })
                    .collect()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn russian_text_is_read_in_its_own_encoding() {
        for label in ["windows-1251", "koi8-r", "ibm866", "iso-8859-5", "x-mac-cyrillic", "ibm855"] {
            let bytes = encoded(label, RUSSIAN);
            let (_, got) = detect(&bytes, None);
            assert_eq!(got.decode_lossy(&bytes).0, RUSSIAN, "{label} detected as {}", got.name());
        }
    }

    #[test]
    fn hungarian_in_windows_1250_is_not_read_as_windows_1252() {
        let hungarian = "Miről szeretne beszélni? A kormány hétfőn döntött a költségvetésről, a képviselők \
            szerdán szavaznak. Őszi ünnepek előtt a fővárosban több új üzlet nyílik.";
        let bytes = encoding_rs::WINDOWS_1250.encode(hungarian).0.into_owned();
        let (_, got) = detect(&bytes, None);
        assert_eq!(got.decode_lossy(&bytes).0, hungarian, "read as {}", got.name());
    }

    #[test]
    fn central_european_text_in_windows_1250_is_read_as_such() {
        for text in [
            "Příliš žluťoučký kůň úpěl ďábelské ódy. Vláda schválila rozpočet na příští rok, řekl ministr.",
            "Zażółć gęślą jaźń. Rząd przyjął budżet na przyszły rok, powiedział minister finansów w środę.",
            "Vláda schválila rozpočet na budúci rok, povedal minister. Ľudia čakajú na ďalšie správy.",
            "Árvíztűrő tükörfúrógép. Őszintén szólva a főváros új üzletei hétfőn nyílnak, közölték.",
        ] {
            let bytes = encoding_rs::WINDOWS_1250.encode(text).0.into_owned();
            let (_, got) = detect(&bytes, None);
            assert_eq!(got.decode_lossy(&bytes).0, text, "read as {}", got.name());
        }
    }

    #[test]
    fn western_text_stays_windows_1252() {
        for text in [
            "Perché la città è così bella? Più di cento persone hanno visitato la città, è così.",
            "Le café de la gare était fermé; Noël approche et les élèves préparent la fête à l'école.",
            "A informação das eleições: os candidatos não têm opiniões claras sobre a questão.",
            "Über die Größe der Häuser wird in München täglich gesprochen, schön und gemütlich.",
            "Eesti keeles on täpitähed: õun, äri, öö ja üksus. Sõnad ja nõuded on väga pikad.",
            "El niño comió paella en la ciudad; mañana habrá más lluvia según el pronóstico del año.",
            "Rødgrød med fløde er en dansk ret. På øen går børnene i skole hver dag, også om vinteren.",
            "Förändringar i vädret: på måndag blir det kallare i södra Sverige, säger meteorologen.",
            "Þjóðin á Íslandi fær nýja ríkisstjórn; forsætisráðherra sagði að kosningar yrðu í júní.",
            "De coöperatie heeft één doel: ideeën delen. Het café aan de overkant is geëxploiteerd.",
            "La ciutat de València té més d'un milió d'habitants; l'economia és forta i creixent.",
        ] {
            let bytes = encoding_rs::WINDOWS_1252.encode(text).0.into_owned();
            let (_, got) = detect(&bytes, None);
            assert_eq!(got.decode_lossy(&bytes).0, text, "read as {}", got.name());
        }
    }

    #[test]
    fn accented_latin_text_is_left_to_chardetng() {
        let french = "Le café de la gare était fermé; Noël approche et les élèves préparent la fête à l'école.";
        let bytes = encoding_rs::WINDOWS_1252.encode(french).0.into_owned();
        assert_eq!(detect(&bytes, None).1, Charset::WINDOWS_1252);
    }
}
