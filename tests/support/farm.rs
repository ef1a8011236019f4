//! A farm: a database of many feeds and entries written straight into SQLite through the store's own functions
//! (`store::apply`, `fetches::save`, `search::index_pending`), without a server or a refresh, so
//! 400,000 entries take a minute rather than an hour. The text is realistic enough to search: Latin words with
//! and without diacritics, Cyrillic, Chinese, Japanese and Korean, in feeds spread over folders (some nested),
//! with dates spread over five years. Deterministic: the same spec builds the same database.
//!
//! Used by `cargo bench --bench search` and by the tests; the reader's benchmarks can build their 400,000-entry
//! database with [`build`] (or [`cached`], which keeps it under the target directory between runs).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use tidings::model::{FeedId, FeedKind, FolderId, NewFeed, ParsedEntry, ParsedFeed, UserWrite};
use tidings::store::{self, fetches};

/// What to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FarmSpec {
    pub(crate) feeds: usize,
    pub(crate) entries_per_feed: usize,
    /// Out of 100, how many entries are read.
    pub(crate) read_percent: u64,
    /// Out of 1000, how many entries are starred.
    pub(crate) starred_per_mille: u64,
    /// Index the entries for search (the slow part); lists do not need it.
    pub(crate) index: bool,
    pub(crate) seed: u64,
}

impl FarmSpec {
    /// The farm of issue #10's benchmarks: 4000 feeds × 100 entries, half of them read, a few starred, indexed.
    pub(crate) const BENCH: FarmSpec =
        FarmSpec { feeds: 4000, entries_per_feed: 100, read_percent: 50, starred_per_mille: 5, index: true, seed: 10 };

    pub(crate) fn entries(&self) -> usize {
        self.feeds * self.entries_per_feed
    }
}

/// What was built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Farm {
    pub(crate) path: PathBuf,
    pub(crate) feeds: Vec<FeedId>,
    /// Folders by name; `Tech/Rust` and `News/World` are nested in their parents.
    pub(crate) folders: Vec<(String, FolderId)>,
    pub(crate) entries: usize,
}

/// The newest date an entry of the farm has (2026-01-01); the oldest is five years before.
pub(crate) const NEWEST: i64 = 1_767_225_600;
pub(crate) const FIVE_YEARS: i64 = 5 * 365 * 86_400;

const FOLDERS: &[&str] = &["News", "Tech", "Science", "Culture", "Sport", "Tech/Rust", "News/World", "Blogs"];

/// Builds the farm in a new database at `path` (which must not exist).
pub(crate) fn build(path: &Path, spec: &FarmSpec) -> Farm {
    let mut conn = store::open_write(path).expect("open the farm database");
    let mut rng = Rng(spec.seed);
    let new_feeds: Vec<NewFeed> = (0..spec.feeds)
        .map(|f| NewFeed {
            url: format!("http://127.0.0.1/farm/{f}.xml"),
            title: None,
            name: None,
            site_url: None,
            // Every ninth feed sits at the top level.
            folder: if f % 9 != 8 { vec![FOLDERS[f % 9].to_string()] } else { vec![] },
        })
        .collect();
    let import = UserWrite::Import { feeds: new_feeds, folders: vec![] };
    store::apply(&mut conn, &import, 0).expect("import the farm's feeds");
    // Nest the folders named with a slash inside their parents (what OPML nesting becomes).
    conn.execute_batch(
        "UPDATE folders SET parent_id = (SELECT p.id FROM folders p WHERE p.name = substr(folders.name, 1,
            instr(folders.name, '/') - 1)) WHERE instr(name, '/') > 0",
    )
    .expect("nest the farm's folders");
    let feeds: Vec<FeedId> = {
        let mut stmt = conn.prepare("SELECT id FROM feeds ORDER BY id").expect("list feeds");
        stmt.query_map([], |r| r.get(0).map(FeedId)).expect("list feeds").collect::<Result<_, _>>().expect("list feeds")
    };
    let now = chrono::Utc::now().timestamp();
    for (f, feed_id) in feeds.iter().enumerate() {
        let language = Language::of_feed(f);
        let entries = (0..spec.entries_per_feed)
            .map(|i| {
                let published = NEWEST - (rng.below(FIVE_YEARS as u64) as i64);
                ParsedEntry {
                    key: format!("farm-{f}-{i}"),
                    title: Some(language.sentence(&mut rng, 3)),
                    link: Some(format!("http://127.0.0.1/farm/{f}/{i}.html")),
                    authors: Some(language.name(&mut rng)).into_iter().collect(),
                    published: chrono::DateTime::from_timestamp(published, 0),
                    updated: None,
                    content_html: Some(language.article(&mut rng)),
                    summary_html: None,
                    categories: vec![],
                    enclosures: vec![],
                    comments: None,
                    thumbnail: None,
                }
            })
            .collect();
        let record = fetches::FetchRecord::Fetched {
            status: 200,
            etag: Some(format!("\"farm-{f}\"")),
            last_modified: None,
            feed: Box::new(ParsedFeed {
                authors: vec![],
                kind: FeedKind::Rss2,
                title: Some(format!("{} {f}", language.feed_name())),
                link: Some(format!("http://127.0.0.1/farm/{f}/")),
                description: None,
                entries,
                warnings: vec![],
                min_interval_secs: None,
                unkept: 0,
            }),
            decision: None,
            moved_to: None,
            min_interval_secs: None,
            ignored: vec![],
            cut_from: None,
            digest: None,
        };
        fetches::save(&mut conn, *feed_id, &record, now).expect("store a farm feed");
    }
    // Read and starred flags from a hash of the id: deterministic, spread evenly over feeds and dates.
    conn.execute(
        "UPDATE entries SET read = (id * 2654435761 % 100) < ?1, starred = (id * 40503 % 1000) < ?2",
        [spec.read_percent as i64, spec.starred_per_mille as i64],
    )
    .expect("set the farm's flags");
    if spec.index {
        store::search::index_pending(&mut conn, usize::MAX).expect("index the farm");
    }
    conn.execute_batch("ANALYZE; PRAGMA wal_checkpoint(TRUNCATE);").expect("analyze the farm");
    let folders = {
        let mut stmt = conn.prepare("SELECT name, id FROM folders ORDER BY id").expect("list folders");
        stmt.query_map([], |r| Ok((r.get(0)?, FolderId(r.get(1)?)))).expect("list folders").collect::<Result<_, _>>()
    }
    .expect("list folders");
    Farm { path: path.to_path_buf(), feeds, folders, entries: spec.entries() }
}

