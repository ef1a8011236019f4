//! The shape of the code, held by tests: the crates and their one-way arrows as `ARCHITECTURE.md` draws them
//! (checked against each crate's manifest), no module of any crate importing in a circle, and every `unsafe`
//! block in the one file made for them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Each crate of the workspace: its package name and its folder.
fn crates() -> Vec<(String, PathBuf)> {
    let mut found = vec![(package_name(&root()), root())];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("Cargo.toml").is_file() {
            found.push((package_name(&dir), dir));
        }
    }
    found.sort();
    found
}

fn manifest(dir: &Path) -> toml::Table {
    std::fs::read_to_string(dir.join("Cargo.toml")).unwrap().parse().unwrap()
}

fn package_name(dir: &Path) -> String {
    manifest(dir)["package"]["name"].as_str().unwrap().to_string()
}

/// The dependencies a crate's manifest lists (not the dev-dependencies: tests may use anything).
fn dependencies(dir: &Path) -> BTreeSet<String> {
    let manifest = manifest(dir);
    let mut names = BTreeSet::new();
    if let Some(deps) = manifest.get("dependencies").and_then(|d| d.as_table()) {
        names.extend(deps.keys().cloned());
    }
    if let Some(targets) = manifest.get("target").and_then(|t| t.as_table()) {
        for target in targets.values() {
            if let Some(deps) = target.get("dependencies").and_then(|d| d.as_table()) {
                names.extend(deps.keys().cloned());
            }
        }
    }
    names
}

/// The crate table of `ARCHITECTURE.md`: each crate's name, the crates of the workspace it may use, and the
/// dependencies it must not list.
fn drawn() -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let cells = |line: &str| -> Vec<String> {
        line.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect()
    };
    let words = |cell: &str| -> BTreeSet<String> {
        cell.split(',').map(|w| w.trim().trim_matches('`').to_string()).filter(|w| !w.is_empty() && w != "—").collect()
    };
    let mut table = BTreeMap::new();
    let mut lines = text.lines().skip_while(|l| !l.starts_with("| crate "));
    let header = cells(lines.next().expect("ARCHITECTURE.md has the crate table (| crate | … |)"));
    let at = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (crate_at, uses_at, never_at) = (at("crate"), at("uses"), at("never lists"));
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let row = cells(line);
        table.insert(row[crate_at].trim_matches('`').to_string(), (words(&row[uses_at]), words(&row[never_at])));
    }
    table
}

#[test]
fn each_crate_uses_the_crates_architecture_md_draws_and_none_it_must_not() {
    let drawn = drawn();
    let ours: BTreeSet<String> = crates().into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        drawn.keys().cloned().collect::<BTreeSet<_>>(),
        ours,
        "ARCHITECTURE.md names every crate, and only them"
    );
    for (name, dir) in crates() {
        let listed = dependencies(&dir);
        let (uses, never) = &drawn[&name];
        let workspace: BTreeSet<String> = listed.intersection(&ours).cloned().collect();
        assert_eq!(&workspace, uses, "{name}: the crates of the workspace its manifest lists");
        let wrong: Vec<&String> = listed.intersection(never).collect();
        assert!(wrong.is_empty(), "{name} lists {wrong:?}, which ARCHITECTURE.md says it never does");
    }
}

/// A module of a crate: its path (`["store", "feeds"]`) and its source with comments, strings and test modules
/// taken out.
struct Module {
    path: Vec<String>,
    code: String,
    file: PathBuf,
}

fn modules(src: &Path) -> Vec<Module> {
    let mut found = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "tests") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                parts.pop();
            }
            let code = without_tests(&plain_code(&std::fs::read_to_string(&path).unwrap()));
            found.push(Module { path: parts, code, file: path });
        }
    }
    found
}

/// The source with comments and the insides of string and character literals removed (a `crate::` in a doc
/// comment or a message is not a use).
fn plain_code(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#')) && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                i += 2 + hashes;
                while i < b.len() && !b[i..].starts_with(&close) {
                    i += 1;
                }
                i += close.len();
                out.push_str("\"\"");
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') || (b.get(i + 1) == Some(&b'\\')) => {
                // A character literal ('x', '\n', '\u{…}'); a lifetime ('a) has no closing quote nearby.
                let end = b[i + 1..].iter().position(|&c| c == b'\'').map_or(i + 1, |p| i + 2 + p);
                i = end;
                out.push_str("' '");
            }
            c => {
                // Multi-byte characters are copied whole.
                let len = std::str::from_utf8(&b[i..]).map_or(1, |s| s.chars().next().map_or(1, char::len_utf8));
                let len = if c.is_ascii() { 1 } else { len.max(1) };
                out.push_str(&String::from_utf8_lossy(&b[i..i + len]));
                i += len;
            }
        }
    }
    out
}

/// The code without its `#[cfg(test)] mod tests { … }` (a module's tests may use what they like).
fn without_tests(code: &str) -> String {
    let Some(at) = code.find("#[cfg(test)]") else { return code.to_string() };
    let rest = &code[at..];
    let Some(open) = rest.find('{').filter(|&o| rest[..o].contains("mod ")) else {
        return format!("{}{}", &code[..at + 12], without_tests(&code[at + 12..]));
    };
    let mut depth = 0;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return format!("{}{}", &code[..at], without_tests(&rest[open + i + 1..]));
                }
            }
            _ => {}
        }
    }
    code[..at].to_string()
}

