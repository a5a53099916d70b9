//! Each table of the raw layer declared once: `table!` turns one list of
//! `field: RustType => "SQL TYPE"` into the record struct, its column list
//! (name, SQL type, value kind, nullability) and its row in column order.
//! The column list drives the Arrow builders, and a test checks it against
//! `duckdb_columns()` of a migrated store, so a field out of DDL order fails
//! the build's tests instead of writing wrong data.

#[cfg(feature = "store")]
use duckdb::types::{TimeUnit, Value};

/// The kind of value a column carries to the appender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    /// Unsigned 64-bit (UBIGINT): a file's print.
    UInt,
    Float,
    Bool,
    Timestamp,
}

/// A row of a table as the writer appends it.
#[cfg(feature = "store")]
pub type Row = Vec<Value>;

/// One column of a table, in DDL order.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    /// The type the DDL gives it (DuckDB casts the appended kind to it).
    pub sql_type: &'static str,
    pub kind: Kind,
    pub nullable: bool,
}

/// A column of text values: for liftdb's own temporary key tables.
pub const TEXT_KEY: &[Column] = &[Column {
    name: "path",
    sql_type: "VARCHAR",
    kind: Kind::Text,
    nullable: true,
}];

/// The units a batch replaces: path, release (NULL: every release's), shard.
pub const DOOMED_KEY: &[Column] = &[
    Column {
        name: "path",
        sql_type: "VARCHAR",
        kind: Kind::Text,
        nullable: true,
    },
    Column {
        name: "release",
        sql_type: "VARCHAR",
        kind: Kind::Text,
        nullable: true,
    },
    Column {
        name: "shard",
        sql_type: "VARCHAR",
        kind: Kind::Text,
        nullable: true,
    },
];

/// A Rust field type that can be a column: its kind, whether it can be
/// NULL, and its value (NULL for absent or non-finite).
pub trait Cell {
    const KIND: Kind;
    const NULLABLE: bool;
    #[cfg(feature = "store")]
    fn cell(&self) -> Value;
    /// The value, the record given up for it: text is moved, not copied.
    #[cfg(feature = "store")]
    fn into_cell(self) -> Value
    where
        Self: Sized,
    {
        self.cell()
    }
}

/// A point in time as the harness writes it: seconds since the epoch.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EpochSeconds(pub Option<f64>);

impl EpochSeconds {
    /// An RFC 3339 time (`2026-03-02T09:32:00Z`, `…40.418Z`, `…+02:00`);
    /// None for anything else.
    pub fn from_rfc3339(text: Option<&str>) -> Self {
        EpochSeconds(text.and_then(|t| {
            let at = chrono::DateTime::parse_from_rfc3339(t).ok()?;
            Some(at.timestamp() as f64 + f64::from(at.timestamp_subsec_micros()) / 1e6)
        }))
    }
}

macro_rules! cell {
    ($ty:ty, $kind:ident, $nullable:expr, |$v:ident| $value:expr) => {
        cell!($ty, $kind, $nullable, |$v| $value, |o| o.cell());
    };
    // The second closure: the value the field gives up (`into_cell`).
    ($ty:ty, $kind:ident, $nullable:expr, |$v:ident| $value:expr, |$o:ident| $owned:expr) => {
        impl Cell for $ty {
            const KIND: Kind = Kind::$kind;
            const NULLABLE: bool = $nullable;
            #[cfg(feature = "store")]
            fn cell(&self) -> Value {
                let $v = self;
                $value
            }
            #[cfg(feature = "store")]
            fn into_cell(self) -> Value {
                let $o = self;
                $owned
            }
        }
    };
}

cell!(String, Text, false, |v| Value::Text(v.clone()), |v| {
    Value::Text(v)
});
cell!(
    Option<String>,
    Text,
    true,
    |v| v.as_ref().map_or(Value::Null, |s| Value::Text(s.clone())),
    |v| v.map_or(Value::Null, Value::Text)
);
cell!(i64, Int, false, |v| Value::BigInt(*v));
cell!(u64, UInt, false, |v| Value::UBigInt(*v));
cell!(Option<i64>, Int, true, |v| v
    .map_or(Value::Null, Value::BigInt));
cell!(Option<f64>, Float, true, |v| v
    .filter(|f| f.is_finite())
    .map_or(Value::Null, Value::Double));
cell!(bool, Bool, false, |v| Value::Boolean(*v));
cell!(Option<bool>, Bool, true, |v| v
    .map_or(Value::Null, Value::Boolean));
cell!(EpochSeconds, Timestamp, true, |v| v
    .0
    .map_or(Value::Null, |s| {
        Value::Timestamp(TimeUnit::Microsecond, (s * 1_000_000.0) as i64)
    }));

