//! A table of results rendered as aligned text (terminal), Markdown and CSV.
use std::fmt::Write;

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        assert_eq!(row.len(), self.headers.len(), "row width");
        self.rows.push(row);
    }

    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        w
    }

    /// Columns separated by two spaces, padded to their widest cell.
    pub fn text(&self) -> String {
        let w = self.widths();
        let mut s = String::new();
        for r in std::iter::once(&self.headers).chain(&self.rows) {
            let line: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{c:<w$}", w = w[i]))
                .collect();
            writeln!(s, "{}", line.join("  ").trim_end()).unwrap();
        }
        s
    }

    /// A GitHub-flavoured Markdown table (`|` in cells escaped).
    pub fn markdown(&self) -> String {
        let cell = |c: &String| c.replace('|', "\\|");
        let mut s = String::new();
        let line =
            |r: &[String]| format!("| {} |", r.iter().map(cell).collect::<Vec<_>>().join(" | "));
        writeln!(s, "{}", line(&self.headers)).unwrap();
        writeln!(s, "|{}", "---|".repeat(self.headers.len())).unwrap();
        for r in &self.rows {
            writeln!(s, "{}", line(r)).unwrap();
        }
        s
    }

    /// RFC 4180 CSV: cells with `,`, `"` or a line break are quoted.
    pub fn csv(&self) -> String {
        let cell = |c: &String| {
            if c.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        };
        let mut s = String::new();
        for r in std::iter::once(&self.headers).chain(&self.rows) {
            writeln!(s, "{}", r.iter().map(cell).collect::<Vec<_>>().join(",")).unwrap();
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new(&["kernel", "ranks", "note"]);
        t.push(vec!["cg".into(), "4".into(), "".into()]);
        t.push(vec!["is".into(), "16".into(), "a|b, \"c\"".into()]);
        t
    }

    #[test]
    fn renders_text() {
        assert_eq!(
            sample().text(),
            "kernel  ranks  note\ncg      4\nis      16     a|b, \"c\"\n"
        );
    }

    #[test]
    fn renders_markdown() {
        assert_eq!(
            sample().markdown(),
            "| kernel | ranks | note |\n|---|---|---|\n| cg | 4 |  |\n| is | 16 | a\\|b, \"c\" |\n"
        );
    }

    #[test]
    fn renders_csv() {
        assert_eq!(
            sample().csv(),
            "kernel,ranks,note\ncg,4,\nis,16,\"a|b, \"\"c\"\"\"\n"
        );
    }
}
