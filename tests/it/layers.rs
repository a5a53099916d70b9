//! The layers docs/architecture.md states are the layers the code has: its
//! module table, read at test time, names what each module may import, and
//! every `crate::MODULE` path in a module's files is checked against it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules any module may use, as the document says below its table.
const EVERYWHERE: &[&str] = &["error", "sqlfiles", "exit"];

fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Each module of the table with the modules it may import (None: any).
fn table(doc: &str) -> BTreeMap<String, Option<BTreeSet<String>>> {
    let mut allowed = BTreeMap::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (modules, may) = (cells[1], cells[3]);
        let may = match may {
            "everything below" => None,
            _ => Some(backticked(may).into_iter().collect::<BTreeSet<_>>()),
        };
        for m in backticked(modules) {
            allowed.insert(m, may.clone());
        }
    }
    allowed
}

fn rust_files(at: &Path) -> Vec<PathBuf> {
    if at.is_file() {
        return vec![at.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(at).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

#[test]
fn every_module_imports_only_what_the_architecture_table_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let allowed = table(&doc);
    assert!(
        allowed.len() >= 10,
        "the module table was not found: {allowed:?}"
    );
    let path = regex::Regex::new(r"crate::([a-z_]+)").unwrap();
    let mut broken = Vec::new();
    for (module, may) in &allowed {
        let Some(may) = may else { continue };
        let dir = root.join("src").join(module);
        let at = if dir.is_dir() {
            dir
        } else {
            root.join(format!("src/{module}.rs"))
        };
        assert!(
            at.exists(),
            "the table names {module}, which src/ does not hold"
        );
        for file in rust_files(&at) {
            let text = std::fs::read_to_string(&file).unwrap();
            for used in path.captures_iter(&text).map(|c| c[1].to_string()) {
                let fine = used == *module
                    || may.contains(&used)
                    || EVERYWHERE.contains(&used.as_str())
                    || !allowed.contains_key(&used)
                        && !root.join("src").join(&used).exists()
                        && !root.join(format!("src/{used}.rs")).exists();
                if !fine {
                    broken.push(format!("{} uses crate::{used}", file.display()));
                }
            }
        }
    }
    broken.sort();
    broken.dedup();
    assert!(
        broken.is_empty(),
        "imports the table does not allow:\n{}",
        broken.join("\n")
    );
}
