//! Stage 2, parse the loose files: manifests and reports, parsed before any
//! run directory because they name the skill of each case and the case ids
//! the layouts need.

use super::plan::Plan;
use crate::batch::state::file_print;
use crate::ingest::formats::seh::benchmark_stream::stream_from_bytes;
use crate::ingest::formats::Format;
use crate::ingest::loose::{self, LooseKind, LooseParse};
use crate::json;
use crate::model::errors::{ErrorKind, IngestErrorRec};
use crate::store::writer::SourceFileRec;

/// One loose file, parsed.
pub(super) struct ParsedLoose {
    pub(super) path: String,
    /// The file itself, then every file its parse read (owned by it).
    pub(super) files: Vec<SourceFileRec>,
    pub(super) parse: LooseParse,
}

pub(super) struct LooseFiles {
    pub(super) parsed: Vec<ParsedLoose>,
    /// Files no adapter claimed inside a walked tree.
    pub(super) skipped: Vec<String>,
    /// In file order: parse errors, and unrecognised files given by name.
    pub(super) errors: Vec<IngestErrorRec>,
}

/// Each file's bytes are released once parsed: a large report's bytes and
/// its parsed tree are never held together with the next file's.
/// Each file's row names the batch's release, and no shard: a manifest or
/// report is shared by the shards of its release.
pub(super) fn parse(plan: &mut Plan, forced: Option<Format>) -> LooseFiles {
    let mut out = LooseFiles {
        parsed: Vec::new(),
        skipped: Vec::new(),
        errors: Vec::new(),
    };
    let release = plan.release.label.clone();
    let release_explicit = plan.release.explicit();
    for read in &mut plan.loose {
        // An unreadable file has its error row already.
        let unit_path = read.unit.path.clone();
        let Some((info, bytes, sha)) = read
            .contents
            .first_mut()
            .filter(|(f, _, _)| f.is(&unit_path))
        else {
            continue;
        };
        let file_path = info.path();
        let path = file_path.display().to_string();
        let mut bytes = std::mem::take(bytes);
        // Only hashed when planned (too large to hold, or past the budget of
        // bytes kept): stream it if it is a large report, else read it again.
        let mut streamed = None;
        if bytes.is_empty() && info.size > 0 {
            if info.size >= stream_from_bytes() && forced.is_none_or(|f| f == Format::Seh) {
                streamed = loose::parse_streamed_benchmark(&file_path, &path, sha, &release);
            }
            if streamed.is_none() {
                match json::read_hashed(&file_path, &plan.limits) {
                    Ok((whole, _)) => bytes = whole,
                    Err(e) => {
                        out.errors.push(IngestErrorRec::unreadable(path, &e));
                        continue;
                    }
                }
            }
        }
        let mut parse = match streamed {
            Some(p) => p,
            None => loose::parse(&path, &bytes, sha, &release, release_explicit, forced),
        };
        drop(bytes);
        if parse.kind == LooseKind::Unrecognized {
            match plan.explicit_files.contains(&file_path) {
                true => out.errors.push(IngestErrorRec::new(
                    path,
                    ErrorKind::Unrecognized,
                    loose::UNRECOGNIZED,
                )),
                false => out.skipped.push(path),
            }
            continue;
        }
        out.errors.append(&mut parse.records.errors);
        let mut files = vec![SourceFileRec {
            print: file_print(&path, info.size as i64, info.mtime_ns),
            path: path.clone(),
            sha256: sha.clone(),
            size_bytes: info.size as i64,
            mtime_ns: info.mtime_ns,
            kind: parse.kind.label().to_string(),
            source_format: parse.source_format.into(),
            owner_key: path.clone(),
            release_label: release.clone(),
            shard: None,
        }];
        files.extend(parse.declared.iter().map(|d| {
            let declared = d.path.display().to_string();
            SourceFileRec {
                print: file_print(&declared, d.size as i64, d.mtime_ns),
                path: declared,
                sha256: d.sha256.clone(),
                size_bytes: d.size as i64,
                mtime_ns: d.mtime_ns,
                kind: "declared".into(),
                source_format: parse.source_format.into(),
                owner_key: path.clone(),
                release_label: release.clone(),
                shard: None,
            }
        }));
        out.parsed.push(ParsedLoose { path, files, parse });
    }
    out
}
