//! Splitting SQL text into statements on `;` outside quotes and comments,
//! and telling whether a buffer is a complete statement yet.

/// Statements in `text`, each without its trailing `;` and trimmed; a final
/// unterminated statement is returned as the remainder.
pub fn split(text: &str) -> (Vec<String>, String) {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    let (mut single, mut double, mut line_comment, mut block_comment) =
        (false, false, false, false);
    while let Some(c) = chars.next() {
        current.push(c);
        if line_comment {
            line_comment = c != '\n';
            continue;
        }
        if block_comment {
            if c == '*' && chars.peek() == Some(&'/') {
                current.push(chars.next().unwrap_or('/'));
                block_comment = false;
            }
            continue;
        }
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '-' if !single && !double && chars.peek() == Some(&'-') => line_comment = true,
            '/' if !single && !double && chars.peek() == Some(&'*') => block_comment = true,
            ';' if !single && !double => {
                current.pop();
                let stmt = current.trim().to_string();
                if !stmt.is_empty() {
                    out.push(stmt);
                }
                current.clear();
            }
            _ => {}
        }
    }
    (out, current.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_outside_quotes_and_comments() {
        let (stmts, rest) = split("SELECT ';' AS a; -- x; y\nSELECT \"b;c\" FROM t; SELECT 1");
        assert_eq!(stmts, ["SELECT ';' AS a", "-- x; y\nSELECT \"b;c\" FROM t"]);
        assert_eq!(rest, "SELECT 1");
        let (stmts, rest) = split("/* ; */ SELECT 2;");
        assert_eq!(stmts, ["/* ; */ SELECT 2"]);
        assert_eq!(rest, "");
    }
}
