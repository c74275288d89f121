//! The documentation and the binary agree (issue 48): every `--flag`
//! written in `README.md` or `docs/*.md` is a flag that some `warpforge`
//! subcommand's `--help` lists (or one of the few flags of other tools the
//! docs name, listed in [`OTHER_TOOLS`]), and every documented command line
//! (`warpforge <cmd> ...` or `$B <cmd> ...` in a code block, or an inline
//! code span that starts with a subcommand) gives that subcommand only flags
//! its own `--help` lists. The CLI tests check that `docs/CLI.md` is what
//! `--help` prints.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Flags of other tools that the docs mention, with the tool.
const OTHER_TOOLS: &[(&str, &str)] = &[
    ("--workspace", "cargo test --workspace (make test)"),
    (
        "--doc",
        "cargo test --workspace --doc (make test under cargo-nextest)",
    ),
    ("--show", "wf-fuzz --show TARGET N (docs/TESTING.md)"),
    (
        "--warpforge",
        "scripts/random_conversions.py --warpforge BIN (docs/BENCH.md)",
    ),
    (
        "--per-thread",
        "scripts/random_conversions.py --per-thread MIN,MAX (docs/BENCH.md)",
    ),
    (
        "--offload-arch",
        "clang -x hip --offload-arch=gfx942 (docs/VERIFY.md, the HIP compile check)",
    ),
    (
        "--cuda-device-only",
        "clang -x hip --cuda-device-only (docs/VERIFY.md, the HIP compile check)",
    ),
];

fn help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .arg("--help")
        .output()
        .expect("warpforge runs");
    assert!(o.status.success(), "warpforge {args:?} --help failed");
    String::from_utf8(o.stdout).unwrap()
}

/// The subcommands `warpforge --help` lists (not `help`).
fn subcommands() -> Vec<String> {
    let top = help(&[]);
    let mut out = Vec::new();
    let mut inside = false;
    for l in top.lines() {
        if l.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside {
            if l.trim().is_empty() {
                break;
            }
            let name = l.split_whitespace().next().unwrap().to_string();
            if name != "help" {
                out.push(name);
            }
        }
    }
    assert!(out.len() >= 5, "no subcommands in: {top}");
    out
}

/// The long flags an option line of `--help` defines (`  -o, --output
/// <OUTPUT>`, `      --ttgir <TTGIR>...`), not those its description names.
fn defined_flags(help: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for l in help.lines() {
        let t = l.trim_start();
        let t = match t.strip_prefix('-') {
            Some(rest) if !rest.starts_with('-') => {
                // `-o, --output`
                match rest.split_once(", ") {
                    Some((_, r)) => r,
                    None => continue,
                }
            }
            Some(_) => t,
            None => continue,
        };
        if let Some(f) = flags_in(t).first() {
            if t.starts_with(f.as_str()) {
                out.insert(f.clone());
            }
        }
    }
    out
}

/// Every `--name` in `text` that starts a flag: `--` not preceded by a
/// letter, digit, `_` or `-`, followed by a lower-case letter.
fn flags_in(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        let before_ok =
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'-');
        if b[i] == b'-' && b[i + 1] == b'-' && before_ok && b[i + 2].is_ascii_lowercase() {
            let mut j = i + 2;
            while j < b.len()
                && (b[j].is_ascii_lowercase() || b[j].is_ascii_digit() || b[j] == b'-')
            {
                j += 1;
            }
            out.push(text[i..j].trim_end_matches('-').to_string());
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// `README.md` and every `docs/*.md`.
fn documents() -> Vec<(String, String)> {
    let mut paths = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(root())
                .unwrap_or(Path::new(p))
                .display()
                .to_string();
            (rel, std::fs::read_to_string(p).unwrap())
        })
        .collect()
}

/// Text with quoted strings (`'...'`, `"..."`) blanked: layouts and
/// messages, not flags.
fn unquoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                out.push(' ');
            }
            Some(_) => out.push(' '),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                out.push(' ');
            }
            None => out.push(c),
        }
    }
    out
}