/// The farm for `spec`, built once and kept under the target directory (`dir`, e.g. `CARGO_TARGET_TMPDIR`)
/// for later runs. Returns the farm and whether it was built now.
pub(crate) fn cached(dir: &Path, spec: &FarmSpec) -> (Farm, bool) {
    let name = format!(
        "farm-v{VERSION}-{}x{}-r{}-s{}-i{}-{}.db",
        spec.feeds, spec.entries_per_feed, spec.read_percent, spec.starred_per_mille, spec.index, spec.seed
    );
    let path = dir.join(name);
    if path.exists() {
        let conn = store::open_write(&path).expect("open the cached farm");
        let feeds: Vec<FeedId> = {
            let mut stmt = conn.prepare("SELECT id FROM feeds ORDER BY id").expect("list feeds");
            stmt.query_map([], |r| r.get(0).map(FeedId))
                .expect("list feeds")
                .collect::<Result<_, _>>()
                .expect("list feeds")
        };
        let mut stmt = conn.prepare("SELECT name, id FROM folders ORDER BY id").expect("list folders");
        let folders = stmt
            .query_map([], |r| Ok((r.get(0)?, FolderId(r.get(1)?))))
            .expect("list folders")
            .collect::<Result<_, _>>()
            .expect("list folders");
        return (Farm { path, feeds, folders, entries: spec.entries() }, false);
    }
    std::fs::create_dir_all(dir).expect("create the farm's folder");
    let building = path.with_extension("building");
    let _ = std::fs::remove_file(&building);
    let farm = build(&building, spec);
    drop(farm);
    std::fs::rename(&building, &path).expect("keep the farm");
    let _ = std::fs::remove_file(building.with_extension("building-wal"));
    let _ = std::fs::remove_file(building.with_extension("building-shm"));
    (cached(dir, spec).0, true)
}

/// Bumped when what [`build`] writes (or the schema) changes, so that cached farms are built again.
const VERSION: u32 = 3;

/// How many words each language's vocabulary has.
pub(crate) const VOCABULARY: usize = 50_000;

/// SplitMix64: small, fast, and the same everywhere.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A rank from 0 to `n`, with Zipf's law: rank r about 1/(r+1) as often as rank 0.
    pub(crate) fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (((n as f64 + 1.0).ln() * u).exp() as usize).saturating_sub(1).min(n - 1)
    }
}

/// The language of a feed's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    English,
    French,
    German,
    Russian,
    Chinese,
    Japanese,
    Korean,
}

impl Language {
    /// Most feeds are English; one in ten each French and German, Russian; one in twenty each CJK.
    pub(crate) fn of_feed(f: usize) -> Language {
        match f % 20 {
            0 | 1 => Language::French,
            2 | 3 => Language::German,
            4 | 5 => Language::Russian,
            6 => Language::Chinese,
            7 => Language::Japanese,
            8 => Language::Korean,
            _ => Language::English,
        }
    }

