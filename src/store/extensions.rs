//! The DuckDB extensions a lake needs (ducklake, postgres_scanner; httpfs and
//! aws for object storage), found in `--extension-dir` however it was
//! filled: DuckDB's own layout (`v1.5.5/linux_amd64/NAME.duckdb_extension`),
//! the wheels `pip download duckdb-extension-NAME==1.5.5` writes, or those
//! wheels unzipped. liftdb never downloads an extension: each is loaded from
//! its file, and one that is missing is said with where liftdb looked and the
//! `pip download` that fetches it.

use std::path::{Path, PathBuf};

use duckdb::Connection;

use crate::{Error, Result};

/// The DuckDB version the extension binaries must be built for (the bundled
/// engine's; a binary built for another version refuses to load).
pub fn engine_version(conn: &Connection) -> Result<String> {
    Ok(conn.query_row("SELECT version()", [], |r| r.get::<_, String>(0))?)
}

/// DuckDB's platform name (`linux_amd64`), the last folder of its layout.
fn platform(conn: &Connection) -> Result<String> {
    Ok(conn.query_row("PRAGMA platform", [], |r| r.get::<_, String>(0))?)
}

/// Load `names` into `conn`: from `dir` when given (every layout above),
/// else from DuckDB's default directory by name.
pub fn load(conn: &Connection, dir: Option<&Path>, names: &[&str]) -> Result<()> {
    let version = engine_version(conn)?;
    let Some(dir) = dir else {
        for name in names {
            conn.execute_batch(&format!("LOAD {name};"))
                .map_err(|e| missing(name, &version, None, Some(e)))?;
        }
        return Ok(());
    };
    let platform = platform(conn)?;
    for name in names {
        let file = find(dir, name, &version, &platform)?
            .ok_or_else(|| missing(name, &version, Some(dir), None))?;
        conn.execute_batch(&format!(
            "LOAD {};",
            super::literal::quoted(&file.display().to_string())
        ))
        .map_err(|e| missing(name, &version, Some(dir), Some(e)))?;
    }
    Ok(())
}

/// The file of extension `name` for `version` under `dir`, in the first
/// layout that has it; a wheel is unpacked into liftdb's cache first.
fn find(dir: &Path, name: &str, version: &str, platform: &str) -> Result<Option<PathBuf>> {
    let file_name = format!("{name}.duckdb_extension");
    let duckdb_layout = dir.join(version).join(platform).join(&file_name);
    if duckdb_layout.is_file() {
        return Ok(Some(duckdb_layout));
    }
    // An unzipped wheel: duckdb_extension_NAME/extensions/vX/NAME.duckdb_extension,
    // at the top of `dir` or one folder down (a folder per wheel).
    let package_dir = format!("duckdb_extension_{name}");
    let in_wheel = |root: &Path| root.join(&package_dir).join("extensions").join(version);
    let mut roots = vec![dir.to_path_buf()];
    roots.extend(subfolders(dir));
    for root in &roots {
        let file = in_wheel(root).join(&file_name);
        if file.is_file() {
            return Ok(Some(file));
        }
    }
    // The wheel itself, as pip download writes it.
    let wheel_prefix = format!("{package_dir}-{}-", version.trim_start_matches('v'));
    let wheel = std::fs::read_dir(dir)
        .map_err(|error| Error::Io {
            path: dir.to_path_buf(),
            error,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&wheel_prefix) && n.ends_with(".whl"))
        });
    match wheel {
        Some(wheel) => unpack(
            &wheel,
            &format!("{package_dir}/extensions/{version}/{file_name}"),
        )
        .map(Some),
        None => Ok(None),
    }
}

fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The member `entry` of `wheel`, written once into liftdb's cache (keyed by
/// the wheel's size and name: a new download unpacks again), where DuckDB
/// can load it from.
fn unpack(wheel: &Path, entry: &str) -> Result<PathBuf> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| Error::Io { path, error }
    };
    let size = std::fs::metadata(wheel).map_err(io(wheel))?.len();
    let stem = wheel
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = cache_root().join(format!("{stem}-{size}"));
    let file_name = entry.rsplit('/').next().unwrap_or(entry);
    let out = folder.join(file_name);
    if out.is_file() {
        return Ok(out);
    }
    std::fs::create_dir_all(&folder).map_err(io(&folder))?;
    let archive = std::fs::File::open(wheel).map_err(io(wheel))?;
    let not_a_wheel = |detail: String| {
        Error::Invalid(format!(
            "{} is not a readable wheel ({detail}); download it again with pip download",
            wheel.display()
        ))
    };
    let mut zip = zip::ZipArchive::new(archive).map_err(|e| not_a_wheel(e.to_string()))?;
    let mut member = zip
        .by_name(entry)
        .map_err(|_| not_a_wheel(format!("it holds no {entry}")))?;
    // Written aside and renamed: two processes unpacking at once never load
    // a half-written file.
    let partial = folder.join(format!("{file_name}.{}.partial", std::process::id()));
    let mut file = std::fs::File::create(&partial).map_err(io(&partial))?;
    std::io::copy(&mut member, &mut file).map_err(io(&partial))?;
    std::fs::rename(&partial, &out).map_err(io(&out))?;
    Ok(out)
}

