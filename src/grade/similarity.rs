//! `difflib.SequenceMatcher(None, a, b).ratio()` of CPython 3.11, over code
//! points: the same longest-match search (earliest i, then earliest j), the
//! same autojunk rule (elements of b more frequent than 1% + 1 are left out
//! of the index when b has 200 or more), the same block recursion.

use std::collections::HashMap;

pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let matcher = Matcher::new(&a, &b);
    2.0 * matcher.matches() as f64 / total as f64
}

struct Matcher<'a> {
    a: &'a [char],
    b: &'a [char],
    /// Positions of each element in b, popular elements left out.
    b2j: HashMap<char, Vec<usize>>,
}

impl<'a> Matcher<'a> {
    fn new(a: &'a [char], b: &'a [char]) -> Self {
        let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
        for (j, c) in b.iter().enumerate() {
            b2j.entry(*c).or_default().push(j);
        }
        if b.len() >= 200 {
            let ntest = b.len() / 100 + 1;
            b2j.retain(|_, idxs| idxs.len() <= ntest);
        }
        Matcher { a, b, b2j }
    }

    /// `find_longest_match(alo, ahi, blo, bhi)` with no junk.
    fn longest(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for i in alo..ahi {
            let mut next: HashMap<usize, usize> = HashMap::new();
            if let Some(js) = self.b2j.get(&self.a[i]) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j
                        .checked_sub(1)
                        .and_then(|p| j2len.get(&p))
                        .copied()
                        .unwrap_or(0)
                        + 1;
                    next.insert(j, k);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            j2len = next;
        }
        // Extend over equal elements the index left out (the popular ones).
        while besti > alo && bestj > blo && self.a[besti - 1] == self.b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && self.a[besti + bestsize] == self.b[bestj + bestsize]
        {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }

    /// The total size of `get_matching_blocks()`.
    fn matches(&self) -> usize {
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        let mut total = 0;
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.longest(alo, ahi, blo, bhi);
            if k > 0 {
                total += k;
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::ratio;

    #[test]
    fn ratios_cpython_gives() {
        // Values printed by CPython 3.11's difflib.SequenceMatcher(None, a, b).ratio().
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("abcd", "bcde"), 0.75);
        assert_eq!(ratio("tide", "diet"), 0.25);
        assert_eq!(
            ratio(
                "private Thread currentThread;",
                "private volatile Thread currentThread;"
            ),
            0.8656716417910447
        );
        // b of 250 elements: autojunk leaves its popular elements out of the index.
        assert_eq!(ratio(AUTOJUNK_A, AUTOJUNK_B), 0.0036363636363636364);
    }

    /// random.seed(5); 300 draws of "ab c" and 250 of "ab cd" (CPython 3.11).
    const AUTOJUNK_A: &str = "  acbaba cbcababc bcbabcbbaabbbb  bbbbc a cbb a  a a   c bccba a cac cacabbabc   ca  acab  b  a   bab cbaacab  ccbaac bbbcabc bac bcbcc c  ccbacbc bac  a a   c   bac   c     c bc  bbb c acbc  abbcbbbacbbaba bcbacc cabb a c ca a a    bcc cbbccbba aca b cccbc cccb  c ca  c bcaacb abcac bcabc b  ccaab ";
    const AUTOJUNK_B: &str = " d d dac  dbaa dcadbaccddccccb ca acd c bbcdc dbcddaab aaa caccaaabdab cbbdbcbadbadaca addacdbaca dcc  ab bdd dddb adb  dbb ccbba adaaaddcbccc adadcabcbaacbbdc b  d ccb  c daddbbcaaaabbbacc acc dc ccabbba ccbd a b baca   aaccba  cbbabadbadc  bc  acbb";
}