/// `table! { #[derive(..)] pub struct Name in "table" { field: Type => "SQL", ... } }`;
/// `@batch_id,` in the list stands for the batch column, filled from the
/// batch being written rather than from the record.
macro_rules! table {
    ($(#[$m:meta])* pub struct $name:ident in $table:literal { $($body:tt)* }) => {
        $crate::model::table::table!(@munch [$(#[$m])*] $name $table [] [] [] $($body)*);
    };
    (@munch $m:tt $name:ident $table:literal [$($f:tt)*] [$($c:tt)*] [$($cols:tt)*]
        @batch_id, $($rest:tt)*) => {
        $crate::model::table::table!(@munch $m $name $table [$($f)*] [$($c)* (batch)]
            [$($cols)* ("batch_id", "BIGINT", ($crate::model::table::Kind::Int), false)] $($rest)*);
    };
    (@munch $m:tt $name:ident $table:literal [$($f:tt)*] [$($c:tt)*] [$($cols:tt)*]
        $(#[$fm:meta])* $col:ident : $ty:ty => $sql:literal, $($rest:tt)*) => {
        $crate::model::table::table!(@munch $m $name $table
            [$($f)* $(#[$fm])* pub $col: $ty,]
            [$($c)* (field $col)]
            [$($cols)* (stringify!($col), $sql, (<$ty as $crate::model::table::Cell>::KIND),
                (<$ty as $crate::model::table::Cell>::NULLABLE))]
            $($rest)*);
    };
    (@munch [$(#[$m:meta])*] $name:ident $table:literal [$($f:tt)*] [$(($($c:tt)*))*]
        [$(($cn:expr, $cs:expr, $ck:tt, $cnull:expr))*]) => {
        $(#[$m])*
        pub struct $name { $($f)* }

        impl $name {
            pub const TABLE: &'static str = $table;
            pub const COLUMNS: &'static [$crate::model::table::Column] = &[$(
                $crate::model::table::Column {
                    name: $cn,
                    sql_type: $cs,
                    kind: $ck,
                    nullable: $cnull,
                }
            ),*];

            /// The values in the table's column order.
            #[cfg(feature = "store")]
            #[allow(unused_variables)] // tables without a batch column ignore it
            pub fn row(&self, batch_id: i64) -> $crate::model::table::Row {
                vec![$($crate::model::table::table!(@cell self batch_id $($c)*)),*]
            }

            /// `row`, the record given up for it (its text moved, not copied).
            #[cfg(feature = "store")]
            #[allow(unused_variables)]
            pub fn into_row(self, batch_id: i64) -> $crate::model::table::Row {
                vec![$($crate::model::table::table!(@into self batch_id $($c)*)),*]
            }
        }
    };
    (@cell $s:ident $b:ident batch) => { duckdb::types::Value::BigInt($b) };
    (@cell $s:ident $b:ident field $col:ident) => {
        $crate::model::table::Cell::cell(&$s.$col)
    };
    (@into $s:ident $b:ident batch) => { duckdb::types::Value::BigInt($b) };
    (@into $s:ident $b:ident field $col:ident) => {
        $crate::model::table::Cell::into_cell($s.$col)
    };
}
pub(crate) use table;

/// The table list of `Records`: one `Vec` per table, appended in this order
/// (a run before the rows that reference it).
macro_rules! record_tables {
    ($($field:ident: $rec:ident),* $(,)?) => {
        /// Everything parsed from one unit (a run directory, a report, a manifest).
        #[derive(Debug, Default)]
        pub struct Records {
            $(pub $field: Vec<$rec>,)*
            pub errors: Vec<IngestErrorRec>,
        }

        impl Records {
            pub fn error(&mut self, path: &str, kind: ErrorKind, reason: impl Into<String>) {
                self.errors.push(IngestErrorRec::new(path, kind, reason));
            }

            pub fn append(&mut self, mut other: Records) {
                $(self.$field.append(&mut other.$field);)*
                self.errors.append(&mut other.errors);
            }

            /// Every table these records write, with its columns.
            pub const TABLES: &'static [(&'static str, &'static [$crate::model::table::Column])] =
                &[$(($rec::TABLE, $rec::COLUMNS)),*];

            /// Each table's rows (all but the errors), in append order.
            #[cfg(feature = "store")]
            pub fn table_rows(&self, batch_id: i64) -> TableRows {
                vec![$(TableBatch {
                    table: $rec::TABLE,
                    columns: $rec::COLUMNS,
                    rows: self.$field.iter().map(|x| x.row(batch_id)).collect(),
                }),*]
            }

            /// `table_rows`, the records given up for them (their errors,
            /// which are not rows, dropped: take them first).
            #[cfg(feature = "store")]
            pub fn into_table_rows(self, batch_id: i64) -> TableRows {
                vec![$(TableBatch {
                    table: $rec::TABLE,
                    columns: $rec::COLUMNS,
                    rows: self.$field.into_iter().map(|x| x.into_row(batch_id)).collect(),
                }),*]
            }
        }
    };
}
pub(crate) use record_tables;