    fn words(self) -> &'static [&'static str] {
        match self {
            Language::English => EN,
            Language::French => FR,
            Language::German => DE,
            Language::Russian => RU,
            Language::Chinese => ZH,
            Language::Japanese => JA,
            Language::Korean => KO,
        }
    }

    /// Written without spaces between words.
    fn unspaced(self) -> bool {
        matches!(self, Language::Chinese | Language::Japanese)
    }

    fn feed_name(self) -> &'static str {
        match self {
            Language::English => "The Daily Notebook",
            Language::French => "Le Carnet du café",
            Language::German => "Die Straßenzeitung",
            Language::Russian => "Новости дня",
            Language::Chinese => "每日新闻",
            Language::Japanese => "東京ニュース",
            Language::Korean => "서울 소식",
        }
    }

    fn name(self, rng: &mut Rng) -> String {
        let names: &[&str] = match self {
            Language::Russian => &["Анна Петрова", "Иван Смирнов", "Ольга Соколова"],
            Language::Chinese => &["王伟", "李娜", "张敏"],
            Language::Japanese => &["佐藤花子", "鈴木一郎", "高橋健"],
            Language::Korean => &["김민준", "이서연", "박지훈"],
            _ => &["Ann Author", "José Núñez", "Zoë Müller", "Björn Ångström"],
        };
        names[rng.below(names.len() as u64) as usize].to_string()
    }

    /// A word as they come in text: three in ten a function word (the, of…), the others from the vocabulary
    /// with Zipf's law (the word of rank r comes about 1/r as often as the commonest).
    fn word(self, rng: &mut Rng) -> String {
        if rng.below(10) < 3 {
            let words = self.function_words();
            return words[rng.below(words.len() as u64) as usize].to_string();
        }
        self.vocabulary_word(rng.zipf(VOCABULARY))
    }

    /// The word of rank `rank` (from 0) of the language's vocabulary: its topical words first, then made-up
    /// words, all different. `tests/benchmarks/search.rs` queries words of chosen ranks to get chosen
    /// frequencies.
    pub(crate) fn vocabulary_word(self, rank: usize) -> String {
        if let Some(word) = self.words().get(rank) {
            return word.to_string();
        }
        let syllables: &[&str] = match self {
            Language::Russian => &["ка", "ло", "ми", "ре", "ст", "ов", "на", "пр", "ви", "до", "жи", "зу"],
            Language::Chinese => &["华", "明", "清", "海", "山", "光", "新", "云", "龙", "星", "安", "乐"],
            Language::Japanese => &["カ", "ロ", "ミ", "ネ", "ス", "タ", "ナ", "ハ", "リ", "ト", "キ", "ソ"],
            Language::Korean => &["가", "로", "미", "네", "스", "타", "나", "하", "리", "토", "키", "소"],
            _ => &["ka", "lo", "mi", "ré", "st", "ov", "na", "pr", "vi", "do", "zu", "gen"],
        };
        // The rank in base 12, at least three syllables: every rank a word of its own.
        let mut n = rank + 144;
        let mut word = String::new();
        while n > 0 {
            word.push_str(syllables[n % syllables.len()]);
            n /= syllables.len();
        }
        word
    }

    fn function_words(self) -> &'static [&'static str] {
        match self {
            Language::English => &["the", "of", "and", "to", "in", "is", "for", "that", "with", "on", "as", "it"],
            Language::French => &["le", "la", "les", "de", "et", "un", "une", "du", "pour", "dans", "sur", "avec"],
            Language::German => &["der", "die", "das", "und", "in", "zu", "mit", "für", "auf", "ist", "den", "ein"],
            Language::Russian => &["и", "в", "не", "на", "что", "с", "по", "это", "как", "из", "за", "от"],
            Language::Chinese => &["的", "是", "在", "和", "了", "有", "也", "就", "都", "而"],
            Language::Japanese => &["の", "に", "は", "を", "が", "と", "で", "も", "から", "まで"],
            Language::Korean => &["그리고", "하지만", "또한", "그래서", "이", "그", "저", "더", "잘", "및"],
        }
    }

    /// A sentence of at least `min_words` words (up to eight more).
    fn sentence(self, rng: &mut Rng, min_words: usize) -> String {
        let count = min_words + rng.below(8) as usize;
        let words: Vec<String> = (0..count).map(|_| self.word(rng)).collect();
        if self.unspaced() { words.concat() } else { words.join(" ") }
    }

    /// An article: two to four paragraphs, about 120 words.
    fn article(self, rng: &mut Rng) -> String {
        let stop = if self.unspaced() { "。" } else { "." };
        (0..2 + rng.below(3))
            .map(|_| {
                let sentences: Vec<String> = (0..2 + rng.below(3)).map(|_| self.sentence(rng, 6) + stop).collect();
                format!("<p>{}</p>", sentences.join(if self.unspaced() { "" } else { " " }))
            })
            .collect()
    }
}