/// The command lines of a document that invoke a warpforge subcommand:
/// (line number, subcommand, the rest of the command up to a pipe,
/// redirection, `;`, `&&` or comment). Code blocks join lines continued with
/// `\`; inline code spans count when they start with a subcommand (or
/// `warpforge <subcommand>`).
fn command_lines(text: &str, subs: &[String]) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    let mut pending_line = 0;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            pending.clear();
            continue;
        }
        if in_block {
            if pending.is_empty() {
                pending_line = n;
            }
            let l = line.trim_end();
            if let Some(head) = l.strip_suffix('\\') {
                pending.push_str(head);
                pending.push(' ');
                continue;
            }
            pending.push_str(l);
            let cmd = std::mem::take(&mut pending);
            let cmd = unquoted(&cmd);
            let words: Vec<&str> = cmd.split_whitespace().collect();
            for (k, w) in words.iter().enumerate() {
                let invokes =
                    *w == "$B" || *w == "$WF" || (w.ends_with("warpforge") && !w.contains('-'));
                if let (true, Some(sub)) = (invokes, words.get(k + 1)) {
                    if subs.iter().any(|s| s == sub) {
                        let rest = words[k + 2..].join(" ");
                        out.push((pending_line, sub.to_string(), cut_at_end(&rest)));
                    }
                }
            }
        } else {
            // inline code spans
            let parts: Vec<&str> = line.split('`').collect();
            for (k, span) in parts.iter().enumerate() {
                if k % 2 == 0 {
                    continue;
                }
                let span = unquoted(span);
                let mut words = span.split_whitespace().peekable();
                if words.peek() == Some(&"warpforge") {
                    words.next();
                }
                let Some(sub) = words.next() else { continue };
                if subs.iter().any(|s| s == sub) {
                    let rest: Vec<&str> = words.collect();
                    out.push((n, sub.to_string(), cut_at_end(&rest.join(" "))));
                }
            }
        }
    }
    out
}

fn cut_at_end(rest: &str) -> String {
    let mut end = rest.len();
    for stop in [" |", " >", ";", "&&", " #"] {
        if let Some(i) = rest.find(stop) {
            end = end.min(i);
        }
    }
    rest[..end].to_string()
}

#[test]
fn every_documented_flag_is_a_flag_of_the_binary() {
    let subs = subcommands();
    let per_sub: BTreeMap<String, BTreeSet<String>> = subs
        .iter()
        .map(|s| (s.clone(), defined_flags(&help(&[s.as_str()]))))
        .collect();
    let mut any: BTreeSet<String> = per_sub.values().flatten().cloned().collect();
    any.extend(defined_flags(&help(&[])));
    assert!(
        any.contains("--ttgir") && any.contains("--output") && any.contains("--smem"),
        "{any:?}"
    );
    let other: BTreeSet<&str> = OTHER_TOOLS.iter().map(|(f, _)| *f).collect();

    let mut wrong = Vec::new();
    for (doc, text) in documents() {
        for (n, line) in text.lines().enumerate() {
            for f in flags_in(line) {
                if !any.contains(&f) && !other.contains(f.as_str()) {
                    wrong.push(format!(
                        "{doc}:{}: {f} is no flag of any warpforge subcommand",
                        n + 1
                    ));
                }
            }
        }
        for (n, sub, rest) in command_lines(&text, &subs) {
            for f in flags_in(&rest) {
                if !per_sub[&sub].contains(&f) {
                    wrong.push(format!(
                        "{doc}:{n}: `warpforge {sub}` has no {f} (`warpforge {sub} --help`)"
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the docs and --help disagree:\n{}",
        wrong.join("\n")
    );
}

/// The checks above are not vacuous: they find documented command lines
/// in the README and reject a flag a subcommand lacks.
#[test]
fn the_flag_check_sees_command_lines_and_wrong_flags() {
    let subs = subcommands();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = command_lines(&readme, &subs);
    for sub in ["plan", "emit", "verify"] {
        assert!(
            lines.iter().any(|(_, s, _)| s == sub),
            "README: no `{sub}` command line"
        );
    }
    let sample = "```sh\n$B emit --src 'ptx:mma.m16n8k16.c.f32' \\\n   --dst x --bogus-flag # --not-this\n```\n`layout --attr @f.txt --vector 64`\n";
    let found = command_lines(sample, &subs);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].1, "emit");
    assert_eq!(flags_in(&found[0].2), ["--src", "--dst", "--bogus-flag"]);
    assert_eq!(found[1].1, "layout");
    assert_eq!(flags_in(&found[1].2), ["--attr", "--vector"]);
    let emit = defined_flags(&help(&["emit"]));
    assert!(emit.contains("--src") && emit.contains("--api") && !emit.contains("--bogus-flag"));
    assert!(!emit.contains("--smem"), "emit has no --smem: {emit:?}");
    assert_eq!(
        flags_in("--src/--dst a--b `--x=1` ---"),
        ["--src", "--dst", "--x"]
    );
}