/// The module paths a module's code names (`crate::a::b`, `super::a`, `self::a`, and `use` groups), from the
/// crate's root.
fn named_paths(module: &Module) -> Vec<Vec<String>> {
    let code = &module.code;
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(p) = code[from..].find(start) {
            let at = from + p;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':') {
                continue;
            }
            let mut base: Vec<String> = match start {
                "crate::" => Vec::new(),
                "super::" => module.path[..module.path.len().saturating_sub(1)].to_vec(),
                _ => module.path.clone(),
            };
            let mut rest = &code[from..];
            while let Some(after) = rest.strip_prefix("super::") {
                base.pop();
                rest = after;
            }
            let (segments, group) = path_at(rest);
            let mut path = base;
            path.extend(segments);
            match group {
                Some(items) => {
                    for item in split_group(&items) {
                        let (inner, _) = path_at(item.trim());
                        let mut full = path.clone();
                        full.extend(inner);
                        paths.push(full);
                    }
                }
                None => paths.push(path),
            }
        }
    }
    paths
}

/// The `a::b::c` at the start of `text`, and the `{…}` group that follows it, if one does.
fn path_at(text: &str) -> (Vec<String>, Option<String>) {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if len == 0 {
            break;
        }
        segments.push(rest[..len].to_string());
        rest = &rest[len..];
        match rest.strip_prefix("::") {
            Some(after) => rest = after,
            None => break,
        }
    }
    if let Some(inner) = rest.strip_prefix('{') {
        let mut depth = 1;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (segments, Some(inner[..i].to_string()));
                    }
                }
                _ => {}
            }
        }
    }
    (segments, None)
}

/// The items of a `use` group, split at its top-level commas.
fn split_group(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items.into_iter().filter(|i| !i.trim().is_empty()).collect()
}

/// The modules each module uses: the deepest module each named path reaches. A module's use of its own
/// ancestors (`super::Item`) is part of being inside them, not an arrow; an item the crate's root re-exports
/// (`crate::State`) is the root's, the crate's front.
fn arrows(modules: &[Module]) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let known: BTreeSet<&Vec<String>> = modules.iter().map(|m| &m.path).collect();
    let mut arrows = BTreeMap::new();
    for module in modules {
        let mut to = BTreeSet::new();
        for path in named_paths(module) {
            let reached = (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| known.contains(p));
            if let Some(target) = reached
                && target != module.path
                && !module.path.starts_with(&target)
            {
                to.insert(target);
            }
        }
        arrows.insert(module.path.clone(), to);
    }
    arrows
}

/// The groups of modules that reach each other (Tarjan's strongly connected components, of two or more).
fn circles(arrows: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct Walk<'a> {
        arrows: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        found: Vec<Vec<Vec<String>>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Vec<String>) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.arrows.get(v).into_iter().flatten() {
                let Some((w, _)) = self.arrows.get_key_value(w) else { continue };
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in arrows.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn no_module_of_any_crate_imports_in_a_circle() {
    let mut found = Vec::new();
    for (name, dir) in crates() {
        for group in circles(&arrows(&modules(&dir.join("src")))) {
            let names: Vec<String> =
                group.iter().map(|p| if p.is_empty() { "(root)".into() } else { p.join("::") }).collect();
            found.push(format!("{name}: {}", names.join(" ↔ ")));
        }
    }
    assert!(found.is_empty(), "modules that import each other, directly or around a circle:\n{}", found.join("\n"));
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let module = |path: &[&str], code: &str| Module {
        path: path.iter().map(|s| s.to_string()).collect(),
        code: without_tests(&plain_code(code)),
        file: PathBuf::new(),
    };
    let modules = [
        module(&["a"], "use crate::b::{self, Thing};\n// crate::c in a comment\n"),
        module(&["b"], "fn f() { super::c::go(\"crate::a in a string\"); }"),
        module(&["c"], "pub fn go() { crate::a::x() }\n#[cfg(test)]\nmod tests { use crate::b; }"),
        module(&["c", "d"], "use super::go;"),
    ];
    let arrows = arrows(&modules);
    assert_eq!(arrows[&vec!["a".to_string()]], BTreeSet::from([vec!["b".to_string()]]));
    assert!(arrows[&vec!["c".to_string(), "d".to_string()]].is_empty(), "a module inside another uses it freely");
    let found = circles(&arrows);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 3, "a → b → c → a");
}

#[test]
fn every_unsafe_block_is_in_the_one_file_for_them() {
    let mut found = Vec::new();
    for (_, dir) in crates() {
        for module in modules(&dir.join("src")) {
            // Tests inside a module count too: test code is code.
            let code = &plain_code(&std::fs::read_to_string(&module.file).unwrap());
            let uses = code.match_indices("unsafe").filter(|(at, _)| {
                let before = code[..*at].chars().next_back();
                let after = code[at + 6..].chars().next();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if uses.count() > 0 {
                found.push(module.file.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    assert_eq!(found, ["crates/engine/src/os.rs"], "the files with `unsafe` in them");
}

#[test]
fn no_file_of_the_front_ends_or_the_engine_is_over_450_lines() {
    let mut long = Vec::new();
    for dir in [root().join("src"), root().join("crates/engine/src")] {
        for module in modules(&dir) {
            let lines = std::fs::read_to_string(&module.file).unwrap().lines().count();
            if lines > 450 {
                long.push(format!("{} ({lines})", module.file.strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(long.is_empty(), "files to split by what their parts own: {long:?}");
}
