use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange, Hir, HirKind, Class};
use std::collections::BTreeSet;

fn class_of(pat: &str) -> BTreeSet<u32> {
    let hir: Hir = regex_syntax::Parser::new().parse(pat).unwrap();
    let mut out = BTreeSet::new();
    if let HirKind::Class(Class::Unicode(c)) = hir.kind() {
        for r in c.ranges() {
            for cp in (r.start() as u32)..=(r.end() as u32) {
                out.insert(cp);
            }
        }
    } else {
        panic!("not a class: {pat}");
    }
    out
}

fn main() {
    let py: serde_json::Value = serde_json::from_str(&std::fs::read_to_string("../py311.json").unwrap()).unwrap();
    let set = |k: &str| -> BTreeSet<u32> { py[k].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect() };
    let diff = |a: &BTreeSet<u32>, b: &BTreeSet<u32>| -> Vec<u32> { a.symmetric_difference(b).copied().collect() };
    let (pw, pd, ps) = (set("w"), set("d"), set("s"));
    let (rw, rd, rs) = (class_of(r"\w"), class_of(r"\d"), class_of(r"\s"));
    let dw = diff(&pw, &rw);
    let dd = diff(&pd, &rd);
    let ds = diff(&ps, &rs);
    // lowercase: chars where Rust to_lowercase differs from Python lower()
    let lower = py["lower"].as_object().unwrap();
    let mut dl = Vec::new();
    for cp in 0u32..0x110000 {
        let Some(c) = char::from_u32(cp) else { continue };
        let rust: Vec<u32> = c.to_lowercase().map(|x| x as u32).collect();
        let pyl: Vec<u32> = lower.get(&cp.to_string()).map(|v| v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()).unwrap_or(vec![cp]);
        if rust != pyl { dl.push((cp, rust, pyl)); }
    }
    // case-insensitive equivalence classes
    let ci = py["ci_class"].as_object().unwrap();
    let mut dci = Vec::new();
    let mut dci_map: Vec<(u32, Vec<u32>)> = Vec::new();
    for cp in 0u32..0x110000 {
        let Some(c) = char::from_u32(cp) else { continue };
        let mut cls = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
        cls.case_fold_simple();
        let rust: BTreeSet<u32> = cls.ranges().iter().flat_map(|r| (r.start() as u32)..=(r.end() as u32)).collect();
        let pyc: BTreeSet<u32> = ci.get(&cp.to_string()).map(|v| v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()).unwrap_or([cp].into());
        if rust != pyc { dci.push(cp); dci_map.push((cp, rust.symmetric_difference(&pyc).copied().collect::<Vec<u32>>())); }
    }
    eprintln!("dw {} dd {} ds {} lower {} ci {}", dw.len(), dd.len(), ds.len(), dl.len(), dci.len());
    let out = serde_json::json!({"dw": dw, "dd": dd, "ds": ds, "lower_pins": dl.iter().filter(|(cp,_,p)| p == &vec![*cp]).map(|(cp,_,_)| *cp).collect::<Vec<_>>(), "lower_other": dl.iter().filter(|(cp,_,p)| p != &vec![*cp]).map(|(cp,r,p)| serde_json::json!([cp,r,p])).collect::<Vec<_>>(), "dci": dci, "dci_map": dci_map, "pw": pw.iter().copied().collect::<Vec<_>>() , "pd": pd.iter().copied().collect::<Vec<_>>(), "ps": ps.iter().copied().collect::<Vec<_>>()});
    std::fs::write("../rust_diff.json", out.to_string()).unwrap();
}
