//! Every record liftdb writes declares its columns once (`table!`); those
//! declarations must match the migrated store column for column — name,
//! position, type and nullability — or two swapped fields would write each
//! other's data. The source of truth is `duckdb_columns()` of a fresh store.

use liftdb::model::records::{Records, SourceFileRec};
use liftdb::model::table::{Column, Kind};
use liftdb::store::Store;

use crate::common::{new_store, rows};

/// The kinds a DuckDB column type accepts from the appender (it casts text
/// to JSON and DECIMAL, integers to INTEGER).
fn accepts(sql_type: &str, kind: Kind) -> bool {
    match kind {
        Kind::Text => {
            sql_type == "VARCHAR" || sql_type == "JSON" || sql_type.starts_with("DECIMAL")
        }
        Kind::Int => sql_type == "BIGINT" || sql_type == "INTEGER",
        Kind::UInt => sql_type == "UBIGINT",
        Kind::Float => sql_type == "DOUBLE",
        Kind::Bool => sql_type == "BOOLEAN",
        Kind::Timestamp => sql_type == "TIMESTAMP",
    }
}

/// Differences between a record's declared columns and the store's table.
fn mismatches(store: &Store, table: &str, declared: &[Column]) -> Vec<String> {
    let store_cols = rows(
        store,
        &format!(
            "SELECT column_name, data_type, is_nullable FROM duckdb_columns()
             WHERE table_name = '{table}' AND NOT internal ORDER BY column_index"
        ),
    );
    let mut out = Vec::new();
    if store_cols.len() != declared.len() {
        out.push(format!(
            "{table}: {} columns declared, {} in the store",
            declared.len(),
            store_cols.len()
        ));
    }
    for (i, (col, stored)) in declared.iter().zip(&store_cols).enumerate() {
        let name = stored["column_name"].as_str().unwrap_or_default();
        let sql_type = stored["data_type"].as_str().unwrap_or_default();
        let nullable = stored["is_nullable"].as_bool().unwrap_or(true);
        let declared_name = col.name.trim_start_matches("r#");
        if declared_name != name {
            out.push(format!(
                "{table} column {i}: declared {declared_name}, store has {name}"
            ));
        }
        if col.sql_type.replace(' ', "") != sql_type.replace(' ', "") {
            out.push(format!(
                "{table}.{name}: declared {}, store has {sql_type}",
                col.sql_type
            ));
        }
        if !accepts(sql_type, col.kind) {
            out.push(format!(
                "{table}.{name}: {:?} values cannot fill {sql_type}",
                col.kind
            ));
        }
        if col.nullable && !nullable {
            out.push(format!(
                "{table}.{name}: the record may be NULL, the column is NOT NULL"
            ));
        }
    }
    out
}

#[test]
fn every_record_matches_its_table_column_for_column() {
    let ts = new_store();
    let mut problems = Vec::new();
    for (table, columns) in Records::TABLES {
        problems.extend(mismatches(&ts.store, table, columns));
    }
    problems.extend(mismatches(
        &ts.store,
        SourceFileRec::TABLE,
        SourceFileRec::COLUMNS,
    ));
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(Records::TABLES.len(), 12, "every ingest table is checked");
}

#[test]
fn two_swapped_fields_are_caught() {
    // The check itself: suite_record with release_label and skill_name swapped, as
    // a record declared in the wrong order would be.
    let (table, columns) = Records::TABLES
        .iter()
        .find(|(t, _)| *t == "suite_record")
        .expect("suite_record is declared");
    let mut swapped = columns.to_vec();
    swapped.swap(1, 2);
    let problems = mismatches(&new_store().store, table, &swapped);
    assert_eq!(
        problems,
        [
            "suite_record column 1: declared skill_name, store has release_label",
            "suite_record column 2: declared release_label, store has skill_name"
        ]
    );
}