const EN: &[&str] = &[
    "new",
    "release",
    "update",
    "rust",
    "language",
    "open",
    "source",
    "project",
    "data",
    "system",
    "city",
    "government",
    "market",
    "science",
    "research",
    "music",
    "film",
    "game",
    "team",
    "season",
    "report",
    "week",
    "year",
    "people",
    "world",
    "energy",
    "climate",
    "space",
    "design",
    "security",
    "network",
    "browser",
    "compiler",
    "memory",
    "performance",
    "library",
    "kernel",
    "database",
    "server",
    "cloud",
    "mobile",
    "phone",
    "camera",
    "review",
    "interview",
    "history",
    "election",
    "economy",
    "health",
    "school",
    "water",
    "river",
    "mountain",
    "travel",
    "coffee",
    "recipe",
    "garden",
    "bicycle",
    "railway",
    "museum",
    "theatre",
    "novel",
    "poetry",
    "football",
    "tennis",
    "chess",
    "festival",
    "weather",
    "storm",
    "volcano",
    "satellite",
    "telescope",
    "galaxy",
    "quantum",
    "protein",
    "vaccine",
    "hospital",
    "airport",
    "harbour",
    "bridge",
    "tunnel",
    "zeppelin",
    "lighthouse",
];
const FR: &[&str] = &[
    "café",
    "crème",
    "élève",
    "école",
    "été",
    "hôpital",
    "forêt",
    "château",
    "théâtre",
    "musée",
    "journée",
    "économie",
    "société",
    "santé",
    "réseau",
    "sécurité",
    "développement",
    "première",
    "naïve",
    "noël",
    "garçon",
    "français",
    "façade",
    "leçon",
    "cinéma",
    "numérique",
    "élection",
    "météo",
    "gâteau",
    "fenêtre",
    "île",
    "où",
    "déjà",
    "très",
];
const DE: &[&str] = &[
    "straße",
    "grüße",
    "über",
    "müller",
    "schön",
    "größe",
    "fußball",
    "bücher",
    "mädchen",
    "brücke",
    "käse",
    "öffentlich",
    "regierung",
    "wirtschaft",
    "forschung",
    "gesundheit",
    "bahnhof",
    "flughafen",
    "wetter",
    "würde",
    "ärger",
    "übung",
    "zürich",
    "köln",
];
const RU: &[&str] = &[
    "новости",
    "москва",
    "россия",
    "город",
    "правительство",
    "экономика",
    "наука",
    "исследование",
    "музыка",
    "фильм",
    "игра",
    "команда",
    "сезон",
    "доклад",
    "неделя",
    "год",
    "люди",
    "мир",
    "энергия",
    "климат",
    "космос",
    "безопасность",
    "сеть",
    "память",
    "библиотека",
    "ёлка",
    "ёж",
    "учёный",
    "всё",
    "погода",
    "река",
    "гора",
    "железная",
    "дорога",
    "музей",
    "театр",
    "роман",
    "футбол",
];
const ZH: &[&str] = &[
    "中国",
    "经济",
    "发展",
    "新闻",
    "政府",
    "科技",
    "研究",
    "市场",
    "公司",
    "技术",
    "北京",
    "上海",
    "城市",
    "教育",
    "健康",
    "医院",
    "天气",
    "音乐",
    "电影",
    "足球",
    "开发",
    "软件",
    "网络",
    "安全",
    "数据",
    "能源",
    "气候",
    "太空",
    "历史",
    "文化",
    "旅游",
    "咖啡",
    "铁路",
    "博物馆",
    "火山",
];
const JA: &[&str] = &[
    "東京",
    "大阪",
    "京都",
    "東京都庁",
    "政府",
    "経済",
    "技術",
    "研究",
    "市場",
    "会社",
    "開発",
    "ニュース",
    "コンピューター",
    "ソフトウェア",
    "データ",
    "セキュリティ",
    "天気",
    "音楽",
    "映画",
    "サッカー",
    "電車",
    "新幹線",
    "富士山",
    "温泉",
    "料理",
    "ラーメン",
    "寿司",
    "桜",
    "祭り",
    "選挙",
    "病院",
    "学校",
    "宇宙",
    "火山",
    "地震",
    "台風",
];
const KO: &[&str] = &[
    "서울",
    "서울에서",
    "정부는",
    "경제",
    "기술",
    "연구",
    "시장",
    "회사",
    "개발",
    "뉴스",
    "컴퓨터",
    "소프트웨어",
    "데이터",
    "보안",
    "날씨",
    "음악",
    "영화",
    "축구",
    "기차",
    "부산",
    "부산에서",
    "대학교",
    "병원",
    "학교",
    "우주",
    "화산",
    "지진",
    "태풍",
    "김치",
    "커피",
    "여행",
    "선거",
    "한국",
    "한국의",
];