/// Where unpacked wheels are kept: `$XDG_CACHE_HOME/liftdb/extensions`,
/// else `~/.cache/liftdb/extensions`, else the temporary folder.
fn cache_root() -> PathBuf {
    crate::sys::cache::folder("extensions")
}

/// An extension that could not be had: where liftdb looked and how to get
/// it. DuckDB's own advice (to INSTALL it) is left out: liftdb never
/// downloads.
fn missing(name: &str, version: &str, dir: Option<&Path>, e: Option<duckdb::Error>) -> Error {
    let detail = e
        .map(|e| crate::error::duckdb_text(&e))
        .map(|text| {
            text.lines()
                .take_while(|l| !l.contains("INSTALL"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|text| !text.trim().is_empty());
    Error::LakeExtensions {
        name: name.to_string(),
        version: version.to_string(),
        dir: dir.map_or(
            "DuckDB's default extension directory (~/.duckdb/extensions)".into(),
            |d| d.display().to_string(),
        ),
        detail: detail.map_or(String::new(), |d| format!(" (DuckDB: {d})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout is found: DuckDB's, an unzipped wheel at the top or one
    /// folder down, and a wheel unpacked into the cache.
    #[test]
    fn an_extension_is_found_in_each_layout_pip_or_duckdb_leaves() {
        let dir = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        std::env::set_var("XDG_CACHE_HOME", cache.path());
        let d = dir.path();
        let put = |path: PathBuf| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, b"binary").unwrap();
            path
        };
        let a = put(d.join("v1.5.5/linux_amd64/ducklake.duckdb_extension"));
        assert_eq!(
            find(d, "ducklake", "v1.5.5", "linux_amd64").unwrap(),
            Some(a)
        );
        let b = put(d.join("duckdb_extension_httpfs/extensions/v1.5.5/httpfs.duckdb_extension"));
        assert_eq!(find(d, "httpfs", "v1.5.5", "linux_amd64").unwrap(), Some(b));
        let c = put(d.join("unzipped/duckdb_extension_aws/extensions/v1.5.5/aws.duckdb_extension"));
        assert_eq!(find(d, "aws", "v1.5.5", "linux_amd64").unwrap(), Some(c));
        // A wheel as pip download names it.
        let wheel =
            d.join("duckdb_extension_postgres_scanner-1.5.5-py3-none-manylinux2014_x86_64.whl");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&wheel).unwrap());
        zip.start_file(
            "duckdb_extension_postgres_scanner/extensions/v1.5.5/postgres_scanner.duckdb_extension",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        std::io::Write::write_all(&mut zip, b"the binary").unwrap();
        zip.finish().unwrap();
        let unpacked = find(d, "postgres_scanner", "v1.5.5", "linux_amd64")
            .unwrap()
            .unwrap();
        assert!(unpacked.starts_with(cache.path()));
        assert_eq!(std::fs::read(unpacked).unwrap(), b"the binary");
        // Another version's files are not this engine's.
        assert_eq!(find(d, "ducklake", "v1.4.2", "linux_amd64").unwrap(), None);
    }

    #[test]
    fn a_missing_extension_never_says_install() {
        let e = duckdb::Error::DuckDBFailure(
            duckdb::ffi::Error::new(duckdb::ffi::DuckDBError),
            Some(
                "IO Error: Extension \"x\" not found.\nInstall it first using \"INSTALL x\"."
                    .into(),
            ),
        );
        let text = missing("ducklake", "v1.5.5", Some(Path::new("/ext")), Some(e)).to_string();
        assert!(!text.contains("INSTALL"), "{text}");
        assert!(
            text.contains("/ext") && text.contains("pip download duckdb-extension-ducklake==1.5.5"),
            "{text}"
        );
    }
}
